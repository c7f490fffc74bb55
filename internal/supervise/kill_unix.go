//go:build unix

package supervise

import (
	"os"
	"strconv"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// The words killBackground reports with.
const (
	terminateWord = "SIGTERM"
	killWord      = "SIGKILL"
)

// passOn passes a signal guard received on to the child. A signal a
// terminal sends (Ctrl-C's SIGINT, SIGQUIT, a hangup's SIGHUP) reaches the
// terminal's whole foreground process group, the child included, since it
// shares guard's group: where guard is in that group, those are not sent
// again. Anything else is (a SIGTERM for guard alone, from kill(1) or a
// supervisor, must reach the child). A signal sent to guard's whole group
// (Claude Code's SIGTERM at a hook's timeout) may so reach the child twice,
// as it does under timeout(1); a child whose handler runs once per signal
// can tell.
func (c *child) passOn(s os.Signal) {
	sig, ok := s.(syscall.Signal)
	if !ok {
		return
	}
	if sig != syscall.SIGTERM && inTerminalForeground() {
		return
	}
	_ = syscall.Kill(c.pid, sig)
}

// terminate asks the child and what it started to end: SIGTERM to each,
// then SIGCONT, so that a stopped process (one that stopped itself
// included) can act on it.
func (c *child) terminate() {
	for _, pid := range c.targets() {
		_ = syscall.Kill(pid, syscall.SIGTERM)
		_ = syscall.Kill(pid, syscall.SIGCONT)
	}
}

// kill ends the child and what it started with SIGKILL, again and again
// for up to a second until none is left: a process may start another
// between the listing and the kill, and a killed process dies only once
// the kernel runs it again, so that what guard reports as ended is ended
// when it returns.
func (c *child) kill() {
	end := time.Now().Add(time.Second)
	for nap := time.Millisecond; ; nap = min(2*nap, 20*time.Millisecond) {
		pids := c.targets()
		if len(pids) == 0 || !time.Now().Before(end) {
			return
		}
		for _, pid := range pids {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		time.Sleep(nap)
	}
}

// leftovers reports whether anything the child started still runs.
func (c *child) leftovers() bool {
	return mayHaveDescendants() && len(c.targets()) > 0
}

// release does nothing on Unix: guard adopts what its child orphans, but
// does not reap it (a dead one is a zombie until guard exits, skipped by
// treeOf); reaping with wait(-1) could take the status of another run's
// child in the same process.
func (c *child) release() {}

// targets lists the processes terminate and kill signal (see treeOf). If
// the process table cannot be read, the child alone.
func (c *child) targets() []int {
	procs, err := processTable()
	if err != nil {
		if Alive(c.pid, 0) {
			return []int{c.pid}
		}
		return nil
	}
	return treeOf(procs, os.Getpid(), c.pid)
}

// inTerminalForeground reports whether guard's process group is the
// foreground group of its controlling terminal, which sends it the
// terminal's signals.
func inTerminalForeground() bool {
	fd, err := unix.Open("/dev/tty", unix.O_RDONLY|unix.O_NOCTTY|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return false // no controlling terminal
	}
	defer unix.Close(fd)
	pg, err := unix.IoctlGetInt(fd, unix.TIOCGPGRP)
	return err == nil && pg == unix.Getpgrp()
}

// IsTerminal reports whether v is an *os.File open on a terminal.
func IsTerminal(v any) bool {
	f, ok := v.(*os.File)
	if !ok {
		return false
	}
	_, err := unix.IoctlGetTermios(int(f.Fd()), ioctlGetTermios)
	return err == nil
}

func signalName(s syscall.Signal) string {
	if name := unix.SignalName(s); name != "" {
		return name
	}
	return "signal " + strconv.Itoa(int(s))
}
