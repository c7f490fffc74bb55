package supervise

import "slices"

// A proc is one line of the process table: what guard needs to know to
// tell the processes its child started from everything else.
type proc struct {
	pid, ppid int
	pgid, sid int // process group and session
	zombie    bool
}

// treeOf returns the live processes guard (pid self) must stop along with
// its child (pid child, which may be gone): guard's descendants, which
// are the child and what it started (a Linux guard adopts the processes
// its child orphans: see adoptOrphans), but not a process in a session of
// its own, nor anything below one: that is a daemon the hook deliberately
// detached (setsid), which it would outlive without guard too. The child
// itself counts, whatever session it is in, and so does its session.
//
// Where the platform has no adoption (macOS), a process whose parent died
// is adopted by init: treeOf then also counts the orphans (parent pid 1)
// in guard's process group, and what they started (but for daemons, as
// above), when guard leads that group (Claude Code
// starts every hook as a group leader), since every other member of that
// group is something guard's child started. A pipeline's other commands,
// which may share guard's group, have a live parent, the shell.
//
// Never guard itself, its parent, or a process that is not below guard.
func treeOf(procs []proc, self, child int) []int {
	var me proc
	below := map[int][]proc{}
	for _, p := range procs {
		if p.pid == self {
			me = p
		}
		below[p.ppid] = append(below[p.ppid], p)
	}
	if me.pid == 0 {
		return nil
	}
	sessions := []int{me.sid}
	for _, p := range below[self] {
		if p.pid == child && p.sid != me.sid {
			sessions = append(sessions, p.sid)
		}
	}
	var out []int
	seen := map[int]bool{self: true}
	queue := []int{self}
	if me.pgid == self {
		// The orphans in guard's group, and below them what they started.
		for _, p := range procs {
			if p.pgid == self && p.ppid == 1 && !seen[p.pid] && !p.zombie {
				seen[p.pid] = true
				out = append(out, p.pid)
				queue = append(queue, p.pid)
			}
		}
	}
	for len(queue) > 0 {
		pid := queue[0]
		queue = queue[1:]
		for _, p := range below[pid] {
			if seen[p.pid] || !slices.Contains(sessions, p.sid) {
				continue
			}
			seen[p.pid] = true
			queue = append(queue, p.pid)
			if !p.zombie {
				out = append(out, p.pid)
			}
		}
	}
	slices.Sort(out)
	return out
}
