//go:build windows

package postgres

import "os"

// stopCommand ends the command of a lost slot: Windows has no signal to
// ask it first, so only the kill does anything, and it is TerminateProcess
// of that one process. (Its own children are not reached from here: on
// Windows a process tree is ended through the job object guard runs the
// command in; see internal/supervise.)
func stopCommand(pid int, kill bool) {
	if !kill {
		return
	}
	if p, err := os.FindProcess(pid); err == nil {
		_ = p.Kill()
	}
}
