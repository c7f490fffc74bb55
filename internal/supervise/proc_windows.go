package supervise

import (
	"errors"

	"golang.org/x/sys/windows"
)

// stillActive is what GetExitCodeProcess says of a process that runs
// (STILL_ACTIVE).
const stillActive = 259

// StartTime returns the creation time of process pid (GetProcessTimes, in
// 100-nanosecond intervals since 1601), which tells a process from a later
// one that reused its PID.
func StartTime(pid int) (uint64, error) {
	h, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, uint32(pid))
	if err != nil {
		return 0, err
	}
	defer windows.CloseHandle(h)
	return creationTime(h)
}

func creationTime(h windows.Handle) (uint64, error) {
	var created, exited, kernel, user windows.Filetime
	if err := windows.GetProcessTimes(h, &created, &exited, &kernel, &user); err != nil {
		return 0, err
	}
	return uint64(created.HighDateTime)<<32 | uint64(created.LowDateTime), nil
}

// Alive reports whether the process pid that started at start (0: unknown)
// still runs.
func Alive(pid int, start uint64) bool {
	if pid <= 0 {
		return false
	}
	h, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, uint32(pid))
	if err != nil {
		// Another user's process is there; a PID no process has is not.
		return errors.Is(err, windows.ERROR_ACCESS_DENIED)
	}
	defer windows.CloseHandle(h)
	var code uint32
	if windows.GetExitCodeProcess(h, &code) == nil && code != stillActive {
		return false
	}
	if start == 0 {
		return true
	}
	got, err := creationTime(h)
	return err != nil || got == start
}

// ChildDiesWithGuard reports whether the child dies when guard does,
// however guard dies: on Windows, with the job object guard's handle
// keeps.
const ChildDiesWithGuard = true
