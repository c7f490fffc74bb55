//go:build unix

package postgres

import "syscall"

// stopCommand asks the command of a lost slot to stop (SIGTERM), or, with
// kill, makes it (SIGKILL): its process group, if it leads one, and it.
func stopCommand(pid int, kill bool) {
	sig := syscall.SIGTERM
	if kill {
		sig = syscall.SIGKILL
	}
	_ = syscall.Kill(-pid, sig)
	_ = syscall.Kill(pid, sig)
}
