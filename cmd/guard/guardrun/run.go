package guardrun

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"guard/breaker"
	"guard/config"
	"guard/internal/circuit"
	"guard/internal/earlysig"
	"guard/internal/store"
	"guard/internal/supervise"
	"guard/internal/view"
)

// Run is guard run, given its parsed command line.
func (e *Env) Run(l RunLine) (err error) {
	begun := e.Now()
	e.holdWarnings()
	defer func() { e.releaseWarnings(err) }()
	e.subscribeSignals()
	defer func() {
		if !e.Exits {
			<-e.SigsReady
			signal.Stop(e.Sigs)
		}
	}()

	if l.HookTimeout != nil {
		e.hookTimeout = *l.HookTimeout
	}
	argv, key, ruleKey, err := l.Target(e.Getenv(circuit.ProjectVar))
	if err != nil {
		return &UsageError{Err: err}
	}
	if l.shellMissing {
		e.Warnf("--shell %s: not found %s; %s runs the command", view.Printable(l.Shell), shellPlaces(), view.Printable(argv[0]))
	}
	e.runShell = l.Shell // found, if ever needed, by a fallback
	cfg, err := e.loadRunConfig(l.Config, l.State)
	if errors.Is(err, config.ErrNeedsYAML) {
		// A config outside the plain YAML this guard reads: guard-cli
		// runs the whole call, reading it with yaml.v3 (nothing has been
		// read or run yet). Only if it cannot be started does the command
		// run here, unguarded.
		err = e.HandOver()
	}
	if err != nil {
		e.Warnf("%v; running %q unguarded", view.ErrorLine(err), key)
		return e.unguarded(argv, failOpen())
	}
	b, err := l.Settings(cfg, ruleKey)
	if err != nil {
		e.Warnf("%v; running %q unguarded", err, key)
		return e.unguarded(argv, failOpen())
	}
	if l.OnSkip != nil {
		e.onSkipFlag = true // a block names the flag, not a setting the user never wrote
	}
	if b.Scope != circuit.ScopeAuto && b.Scope != "" {
		sid := ""
		if b.Scope == circuit.ScopeSession {
			sid = e.sessionID()
		}
		key = circuit.ScopedKey(key, ruleKey, b.Scope, e.Getenv(circuit.ProjectVar), sid)
	}
	if !b.Enabled || b.Mode == "disabled" {
		return e.passThrough(l, b, argv)
	}
	b = e.hookBudget(b)

	if config.IsDatabaseURL(cfg.StateFile) {
		// Connecting may wait: a signal meanwhile ends guard with 128+n
		// (its handler in place). A state file opens without waiting,
		// while the handlers are set up (see Protocol.Ready below).
		<-e.SigsReady
	}
	hooks, err := e.OpenHooks(cfg)
	if err != nil {
		return e.guardFailed(cfg, b, argv, key, err)
	}
	e.runHooks = hooks
	Host := e.hostName()
	p := &circuit.Protocol{
		Circuits: hooks.Circuits, Runs: hooks.Runs,
		Live: leaseLiveness(Host, hooks.Runs), Self: store.Holder{Host: Host, PID: os.Getpid()},
		KillGrace: b.KillGrace,
		// Before guard takes a lock, a lease or a slot, which it may wait
		// for, a signal must end it with 128+n (its handler in place), not
		// kill it by default holding them. Until then (opening the state,
		// the lock-free read that decides a closed circuit) the handlers
		// are set up meanwhile.
		Ready: func() { <-e.SigsReady },
		// A skipped WorktreeCreate hook fails: its skip is a block.
		SkipBlocks: func() bool { return e.skipEvent(cfg) == "WorktreeCreate" },
	}
	if b.OnStateChange != "" {
		// Transitions start on_state_change, detached, once the call is
		// over: the command never waits for them.
		var n Notes
		p.Moved = func(key string, c breaker.Circuit, evs []breaker.Event) { n.Note(b, key, c, evs, e.Now()) }
		defer e.StartNotes(&n, cfg, hooks)
	}
	now := e.Now()
	var deadline time.Time
	if b.Timeout > 0 {
		deadline = now.Add(b.Timeout)
	}
	if b.MaxConcurrent > 0 {
		// A key disabled by hand runs unguarded, slots and all: a limited
		// key looks before it takes one (an unlimited one finds out from
		// Admit's peek).
		if c, err := hooks.Circuits.Peek(key); err == nil && c.Disabled != nil {
			return e.passThrough(l, b, argv)
		}
	}
	// A limited key takes its slot before the circuit decides, so that a
	// probe lease is never taken by a call that then has no slot to run in.
	slot, err := p.Start(key, b.MaxConcurrent, b.QueueTimeout, now, deadline, e.Signalled)
	defer func() {
		if slot != nil {
			slot.Release()
		}
	}()
	switch {
	case errors.Is(err, store.ErrFull):
		return e.rejected(cfg, b, p, key)
	case errors.Is(err, store.ErrStopped):
		// A signal while queued: nothing ran, nothing to record.
		sig := <-e.Sigs
		return Exit(128 + int(sig.(syscall.Signal)))
	case err != nil:
		return e.guardFailed(cfg, b, argv, key, err)
	}
	if ls, ok := slot.(store.Losing); ok {
		// A slot that can be lost (a database's row) stops the command
		// before another run may take it.
		e.losing = ls
		if given, asked := ls.Lease(); asked > 0 {
			e.Warnf("guard_lease=%s is too short for a max_concurrent slot whose command gets a kill_grace of %s after a round that may take %s; %q's slot lasts %s",
				config.FormatDuration(asked), config.FormatDuration(b.KillGrace), config.FormatDuration(ls.RoundLimit()), key, config.FormatDuration(given))
		}
	}

	s := b.Settings(ruleKey)
	dec, c, err := p.Admit(key, s, now)
	var unrecorded *circuit.UnrecordedSkipError
	if errors.As(err, &unrecorded) {
		// The circuit is open, as the lock-free read showed: skipped, not
		// run unguarded, though the lock did not come (faults #4).
		e.Warnf("state lock not obtained within %s; the skip of %q is not recorded", config.FormatDuration(cfg.LockTimeout), key)
		e.logGuardSkip(key, e.skipBlocks(cfg, b), string(dec.Skip), fmt.Sprintf("state lock not obtained within %s: not counted", config.FormatDuration(cfg.LockTimeout)))
		err = nil
	}
	if err != nil {
		return e.guardFailed(cfg, b, argv, key, err)
	}
	if dec.Disabled {
		if slot != nil {
			slot.Release()
			slot = nil
		}
		return e.passThrough(l, b, argv)
	}
	if !dec.Run && !s.Observe {
		e.skipWhy = string(dec.Skip)
		if dec.Skip == breaker.SkipInterval {
			return e.skipped(cfg, b, key, view.IntervalNotice(key, c.LastStart, b.MinInterval, e.Now()))
		}
		return e.skipped(cfg, b, key, view.SkipNotice(key, dec.Skip, c, e.Now()))
	}
	// In observe mode a call the circuit skips runs anyway: the skip is
	// logged as one it would have made, and the run, not a probe, does not
	// move the circuit, which goes on as it would have.
	started := func(pid int) {
		if slot != nil {
			slot.Started(pid) // a limited key's slot, or a try after the first (retries)
			return
		}
		// An unlimited key registers its run only so that 'guard status'
		// can show it, once the child has started: that work then goes on
		// while the child runs. A failure is not worth a warning.
		slot = p.Register(key, now, deadline, pid)
	}

	var res supervise.Result
	var r breaker.Result
	var tries []circuit.Attempt
	<-e.SigsReady
	select {
	case sig := <-e.Sigs:
		// Interrupted before the child started: nothing ran.
		res = supervise.Result{ExitCode: 128 + int(sig.(syscall.Signal)), Interrupted: sig}
		r = circuit.Classify(&res, b, dec)
	default:
		if h, ok := slot.(store.Held); ok {
			// A limited key's command holds its slot too, so that the
			// slot stays taken while what it started runs, should guard
			// be killed (faults #2).
			e.hold = h.File()
		}
		res, r, tries = e.runTries(argv, key, b, dec, started)
		e.hold = nil
	}
	if res.TimedOut {
		// The command was stopped for running too long: its outcome is
		// recorded even if the caller's own signal comes meanwhile (Claude
		// Code's, at its timeout for the hook).
		e.recordAnyway = true
	}
	now = e.Now()
	run := circuit.Run{Exit: res.ExitCode, Duration: res.Elapsed, Attempts: tries}
	if b.Retries > 0 {
		run.Of = b.Retries + 1
	}
	p.RecordWait = e.recordWait(cfg, begun)
	if err := p.Record(key, s, now, r, run); err != nil {
		if sig, ok := e.TakeSignal(); ok {
			// A signal that came after the command ended, while its outcome
			// waited for the state lock: guard ends now, with the signal's
			// status, the outcome unrecorded.
			return Exit(128 + int(sig))
		}
		e.Warnf("could not record the outcome of %q: %v", key, view.ErrorLine(err))
	}
	return Exit(e.launchFailureExit(key, b, &res))
}

// passThrough runs argv as guard does for a key it is turned off for
// (mode: disabled in the config, or guard disable): with no bookkeeping,
// but a --timeout or --hook-timeout given for this very run still holds:
// it is supervision the caller asked for, not the breaker.
func (e *Env) passThrough(l RunLine, b config.Breaker, argv []string) error {
	var only config.Breaker
	if l.Timeout != nil {
		only.Timeout, only.KillGrace = b.Timeout, b.KillGrace
	}
	if only.KillGrace == 0 {
		only.KillGrace = b.KillGrace
	}
	return e.unguarded(argv, only)
}

// sessionID returns the session_id of the Claude Code hook payload on
// stdin (see payload), or "" for a terminal, a payload that is not JSON, is
// longer than maxPayload or has no session_id.
func (e *Env) sessionID() string {
	return circuit.SessionID(e.payload())
}

// launchFailureExit is the status guard run exits with: the command's,
// except that a command that exited 2 only because it could not start
// exits launch_failure_exit (1), with a notice: Claude Code takes a hook's
// 2 for a deliberate block, and a hook whose script is missing would block
// every tool call. A hook that must fail closed (on_skip: block, what
// install writes for "onFailure": "block") keeps its 2: it blocks without
// guard, and must with it (hostile-user-3 M1); it still counts as a
// failure.
func (e *Env) launchFailureExit(key string, b config.Breaker, res *supervise.Result) int {
	if res.ExitCode != 2 || b.LaunchFailureExit == 2 || b.OnSkip == "block" {
		return res.ExitCode
	}
	line := res.LaunchFailure()
	if line == "" {
		return res.ExitCode
	}
	e.notef("guard: %s did not start (%s): recorded as a failure; exit %d instead of 2, so that Claude Code does not take it for a block (launch_failure_exit)",
		view.Truncate(view.KeyText(key), 80), view.Truncate(view.Printable(line), 160), b.LaunchFailureExit)
	return b.LaunchFailureExit
}

// subscribeSignals takes the signals guard passes on to its child, from
// now on: one that arrives before the child starts cancels the call, and
// must not kill guard holding a probe lease. Subscribing hands each signal
// to the runtime's signal thread in turn, which takes a few hundred
// microseconds of waiting, so it goes on in the background while guard
// reads its config and state: guard waits for it before it takes a lock,
// a lease or a slot (circuit.Protocol.Ready), and before the child starts.
// In the guard process itself it was started before main (see earlysig).
func (e *Env) subscribeSignals() {
	if e.Sigs != nil {
		return
	}
	if e.Exits {
		earlysig.Start()
		e.Sigs, e.SigsReady = earlysig.Get()
		e.unbreakStreams() // done already if "run" came first
		return
	}
	e.Sigs, e.SigsReady = earlysig.Subscribe()
}

// Signalled reports, without taking it, whether a signal guard passes on
// has arrived.
func (e *Env) Signalled() bool {
	if e.recordAnyway {
		return false
	}
	select {
	case <-e.SigsReady:
		return len(e.Sigs) > 0
	default:
		return false
	}
}

// TakeSignal takes a signal guard passes on that has arrived, if any.
func (e *Env) TakeSignal() (syscall.Signal, bool) {
	if !e.Signalled() {
		return 0, false
	}
	select {
	case sig := <-e.Sigs:
		return sig.(syscall.Signal), true
	default:
		return 0, false
	}
}

// rejected reports a call that found every concurrency slot of its key
// taken, counts it, and exits as a skip does.
func (e *Env) rejected(cfg *config.Config, b config.Breaker, p *circuit.Protocol, key string) error {
	runs := "runs are"
	if b.MaxConcurrent == 1 {
		runs = "run is"
	}
	why := fmt.Sprintf("%d %s in flight (max_concurrent: %d) and none ended within %s",
		b.MaxConcurrent, runs, b.MaxConcurrent, config.FormatDuration(b.QueueTimeout))
	if err := p.Reject(key, e.Now(), why, e.skipBlocks(cfg, b)); err != nil {
		e.Warnf("could not record the rejection of %q: %v", key, view.ErrorLine(err))
	}
	e.skipWhy = "max_concurrent"
	return e.skipped(cfg, b, key, view.RejectedNotice(key, why))
}

// supervise runs argv under b's timeout, reporting a command that could not
// be started the way a shell would. started, if set, gets the child's PID.
func (e *Env) supervise(argv []string, key string, b config.Breaker, started func(int)) supervise.Result {
	return e.superviseStreams(argv, key, b, started, e.Stdin, e.Stdout, e.Stderr)
}

// superviseStreams is supervise, with the child's stdin and stdout and a
// writer for its stderr given (a try of retries, held back; the output
// kept for ignore_output).
func (e *Env) superviseStreams(argv []string, key string, b config.Breaker, started func(int), stdin io.Reader, stdout, stderr io.Writer) supervise.Result {
	e.childStarted = true // from here on, a panic must not run it again
	res := supervise.Run(supervise.Spec{
		Argv:           argv,
		Stdin:          stdin,
		Stdout:         stdout,
		Stderr:         stderr,
		Timeout:        b.Timeout,
		KillGrace:      b.KillGrace,
		HookTimeout:    e.hookTimeout,
		KillBackground: b.KillBackground,
		Started:        started,
		Signals:        e.Sigs,
		Stop:           e.losingStop(),
		Hold:           e.hold,
	})
	if res.Stopped {
		e.notef("guard: stopped %q: %s", key, e.losing.LostWhy())
	}
	if res.Background != "" {
		e.notef("guard: %q left processes running when it exited; kill_background ended them (%s)", key, res.Background)
	}
	if !res.Ran() {
		e.notef("guard: %s", view.Printable(res.StartErr.Error()))
	}
	if res.TimedOut {
		if res.HookTimedOut() {
			e.notef("guard: %q was stopped after %s, %s before its hook timeout of %s: recorded as a timeout failure (--hook-timeout)",
				key, config.FormatDuration(b.Timeout), config.FormatDuration(e.hookTimeout-b.Timeout), config.FormatDuration(e.hookTimeout))
		} else {
			e.notef("guard: %q ran longer than its timeout of %s and was stopped", key, config.FormatDuration(b.Timeout))
		}
	}
	return res
}

// notef prints a line of guard's own about the command it ran. Like a
// warning it is held back until guard's status is known, and dropped if
// that is 2: Claude Code reads the stderr of a hook that exits 2 as the
// reason for its block, and guard adds nothing to it.
func (e *Env) notef(format string, args ...any) {
	var w io.Writer = e.Stderr
	if e.heldWarnings != nil {
		w = e.heldWarnings
	}
	fmt.Fprintf(w, format+"\n", args...)
}

// unguarded runs argv without touching any state: guard's fail-open path,
// and what a disabled breaker does.
func (e *Env) unguarded(argv []string, b config.Breaker) error {
	// Unguarded, the command still ends within its caller's timeout
	// (--hook-timeout): guard's lifetime is the hook's.
	b = e.hookBudget(b)
	if e.SigsReady != nil {
		<-e.SigsReady
	}
	return Exit(e.supervise(argv, circuit.CommandKey(argv), b, nil).ExitCode)
}

// losingStop is the channel that tells supervise to stop the command
// because its slot is being lost (store.Losing), or nil.
func (e *Env) losingStop() <-chan struct{} {
	if e.losing == nil {
		return nil
	}
	return e.losing.Lost()
}

// leaseLiveness is Liveness(host), except that a probe's lease whose guard
// is gone but whose command still runs (listed among runs as orphaned:
// where a command does not die with guard) is alive: the probe is still
// going on, and no other may start until it ends.
func leaseLiveness(host string, runs store.Runs) store.Liveness {
	l := Liveness(host)
	local := l.Local
	l.Local = func(pid int, start uint64) bool {
		if local(pid, start) {
			return true
		}
		list, _ := runs.List(func(store.Holder) bool { return false })
		for _, r := range list {
			if r.Orphaned && r.Holder.PID == pid && r.Holder.Start == start && (r.Holder.Host == "" || r.Holder.Host == host) {
				return true
			}
		}
		return false
	}
	return l
}

// failOpen is the supervision of a command guard runs unguarded because it
// has no settings for it (a config that does not load, a command line that
// does not parse): no timeout, and the default kill_grace after a signal.
func failOpen() config.Breaker {
	return config.Breaker{KillGrace: config.Default("").CircuitBreaker.KillGrace}
}

// hookBudget returns b with its timeout and kill_grace cut to fit inside
// the caller's timeout given with --hook-timeout (see supervise.HookBudget);
// without one it returns b as it is.
func (e *Env) hookBudget(b config.Breaker) config.Breaker {
	if e.hookTimeout <= 0 {
		return b
	}
	budget := supervise.HookBudget(e.hookTimeout, b.Timeout, b.KillGrace)
	b.Timeout, b.KillGrace = budget.Timeout, budget.KillGrace
	return b
}

// recordWait is how long guard run's record of an outcome may wait for the
// state lock (record_timeout), cut so that guard still exits before its
// caller's --hook-timeout, counted from begun, with a quarter of the hook's
// margin to spare: Claude Code lets a tool call through when a hook runs
// past its timeout, and a block waiting to be recorded must not be lost so.
func (e *Env) recordWait(cfg *config.Config, begun time.Time) time.Duration {
	wait := cfg.RecordTimeout
	if e.hookTimeout > 0 {
		left := begun.Add(e.hookTimeout - supervise.HookMargin(e.hookTimeout)/4).Sub(e.Now())
		wait = min(wait, max(left, time.Millisecond))
	}
	return wait
}

// logGuardSkip logs a skip guard decided without the state's lock (on
// its own failure under failure_mode: closed, or on an open circuit the
// lock-free read showed), with its reason and verdict, where the event
// log takes an event without the state (store.Appender); that may fail
// for the reason the state did, and then the warning is all there is.
func (e *Env) logGuardSkip(key string, blocked bool, reason, why string) {
	if e.runHooks == nil {
		return
	}
	if a, ok := e.runHooks.Events.(store.Appender); ok {
		a.Append(store.Event{Time: e.Now(), Event: store.EventSkip, Key: key, Reason: reason,
			Verdict: store.VerdictOf(blocked), Error: why})
	}
}

// skipBlocks reports whether a skip of a call under b blocks what the hook
// guards: on_skip: block, or a WorktreeCreate hook, whose skip fails (see
// worktreeCreateExit).
func (e *Env) skipBlocks(cfg *config.Config, b config.Breaker) bool {
	return b.OnSkip == "block" || e.skipEvent(cfg) == "WorktreeCreate"
}

// guardFailed handles guard's own failure before the child ran: by default
// it runs the child anyway; with failure_mode: closed it skips it.
func (e *Env) guardFailed(cfg *config.Config, b config.Breaker, argv []string, key string, err error) error {
	if e.SigsReady != nil {
		<-e.SigsReady
	}
	if sig, ok := e.TakeSignal(); ok {
		// A signal while guard read or waited for the state (its lock, say)
		// ends guard at once, and nothing runs.
		return Exit(128 + int(sig))
	}
	why := view.ErrorLine(err)
	if errors.Is(err, store.ErrBusy) {
		why = fmt.Sprintf("state lock not obtained within %s", config.FormatDuration(cfg.LockTimeout))
	}
	if cfg.FailureMode == "closed" {
		e.logGuardSkip(key, e.skipBlocks(cfg, b), store.SkipFailureMode, why)
		if b.OnSkip == "block" {
			return e.block(fmt.Sprintf("guard: skipped %s: %s, and failure_mode is closed; fix that ('guard doctor' checks the state), or set failure_mode: open to run hooks when guard cannot decide", circuit.KeyWord(key), why))
		}
		if b.Fallback != "" {
			e.skipWhy = store.SkipFailureMode
			return e.fallback(cfg, b, key, fmt.Sprintf("guard: skipped %s: %s, and failure_mode is closed", circuit.KeyWord(key), why))
		}
		e.Warnf("%s; skipping %q (failure_mode: closed)", why, key)
		return Exit(e.skipExit(cfg, b))
	}
	e.Warnf("%s; running %q unguarded", why, key)
	return e.unguarded(argv, b)
}

// RunUnparsed is guard run's answer to a command line that does not parse
// (err says why). guard must never be the reason a hook breaks, so if the
// command to run can still be found (after "--", or in -c), it warns and
// runs it unguarded. It never exits 2, which a Claude hook would read as
// "block".
func (e *Env) RunUnparsed(err error) error {
	if argv := Salvage(e.Args); argv != nil {
		if e.Exits {
			e.unbreakStreams() // it copies the command's stderr too
		}
		// The caller's timeout still bounds the command, if it was given
		// well.
		e.hookTimeout = salvageHookTimeout(e.Args)
		e.holdWarnings()
		e.Warnf("%v; running the command unguarded", err)
		err := e.unguarded(argv, failOpen())
		e.releaseWarnings(err)
		return err
	}
	return Usagef("%v (usage: guard run [FLAGS] -- CMD [ARG...] or guard run [FLAGS] -c 'STRING')", err)
}
