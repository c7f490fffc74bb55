package supervise

import (
	"bytes"
	"errors"
	"os"
	"strconv"
	"syscall"

	"golang.org/x/sys/unix"
)

// StartTime returns the start time of process pid in clock ticks since boot
// (field 22 of /proc/PID/stat), which tells a process from a later one that
// reused its PID.
func StartTime(pid int) (uint64, error) {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, err
	}
	// The command name, field 2, is in parentheses and may hold spaces or
	// parentheses itself; the fields after it start past the last ')'.
	i := bytes.LastIndexByte(data, ')')
	if i < 0 {
		return 0, errors.New("unexpected /proc stat format")
	}
	fields := bytes.Fields(data[i+1:])
	// fields[0] is field 3 (state), so field 22 is fields[19].
	if len(fields) < 20 {
		return 0, errors.New("unexpected /proc stat format")
	}
	return strconv.ParseUint(string(fields[19]), 10, 64)
}

// Alive reports whether the process pid that started at start (0: unknown)
// still runs. A zombie counts as dead: it will never report back.
func Alive(pid int, start uint64) bool {
	if pid <= 0 {
		return false
	}
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		// No /proc (a container without it, say): ask the kernel.
		if errors.Is(err, os.ErrNotExist) {
			if _, serr := os.Stat("/proc/self/stat"); serr == nil {
				return false
			}
		}
		return signalAlive(pid)
	}
	if i := bytes.LastIndexByte(data, ')'); i >= 0 && i+2 < len(data) && data[i+2] == 'Z' {
		return false
	}
	if start == 0 {
		return true
	}
	got, err := StartTime(pid)
	return err == nil && got == start
}

func signalAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

const ioctlGetTermios = unix.TCGETS
