//go:build unix

package supervise

import (
	"errors"
	"syscall"
)

// signalAlive reports whether process pid exists (a zombie does too).
func signalAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
