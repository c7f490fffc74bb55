package supervise

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"
	"time"

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

	// Hold, if set, is a file the child gets open as its descriptor 3, and
	// so does what it starts (unless it closes it): a slot file whose lock
	// the kernel keeps while any process holds it open, so that a slot
	// stays taken after guard is killed for as long as anything the
	// command started still runs (Unix; on Windows the job object ends
	// them all with guard, and it is not handed on).
	Hold *os.File

	// Stop, if not nil, is closed when guard must stop the child for a
	// reason of its own (a slot it could not keep): SIGTERM, then SIGKILL
	// after KillGrace, as for a timeout; the result is marked Stopped.
	Stop <-chan struct{}

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
	// Stopped is set when guard stopped the child because Spec.Stop was
	// closed.
	Stopped bool
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
	c, err := startChild(spec, childErr)
	if !direct {
		childErr.Close()
	}
	if err != nil {
		if pr != nil {
			pr.Close()
		}
		return startFailure(spec.Argv[0], err, start)
	}
	if spec.Started != nil {
		spec.Started(c.pid)
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
	stop := func() {
		res.TimedOut = true
		timeout = nil
		c.terminate()
		escalate()
	}
	var st exitStatus
	stopped := spec.Stop
wait:
	for {
		select {
		case st = <-c.done:
			break wait
		case <-stopped:
			stopped = nil
			if !res.TimedOut && !res.Stopped {
				res.Stopped = true
				c.terminate()
				escalate()
			}
		case <-timeout:
			stop()
		case s := <-sigs:
			if res.TimedOut {
				// Being stopped already: the caller's own signal at its
				// timeout (Claude Code's) changes nothing.
				continue
			}
			if spec.Timeout > 0 && time.Since(start) >= spec.Timeout {
				// A signal at or past the timeout, before guard's timer:
				// the run is over its time.
				stop()
				continue
			}
			res.Interrupted = s
			c.passOn(s)
			escalate()
		case <-hardKill:
			hardKill = nil
			c.kill()
		}
	}
	if !res.TimedOut && !res.Stopped && res.Interrupted == nil && endedBySignal(st) {
		// A signal sent to guard's whole process group (Claude Code giving
		// up on a hook, a terminal's Ctrl-C) reaches guard and the child at
		// once, but the child may end of it before guard's own copy has
		// come through the runtime: wait a little for it, so that the run
		// is the cancelled one it is, not a failure (a user who interrupts
		// a hook three times must not trip it).
		select {
		case s := <-sigs:
			if spec.Timeout > 0 && time.Since(start) >= spec.Timeout {
				res.TimedOut = true
			} else {
				res.Interrupted = s
			}
		case <-time.After(ownSignalWait):
		}
	}
	if res.TimedOut || res.Interrupted != nil || res.Stopped {
		// The child is gone; whatever it started goes with it.
		c.kill()
	} else if spec.KillBackground {
		res.Background = killBackground(c, spec.KillGrace)
	}
	c.release()
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
	switch {
	case st.err != nil: // waiting for it failed
		res.ExitCode = 1
	case res.TimedOut:
		res.ExitCode = 124
		res.Signal = st.signal
	case st.signal != 0:
		res.Signal = st.signal
		res.ExitCode = 128 + int(st.signal)
	default:
		res.ExitCode = st.code
	}
	return res
}

// ownSignalWait bounds how long Run waits, after the child ended of one of
// Signals (or exited 128+n for one, as a shell or a trap does) that guard
// did not send, for guard's own copy of it. Sent to the group, it is on its
// way already and comes within milliseconds; sent to the child alone, it
// never comes, and the run is a failure as before, this much later.
var ownSignalWait = 500 * time.Millisecond

// endedBySignal reports whether st is how a process ends of one of Signals:
// killed by it, or exiting 128+n (a shell whose command was killed by it, a
// trap that exits so).
func endedBySignal(st exitStatus) bool {
	if st.err != nil {
		return false
	}
	for _, s := range Signals {
		n, ok := s.(syscall.Signal)
		if ok && (st.signal == n || (st.signal == 0 && st.code == 128+int(n))) {
			return true
		}
	}
	return false
}

// An exitStatus is how the child ended.
type exitStatus struct {
	code   int            // its exit status, if it exited
	signal syscall.Signal // the signal that killed it, or 0
	err    error          // waiting for it failed
}

// killBackground ends what the child left running once it has exited:
// politely (SIGTERM), then for good (SIGKILL) if anything is still alive
// after grace. It says what it did: "" if nothing was left, else the word
// for the last step it took (see terminateWord, killWord).
func killBackground(c *child, grace time.Duration) string {
	if !c.leftovers() {
		return ""
	}
	c.terminate()
	deadline := time.Now().Add(grace)
	for nap := time.Millisecond; ; nap = min(2*nap, 50*time.Millisecond) {
		if !c.leftovers() {
			return terminateWord
		}
		if !time.Now().Before(deadline) {
			break
		}
		time.Sleep(min(nap, time.Until(deadline)))
	}
	c.kill()
	return killWord
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
	case errors.Is(err, fs.ErrNotExist) && strings.ContainsRune(name, '/') && interpreter(name) != "":
		// The script is there; the program its #! line names is not.
		code, why = 126, interpreter(name)+": bad interpreter: No such file or directory"
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
