package supervise

import (
	"bytes"
	"errors"
	"os"
	"strconv"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
)

// On Linux, guard's child dies with guard: it has a parent-death signal
// (SIGKILL), and guard is a child subreaper, so what the child orphans
// (a background process left behind when a shell exits) is adopted by
// guard rather than by init, and stays in the tree guard stops.

// sysProcAttr is how the child is started: SIGKILL when guard dies.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}

var subreaper sync.Once

// adoptOrphans makes guard a child subreaper (PR_SET_CHILD_SUBREAPER),
// once: a process below guard whose parent dies becomes guard's child,
// not init's, so that treeOf still finds it.
func adoptOrphans() {
	subreaper.Do(func() { _ = unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) })
}

// mayHaveDescendants reports whether guard has any child process, alive
// or not (without waiting for or reaping one): as a subreaper, guard has
// a descendant only if it has a child.
func mayHaveDescendants() bool {
	var info unix.Siginfo
	err := unix.Waitid(unix.P_ALL, 0, &info, unix.WEXITED|unix.WNOHANG|unix.WNOWAIT, nil)
	return !errors.Is(err, unix.ECHILD)
}

// processTable reads every process's parent, group, session and state
// from /proc.
func processTable() ([]proc, error) {
	dir, err := os.Open("/proc")
	if err != nil {
		return nil, err
	}
	defer dir.Close()
	names, err := dir.Readdirnames(-1)
	if err != nil {
		return nil, err
	}
	procs := make([]proc, 0, len(names))
	for _, name := range names {
		if name[0] < '0' || name[0] > '9' {
			continue
		}
		pid, err := strconv.Atoi(name)
		if err != nil {
			continue
		}
		data, err := readStat(pid)
		if err != nil {
			continue // gone meanwhile
		}
		if p, ok := parseStat(pid, data); ok {
			procs = append(procs, p)
		}
	}
	return procs, nil
}

// parseStat reads /proc/PID/stat's state, ppid, pgrp and session. The
// command name, field 2, is in parentheses and may hold spaces or
// parentheses itself; the fields after it start past the last ')'.
func parseStat(pid int, data []byte) (proc, bool) {
	i := bytes.LastIndexByte(data, ')')
	if i < 0 {
		return proc{}, false
	}
	f := bytes.Fields(data[i+1:])
	if len(f) < 4 {
		return proc{}, false
	}
	p := proc{pid: pid, zombie: f[0][0] == 'Z' || f[0][0] == 'X'}
	var err error
	for j, dst := range []*int{&p.ppid, &p.pgid, &p.sid} {
		if *dst, err = strconv.Atoi(string(f[j+1])); err != nil {
			return proc{}, false
		}
	}
	return p, true
}

// StartTime returns the start time of process pid in clock ticks since boot
// (field 22 of /proc/PID/stat), which tells a process from a later one that
// reused its PID.
func StartTime(pid int) (uint64, error) {
	data, err := readStat(pid)
	if err != nil {
		return 0, err
	}
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
	if i := bytes.LastIndexByte(data, ')'); i >= 0 && i+2 < len(data) && (data[i+2] == 'Z' || data[i+2] == 'X') {
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

const ioctlGetTermios = unix.TCGETS

// ChildDiesWithGuard reports whether the child dies when guard does,
// however guard dies: on Linux, by its parent-death signal.
const ChildDiesWithGuard = true
