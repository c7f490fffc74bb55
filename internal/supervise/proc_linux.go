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
	data, err := readStat(pid)
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
	data, err := readStat(pid)
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

// readStat reads /proc/PID/stat with three system calls: os.ReadFile would
// spend six more finding out that the file cannot be polled and how big it
// is (the kernel says 0).
func readStat(pid int) ([]byte, error) {
	path := "/proc/" + strconv.Itoa(pid) + "/stat"
	fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	defer syscall.Close(fd)
	buf := make([]byte, 2048) // 52 fields of at most 20 digits, and a name of 16
	n, err := syscall.Read(fd, buf)
	if err != nil {
		return nil, &os.PathError{Op: "read", Path: path, Err: err}
	}
	return buf[:n], nil
}

func signalAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

const ioctlGetTermios = unix.TCGETS
