//go:build failpoints

package statefile

import "os"

// Failpoints are the steps of an update at which a test build can stop:
// after taking the lock, and after each step of the write sequence.
var Failpoints = []string{"after-lock", "after-create", "after-write", "after-sync", "after-close", "after-rename", "after-dirsync"}

// RelaxedFailpoints are the steps of a relaxed update (see Relaxer), which
// ends after the rename.
var RelaxedFailpoints = []string{"after-lock", "after-create", "after-write", "after-sync", "after-close", "after-rename", "after-relaxed-rename"}

// failpoint stops the process at the named step of an update when
// GUARD_FAILPOINT names it, as a crash there would: SIGKILL on Unix,
// TerminateProcess on Windows (os.Process.Kill), so that nothing of
// guard's own runs after it. It is compiled only with the failpoints build
// tag, for the crash tests.
func failpoint(name string) error {
	if os.Getenv("GUARD_FAILPOINT") == name {
		if self, err := os.FindProcess(os.Getpid()); err == nil {
			_ = self.Kill()
		}
		select {}
	}
	return nil
}
