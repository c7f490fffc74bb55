package supervise

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"guard/internal/earlysig"
)

// drainTime is how long Run waits, after the child exits, for the end of
// its stderr. A background process the child left running may hold the pipe
// open for ever; what the child itself wrote is read long before this.
const drainTime = 500 * time.Millisecond

// A Spec says what to run and how.
type Spec struct {
	Argv []string // Argv[0] is looked up in PATH unless it holds a slash
	Env  []string // nil: guard's own environment

	// Stdin and Stdout are handed to the child. An *os.File is passed as it
	// is, so the child reads and writes guard's own descriptors.
	Stdin  io.Reader
	Stdout io.Writer
	// Stderr receives a copy of the child's stderr as it is written.
	Stderr io.Writer

	Timeout   time.Duration // 0: none
	KillGrace time.Duration // from SIGTERM to SIGKILL, after a timeout or an interrupt
	// HookTimeout is the caller's own timeout for the command, when Timeout
	// was cut to fit inside it (see HookBudget), for Describe; 0: none.
	HookTimeout time.Duration
	// KillBackground: once the child exits, what it left running in its
	// process group gets SIGTERM, then SIGKILL after KillGrace, so that a
	// forgotten & cannot hold the caller's pipes open. (Only where the child
	// has a group of its own: not when it shares guard's terminal.)
	KillBackground bool

	// Started, if set, is called with the child's PID once it runs.
	Started func(pid int)

	// Signals delivers the signals guard receives, to pass on to the child.
	// If it is nil, Run subscribes to SIGINT, SIGTERM, SIGHUP and SIGQUIT
	// itself. A caller that subscribes earlier (to cover its own work
	// before the child starts) passes its channel here.
	Signals <-chan os.Signal
}

// Signals are the signals guard passes on to its child (the one list, kept
// in package earlysig, which must import nothing larger).
var Signals = earlysig.Signals

// A Result is what became of a child.
type Result struct {
	// ExitCode is the status guard should exit with: the child's own,
	// 128+n if signal n killed it, 124 if the timeout did, 127 if it could
	// not be found and 126 if it could not be executed.
	ExitCode int
	Signal   syscall.Signal // the signal that killed the child, or 0
	StartErr error          // why the child could not be started
	// TimedOut is set when the child was stopped for running past the
	// timeout, and then also when a signal came after that time: the run
	// was over its time either way.
	TimedOut bool
	// Timeout and HookTimeout are the Spec's, for Describe.
	Timeout, HookTimeout time.Duration
	// Interrupted is the signal guard itself received and passed on.
	Interrupted os.Signal
	Elapsed     time.Duration
	Tail        []byte // the last TailSize bytes of the child's stderr
	// Background is what KillBackground did: "" (nothing was left), or
	// which signal ended what the child left running.
	Background string

	// Argv and Env are what ran (Env nil: guard's own environment), and
	// Dir where ("": guard's working directory), for LaunchFailure.
	Argv []string
	Env  []string
	Dir  string
}

// Ran reports whether the child was started.
func (r *Result) Ran() bool { return r.StartErr == nil }

// Run runs the child and waits for it, supervising it as the package
// documentation describes. It does not return early: even an interrupt
// waits for the child to be gone.
func Run(spec Spec) Result {
	start := time.Now()
	sigs := spec.Signals
	if sigs == nil {
		own := make(chan os.Signal, 4)
		signal.Notify(own, Signals...)
		defer signal.Stop(own)
		sigs = own
	}

	// The child's stderr is a pipe guard copies on, keeping its tail for
	// last_error; but where guard's stderr is a terminal, the child gets
	// the terminal itself (it may ask isatty, and a process it leaves
	// behind can still write there after guard has gone), and no tail.
	t := &tail{}
	copied := make(chan struct{})
	var pr *os.File
	childErr, direct := spec.Stderr.(*os.File)
	direct = direct && IsTerminal(childErr)
	if !direct {
		var pw *os.File
		var err error
		if pr, pw, err = os.Pipe(); err != nil {
			return startFailure(spec.Argv[0], err, start)
		}
		childErr = pw
	}
	group := !IsTerminal(spec.Stdin)
	c, err := startChild(spec, childErr, group)
	if !direct {
		childErr.Close()
	}
	if err != nil {
		if pr != nil {
			pr.Close()
		}
		return startFailure(spec.Argv[0], err, start)
	}
	pid := c.pid
	if spec.Started != nil {
		spec.Started(pid)
	}

	if direct {
		close(copied)
	} else {
		go func() {
			// When guard's stderr goes away (a reader that closed its end
			// of a pipe), stop reading, so that the child meets the closed
			// pipe as it would have without guard.
			copyTee(spec.Stderr, t, pr)
			pr.Close()
			close(copied)
		}()
	}
	type waited struct {
		ws  syscall.WaitStatus
		err error
	}
	done := make(chan waited, 1)
	go func() {
		ws, err := c.wait()
		done <- waited{ws, err}
	}()

	kill := func(sig syscall.Signal) {
		if group {
			_ = syscall.Kill(-pid, sig)
		} else {
			_ = syscall.Kill(pid, sig)
		}
	}
	var res Result
	var timeout, hardKill <-chan time.Time
	if spec.Timeout > 0 {
		timer := time.NewTimer(spec.Timeout)
		defer timer.Stop()
		timeout = timer.C
	}
	escalate := func() {
		if hardKill == nil {
			hardKill = time.After(spec.KillGrace)
		}
	}
	var w waited
wait:
	for {
		select {
		case w = <-done:
			break wait
		case <-timeout:
			res.TimedOut = true
			timeout = nil
			kill(syscall.SIGTERM)
			escalate()
		case s := <-sigs:
			if res.TimedOut {
				// Being stopped already: the caller's own signal at its
				// timeout (Claude Code's) changes nothing.
				continue
			}
			if spec.Timeout > 0 && time.Since(start) >= spec.Timeout {
				// A signal at or past the timeout, before guard's timer:
				// the run is over its time.
				res.TimedOut = true
				timeout = nil
				kill(syscall.SIGTERM)
				escalate()
				continue
			}
			res.Interrupted = s
			// A child sharing guard's terminal got the terminal's signals
			// already; only a SIGTERM aimed at guard needs passing on.
			if group || s == syscall.SIGTERM {
				kill(s.(syscall.Signal))
			}
			escalate()
		case <-hardKill:
			hardKill = nil
			kill(syscall.SIGKILL)
		}
	}
	if group && (res.TimedOut || res.Interrupted != nil) {
		// The child is gone; whatever it started goes with it.
		_ = syscall.Kill(-pid, syscall.SIGKILL)
	} else if group && spec.KillBackground {
		res.Background = killBackground(pid, spec.KillGrace)
	}
	drained := time.After(drainTime)
	select {
	case <-copied:
	case <-drained:
	}
	if pr != nil {
		pr.Close()
	}
	if c.output != nil { // stdout was not a file: it is copied too
		select {
		case <-c.output:
		case <-drained:
		}
	}

	res.Elapsed = time.Since(start)
	res.Timeout, res.HookTimeout = spec.Timeout, spec.HookTimeout
	res.Tail = t.Bytes()
	res.Argv, res.Env = spec.Argv, spec.Env
	if w.err != nil { // wait(2) itself failed
		res.ExitCode = 1
		return res
	}
	switch ws := w.ws; {
	case res.TimedOut:
		res.ExitCode = 124
		if ws.Signaled() {
			res.Signal = ws.Signal()
		}
	case ws.Signaled():
		res.Signal = ws.Signal()
		res.ExitCode = 128 + int(res.Signal)
	default:
		res.ExitCode = ws.ExitStatus()
	}
	return res
}

// killBackground ends what is left in process group pgid once its leader
// has exited: SIGTERM, then SIGKILL if anything is still alive after grace.
// It says what it did: "" if nothing was left.
func killBackground(pgid int, grace time.Duration) string {
	if !groupAlive(pgid) {
		return ""
	}
	_ = syscall.Kill(-pgid, syscall.SIGTERM)
	deadline := time.Now().Add(grace)
	for nap := time.Millisecond; ; nap = min(2*nap, 50*time.Millisecond) {
		if !groupAlive(pgid) {
			return "SIGTERM"
		}
		if !time.Now().Before(deadline) {
			break
		}
		time.Sleep(min(nap, time.Until(deadline)))
	}
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
	// SIGKILL cannot be caught, but a process dies only once the kernel
	// runs it again: wait for that (briefly), so that what guard reports
	// as ended is ended when guard exits.
	for nap, end := time.Millisecond, time.Now().Add(time.Second); groupAlive(pgid) && time.Now().Before(end); nap = min(2*nap, 20*time.Millisecond) {
		time.Sleep(nap)
	}
	return "SIGKILL"
}

// groupAlive reports whether process group pgid has a member that is not
// a zombie. kill(-pgid, 0) alone cannot tell: an orphan that died stays a
// zombie until init reaps it, and in a container init may never do.
func groupAlive(pgid int) bool {
	if syscall.Kill(-pgid, 0) != nil {
		return false // ESRCH: no member at all
	}
	dir, err := os.Open("/proc")
	if err != nil {
		return true
	}
	defer dir.Close()
	names, _ := dir.Readdirnames(-1)
	for _, name := range names {
		if name[0] < '0' || name[0] > '9' {
			continue
		}
		stat, err := os.ReadFile("/proc/" + name + "/stat")
		if err != nil {
			continue
		}
		// pid (comm) state ppid pgrp ...: comm may hold anything, so
		// read from its closing parenthesis.
		i := bytes.LastIndexByte(stat, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(string(stat[i+1:]))
		if len(f) >= 3 && f[2] == strconv.Itoa(pgid) && f[0] != "Z" && f[0] != "X" {
			return true
		}
	}
	return false
}

// startFailure describes a child that could not be started, with the
// status a shell would give: 127 when it is not found, else 126.
func startFailure(name string, err error, start time.Time) Result {
	code, why := 126, err.Error()
	var pe *fs.PathError
	if errors.As(err, &pe) {
		why = pe.Err.Error()
	}
	switch {
	case errors.Is(err, exec.ErrNotFound), errors.Is(err, fs.ErrNotExist):
		code, why = 127, "command not found"
	case errors.Is(err, fs.ErrPermission):
		why = "permission denied"
		if fi, serr := os.Stat(name); serr == nil && fi.IsDir() {
			why = "is a directory"
		}
	}
	msg := fmt.Sprintf("%s: %s", name, why)
	return Result{ExitCode: code, StartErr: errors.New(msg), Elapsed: time.Since(start), Tail: []byte(msg)}
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

// Describe says in one phrase why a run failed, for last_error: "exit 1:
// <the end of stderr>", "killed by SIGKILL", "timeout after 30s".
func (r *Result) Describe(timeout time.Duration) string {
	if r.StartErr != nil {
		return fmt.Sprintf("exit %d: %s", r.ExitCode, r.StartErr)
	}
	var head string
	switch {
	case r.TimedOut && r.HookTimedOut():
		return fmt.Sprintf("timeout after %s (its hook timeout of %s, less guard's margin)", formatDuration(r.Timeout), formatDuration(r.HookTimeout))
	case r.TimedOut:
		return fmt.Sprintf("timeout after %s", timeout)
	case r.Signal != 0:
		head = fmt.Sprintf("killed by %s", signalName(r.Signal))
	default:
		head = fmt.Sprintf("exit %d", r.ExitCode)
	}
	if s := Summary(r.Tail, 2<<10); s != "" {
		return head + ": " + s
	}
	return head
}

// HookTimedOut reports whether the run was stopped for its caller's
// timeout (Spec.HookTimeout) rather than for guard's own timeout setting.
func (r *Result) HookTimedOut() bool {
	return r.TimedOut && r.HookTimeout > 0 && r.Timeout == r.HookTimeout-HookMargin(r.HookTimeout)
}

// formatDuration writes d as config does: 1m, not 1m0s.
func formatDuration(d time.Duration) string {
	s := d.String()
	if t, ok := strings.CutSuffix(s, "m0s"); ok {
		s = t + "m"
	}
	if t, ok := strings.CutSuffix(s, "h0m"); ok {
		s = t + "h"
	}
	return s
}

func signalName(s syscall.Signal) string {
	if name := unix.SignalName(s); name != "" {
		return name
	}
	return fmt.Sprintf("signal %d", int(s))
}
