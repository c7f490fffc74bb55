package supervise

import (
	"syscall"

	"golang.org/x/sys/unix"
)

// On macOS there is no parent-death signal and no subreaper: a SIGKILL of
// guard alone leaves its child running (a SIGKILL of guard's process
// group, which the child shares, does not). What the child orphans is
// adopted by launchd; treeOf still finds it through guard's process group
// when guard leads that group, as under Claude Code.

// sysProcAttr is how the child is started: in guard's process group, as
// it is.
func sysProcAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{} }

// adoptOrphans does nothing: macOS has no subreaper.
func adoptOrphans() {}

// mayHaveDescendants cannot tell cheaply on macOS: it reports true, and
// the process table decides.
func mayHaveDescendants() bool { return true }

// szomb is a zombie's p_stat (sys/proc.h).
const szomb = 5

// processTable reads every process's parent, group, session and state
// with sysctl kern.proc.all (the session with getsid, which kinfo_proc
// holds only as a kernel address).
func processTable() ([]proc, error) {
	kps, err := unix.SysctlKinfoProcSlice("kern.proc.all")
	if err != nil {
		return nil, err
	}
	procs := make([]proc, 0, len(kps))
	for i := range kps {
		kp := &kps[i]
		p := proc{
			pid:    int(kp.Proc.P_pid),
			ppid:   int(kp.Eproc.Ppid),
			pgid:   int(kp.Eproc.Pgid),
			zombie: kp.Proc.P_stat == szomb,
		}
		if p.sid, err = unix.Getsid(p.pid); err != nil {
			p.sid = -1 // gone meanwhile, or not ours to ask about
		}
		procs = append(procs, p)
	}
	return procs, nil
}

// StartTime returns the start time of process pid, in microseconds since
// the epoch (sysctl kern.proc.pid's p_starttime), which tells a process
// from a later one that reused its PID.
func StartTime(pid int) (uint64, error) {
	kp, err := unix.SysctlKinfoProc("kern.proc.pid", pid)
	if err != nil {
		return 0, err
	}
	tv := kp.Proc.P_starttime
	return uint64(tv.Sec)*1e6 + uint64(tv.Usec), nil
}

// Alive reports whether the process pid that started at start (0: unknown)
// still runs. A zombie counts as dead: it will never report back.
func Alive(pid int, start uint64) bool {
	if pid <= 0 {
		return false
	}
	kp, err := unix.SysctlKinfoProc("kern.proc.pid", pid)
	if err != nil {
		return signalAlive(pid) // there, if not known to be its start: count it alive
	}
	if kp.Proc.P_stat == szomb {
		return false
	}
	tv := kp.Proc.P_starttime
	return start == 0 || uint64(tv.Sec)*1e6+uint64(tv.Usec) == start
}

const ioctlGetTermios = unix.TIOCGETA

// ChildDiesWithGuard reports whether the child dies when guard does,
// however guard dies: not on macOS, which has no parent-death signal.
const ChildDiesWithGuard = false
