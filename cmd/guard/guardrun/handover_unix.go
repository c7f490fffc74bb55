//go:build unix

package guardrun

import "syscall"

// replaceProcess runs argv0 in place of guard: execve(2), the same pid,
// streams and environment envv, so that whatever started guard (Claude
// Code, a shell) waits for and hears from the command it hands over to
// (guard-pg, guard-web, a panicked guard run's command). It returns only
// if it cannot.
func replaceProcess(argv0 string, argv []string, envv []string) error {
	return syscall.Exec(argv0, argv, envv)
}
