//go:build !linux

package supervise

import (
	"errors"
	"syscall"

	"golang.org/x/sys/unix"
)

// StartTime is not available off Linux; leases then rely on the PID and
// their expiry.
func StartTime(pid int) (uint64, error) {
	return 0, errors.New("process start time is only known on Linux")
}

// Alive reports whether process pid still runs.
func Alive(pid int, start uint64) bool {
	if pid <= 0 {
		return false
	}
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

const ioctlGetTermios = unix.TIOCGETA
