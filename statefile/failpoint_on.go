//go:build failpoints

package statefile

import (
	"os"
	"syscall"
)

// failpoint stops the process at the named step of the write sequence when
// GUARD_FAILPOINT names it, as if the machine had lost power there. It is
// compiled only with the failpoints build tag, for the crash tests.
func failpoint(name string) error {
	if os.Getenv("GUARD_FAILPOINT") == name {
		_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
		select {}
	}
	return nil
}
