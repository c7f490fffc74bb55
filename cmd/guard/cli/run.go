package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/urfave/cli/v2"

	"guard/breaker"
	"guard/config"
	"guard/internal/circuit"
	"guard/internal/earlysig"
	"guard/internal/store"
	"guard/internal/supervise"
	"guard/internal/view"
)

// fromConfig is the default shown for flags that override the config.
const fromConfig = "from the config"

func (e *env) runCommand() *cli.Command {
	return &cli.Command{
		Name:      "run",
		Usage:     "run a command behind its circuit breaker",
		ArgsUsage: "-- CMD [ARG...]  |  -c 'SHELL STRING'",
		Description: `Runs CMD directly (or /bin/sh -c STRING with -c, Git Bash's sh on Windows; --shell bash -c STRING
runs it with bash, as Claude Code runs hook commands) and records the outcome in
the state file under the command's key. While the circuit is open the command
is skipped: guard prints a one-line notice and exits with open_exit_code (0).
Otherwise guard exits with the command's own status (128+n if signal n killed
it, 127 if it was not found, 126 if it could not be executed, 124 on timeout).
stdin, stdout and stderr pass through unchanged.

A hook that must fail closed (a policy hook, "onFailure": "block") takes
--on-skip block (or on_skip: block in guardrails.yaml): every call guard
does not run (open circuit, probe running, max_concurrent reached,
failure_mode: closed) then exits 2, Claude Code's block, with one line on
stderr that says guard skipped it, why, and how to retry. That exit 2 is
guard's deliberate, configured block; guard never exits 2 otherwise, except
to pass on the command's own 2.

--hook-timeout N tells guard that its caller (Claude Code) kills the command
after N seconds: guard then stops the command's processes a margin before
that (a tenth of N plus 0.4s, at most 5s and at most half of N: SIGTERM, then
SIGKILL after half the margin or kill_grace if shorter), exits 124 and records
a timeout failure, so that a hook that hangs on every call trips and is then
skipped at once. A shorter --timeout or timeout: setting still applies. A
signal that arrives before that is a cancellation, not a failure.

With a fallback (--fallback CMD, or fallback: in guardrails.yaml), a call
guard skips runs CMD instead, with the call's stdin: its stdout and exit
status are the call's (on_skip: block wins over it).

Exit statuses in success_exit_codes ([0]) are successes, those in
ignore_exit_codes ([2], a Claude hook's "block") count as neither, and all
else is a failure; ignore_output and failure_output judge by what the
command printed too, and retries try a failed run again before its failure
counts (docs/rules.md). If guard itself fails (unreadable state, lock timeout,
bad config), it warns and runs the command anyway.

The key is --name if given, else the -c string, else the arguments joined by
spaces with shell quoting where needed. A command that refers to
$CLAUDE_PROJECT_DIR has one circuit per project: "COMMAND @ PROJECT".

Examples:
   guard run -- python3 lint.py
   guard run -c 'npx prettier --check . && npx eslint .'
   guard run --shell bash -c '[[ -f package.json ]] && npx eslint .'
   guard run --name lint --timeout 30s -- make lint
   guard run --hook-timeout 600 --shell bash -c '"$CLAUDE_PROJECT_DIR"/.claude/hooks/check.sh'
   guard run --failure-threshold 5 --cooldown 1m -- ./flaky-check.sh
   guard run --on-skip block -c "$CLAUDE_PROJECT_DIR/.claude/hooks/deny-rm.sh"
   guard run --fallback 'echo "{}"' -c "$CLAUDE_PROJECT_DIR/.claude/hooks/context.sh"`,
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "command", Aliases: []string{"c"}, Usage: "run `STRING` with the shell (/bin/sh -c, or --shell's)"},
			&cli.StringFlag{Name: "shell", Usage: "run -c's STRING with `SHELL` (a name looked up on PATH, or a path) instead of /bin/sh; guard install writes --shell bash, as Claude Code runs a hook's command with bash"},
			&cli.StringFlag{Name: "name", Usage: "keep state under `KEY` instead of the command line"},
			&cli.DurationFlag{Name: "timeout", Usage: "stop the command after `DURATION`: SIGTERM, then SIGKILL after kill_grace; exit 124", DefaultText: fromConfig},
			&cli.GenericFlag{Name: "hook-timeout", Value: &hookTimeoutValue{}, Usage: "the caller's own timeout for the command, in `SECONDS` (600, 1.5) or a duration (10m): guard stops the command a margin before it and records a timeout failure, so that a hook that hangs trips (guard install writes each hook's timeout here)", DefaultText: "none"},
			&cli.IntFlag{Name: "failure-threshold", Usage: "open the circuit after `N` failures", DefaultText: fromConfig},
			&cli.IntFlag{Name: "success-threshold", Usage: "close it after `N` successful probes", DefaultText: fromConfig},
			&cli.DurationFlag{Name: "cooldown", Usage: "keep it open for `DURATION` before probing", DefaultText: fromConfig},
			&cli.IntFlag{Name: "cooldown-seconds", Usage: "the same, in `SECONDS`, as the Python wrapper spells it", DefaultText: fromConfig},
			&cli.StringFlag{Name: "on-skip", Usage: "do `ACTION` with a call guard skips: allow exits open_exit_code, block exits 2 (a hook that must fail closed)", DefaultText: fromConfig},
			&cli.StringFlag{Name: "fallback", Usage: "run `SHELL STRING` in place of a call guard skips, with the call's stdin: its stdout and exit status are the call's (not with --on-skip block, whose block wins)", DefaultText: fromConfig},
			// Written by guard install into hooks it moved off the Python
			// wrapper, for guard uninstall to give them back; guard run
			// ignores it.
			&cli.StringFlag{Name: "from-python", Hidden: true},
		}, stateFlags()...),
		Action:       e.run,
		OnUsageError: e.runUsageError,
	}
}

// runUsageError handles a guard run command line that does not parse. guard
// must never be the reason a hook breaks, so if the command to run can still
// be found (after "--", or in -c), it warns and runs it unguarded. It never
// exits 2, which a Claude hook would read as "block".
func (e *env) runUsageError(c *cli.Context, err error, _ bool) error {
	if argv := Salvage(e.args); argv != nil {
		// The caller's timeout still bounds the command, if it was given
		// well.
		e.hookTimeout = salvageHookTimeout(e.args)
		e.holdWarnings()
		e.warnf("%v; running the command unguarded", err)
		err := e.unguarded(argv, failOpen())
		e.releaseWarnings(err)
		return err
	}
	return usagef("%v (usage: guard run [FLAGS] -- CMD [ARG...] or guard run [FLAGS] -c 'STRING')", err)
}

func (e *env) run(c *cli.Context) error { return e.guardRun(lineFromContext(c)) }

// guardRun is guard run, given its parsed command line.
func (e *env) guardRun(l runLine) (err error) {
	begun := e.now()
	e.holdWarnings()
	defer func() { e.releaseWarnings(err) }()
	e.subscribeSignals()
	defer func() {
		if !e.exits {
			<-e.sigsReady
			signal.Stop(e.sigs)
		}
	}()

	if l.HookTimeout != nil {
		e.hookTimeout = *l.HookTimeout
	}
	argv, key, ruleKey, err := l.Target(e.getenv(circuit.ProjectVar))
	if err != nil {
		return &usageError{err: err}
	}
	if l.shellMissing {
		e.warnf("--shell %s: not found %s; %s runs the command", view.Printable(l.Shell), shellPlaces(), view.Printable(argv[0]))
	}
	e.runShell = l.Shell // found, if ever needed, by a fallback
	cfg, err := e.loadConfigFrom(l.config, l.state)
	if err != nil {
		e.warnf("%v; running %q unguarded", view.ErrorLine(err), key)
		return e.unguarded(argv, failOpen())
	}
	b, err := l.Settings(cfg, ruleKey)
	if err != nil {
		e.warnf("%v; running %q unguarded", err, key)
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
		key = circuit.ScopedKey(key, ruleKey, b.Scope, e.getenv(circuit.ProjectVar), sid)
	}
	if !b.Enabled || b.Mode == "disabled" {
		return e.passThrough(l, b, argv)
	}
	b = e.hookBudget(b)

	// From here guard may wait for a lock, and a signal must then end it
	// with 128+n (its handler in place), not kill it by default.
	<-e.sigsReady
	hooks, err := e.openHooks(cfg)
	if err != nil {
		return e.guardFailed(cfg, b, argv, key, err)
	}
	e.runHooks = hooks
	host := host(e.getenv)
	p := &circuit.Protocol{
		Circuits: hooks.Circuits, Runs: hooks.Runs,
		Live: leaseLiveness(host, hooks.Runs), Self: store.Holder{Host: host, PID: os.Getpid()},
		KillGrace: b.KillGrace,
	}
	if b.OnStateChange != "" {
		// Transitions start on_state_change, detached, once the call is
		// over: the command never waits for them.
		var n notes
		p.Moved = func(key string, c breaker.Circuit, evs []breaker.Event) { n.note(b, key, c, evs, e.now()) }
		defer e.startNotes(&n, cfg, hooks)
	}
	now := e.now()
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
	slot, err := p.Start(key, b.MaxConcurrent, b.QueueTimeout, now, deadline, e.signalled)
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
		sig := <-e.sigs
		return exit(128 + int(sig.(syscall.Signal)))
	case err != nil:
		return e.guardFailed(cfg, b, argv, key, err)
	}
	if ls, ok := slot.(store.Losing); ok {
		// A slot that can be lost (a database's row) stops the command
		// before another run may take it.
		e.losing = ls
		if given, asked := ls.Lease(); asked > 0 {
			e.warnf("guard_lease=%s is too short for a max_concurrent slot whose command gets a kill_grace of %s after a round that may take %s; %q's slot lasts %s",
				config.FormatDuration(asked), config.FormatDuration(b.KillGrace), config.FormatDuration(ls.RoundLimit()), key, config.FormatDuration(given))
		}
	}

	s := b.Settings(ruleKey)
	dec, c, err := p.Admit(key, s, now)
	var unrecorded *circuit.UnrecordedSkipError
	if errors.As(err, &unrecorded) {
		// The circuit is open, as the lock-free read showed: skipped, not
		// run unguarded, though the lock did not come (faults #4).
		e.warnf("state lock not obtained within %s; the skip of %q is not recorded", config.FormatDuration(cfg.LockTimeout), key)
		e.logGuardSkip(key, b, string(dec.Skip), fmt.Sprintf("state lock not obtained within %s: not counted", config.FormatDuration(cfg.LockTimeout)))
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
			return e.skipped(cfg, b, key, view.IntervalNotice(key, c.LastStart, b.MinInterval, e.now()))
		}
		return e.skipped(cfg, b, key, view.SkipNotice(key, dec.Skip, c, e.now()))
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
	<-e.sigsReady
	select {
	case sig := <-e.sigs:
		// Interrupted before the child started: nothing ran.
		res = supervise.Result{ExitCode: 128 + int(sig.(syscall.Signal)), Interrupted: sig}
		r = circuit.Classify(&res, b, dec)
	default:
		res, r, tries = e.runTries(argv, key, b, dec, started)
	}
	if res.TimedOut {
		// The command was stopped for running too long: its outcome is
		// recorded even if the caller's own signal comes meanwhile (Claude
		// Code's, at its timeout for the hook).
		e.recordAnyway = true
	}
	now = e.now()
	run := circuit.Run{Exit: res.ExitCode, Duration: res.Elapsed, Attempts: tries}
	if b.Retries > 0 {
		run.Of = b.Retries + 1
	}
	p.RecordWait = e.recordWait(cfg, begun)
	if err := p.Record(key, s, now, r, run); err != nil {
		if sig, ok := e.takeSignal(); ok {
			// A signal that came after the command ended, while its outcome
			// waited for the state lock: guard ends now, with the signal's
			// status, the outcome unrecorded.
			return exit(128 + int(sig))
		}
		e.warnf("could not record the outcome of %q: %v", key, view.ErrorLine(err))
	}
	return exit(e.launchFailureExit(key, b, &res))
}

// passThrough runs argv as guard does for a key it is turned off for
// (mode: disabled in the config, or guard disable): with no bookkeeping,
// but a --timeout or --hook-timeout given for this very run still holds:
// it is supervision the caller asked for, not the breaker.
func (e *env) passThrough(l runLine, b config.Breaker, argv []string) error {
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
func (e *env) sessionID() string {
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
func (e *env) launchFailureExit(key string, b config.Breaker, res *supervise.Result) int {
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
// reads its config and state; the child starts once it is done. In the
// guard process itself it was started before main (see earlysig).
func (e *env) subscribeSignals() {
	if e.sigs != nil {
		return
	}
	if e.exits {
		earlysig.Start()
		e.sigs, e.sigsReady = earlysig.Get()
		return
	}
	e.sigs, e.sigsReady = earlysig.Subscribe()
}

// signalled reports, without taking it, whether a signal guard passes on
// has arrived.
func (e *env) signalled() bool {
	if e.recordAnyway {
		return false
	}
	select {
	case <-e.sigsReady:
		return len(e.sigs) > 0
	default:
		return false
	}
}

// takeSignal takes a signal guard passes on that has arrived, if any.
func (e *env) takeSignal() (syscall.Signal, bool) {
	if !e.signalled() {
		return 0, false
	}
	select {
	case sig := <-e.sigs:
		return sig.(syscall.Signal), true
	default:
		return 0, false
	}
}

// rejected reports a call that found every concurrency slot of its key
// taken, counts it, and exits as a skip does.
func (e *env) rejected(cfg *config.Config, b config.Breaker, p *circuit.Protocol, key string) error {
	runs := "runs are"
	if b.MaxConcurrent == 1 {
		runs = "run is"
	}
	why := fmt.Sprintf("%d %s in flight (max_concurrent: %d) and none ended within %s",
		b.MaxConcurrent, runs, b.MaxConcurrent, config.FormatDuration(b.QueueTimeout))
	if err := p.Reject(key, e.now(), why, b.OnSkip == "block"); err != nil {
		e.warnf("could not record the rejection of %q: %v", key, view.ErrorLine(err))
	}
	e.skipWhy = "max_concurrent"
	return e.skipped(cfg, b, key, view.RejectedNotice(key, why))
}

// supervise runs argv under b's timeout, reporting a command that could not
// be started the way a shell would. started, if set, gets the child's PID.
func (e *env) supervise(argv []string, key string, b config.Breaker, started func(int)) supervise.Result {
	return e.superviseStreams(argv, key, b, started, e.stdin, e.stdout, e.stderr)
}

// superviseStreams is supervise, with the child's stdin and stdout and a
// writer for its stderr given (a try of retries, held back; the output
// kept for ignore_output).
func (e *env) superviseStreams(argv []string, key string, b config.Breaker, started func(int), stdin io.Reader, stdout, stderr io.Writer) supervise.Result {
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
		Signals:        e.sigs,
		Stop:           e.losingStop(),
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
func (e *env) notef(format string, args ...any) {
	var w io.Writer = e.stderr
	if e.heldWarnings != nil {
		w = e.heldWarnings
	}
	fmt.Fprintf(w, format+"\n", args...)
}

// unguarded runs argv without touching any state: guard's fail-open path,
// and what a disabled breaker does.
func (e *env) unguarded(argv []string, b config.Breaker) error {
	// Unguarded, the command still ends within its caller's timeout
	// (--hook-timeout): guard's lifetime is the hook's.
	b = e.hookBudget(b)
	if e.sigsReady != nil {
		<-e.sigsReady
	}
	return exit(e.supervise(argv, circuit.CommandKey(argv), b, nil).ExitCode)
}

// losingStop is the channel that tells supervise to stop the command
// because its slot is being lost (store.Losing), or nil.
func (e *env) losingStop() <-chan struct{} {
	if e.losing == nil {
		return nil
	}
	return e.losing.Lost()
}

// leaseLiveness is liveness(host), except that a probe's lease whose guard
// is gone but whose command still runs (listed among runs as orphaned:
// where a command does not die with guard) is alive: the probe is still
// going on, and no other may start until it ends.
func leaseLiveness(host string, runs store.Runs) store.Liveness {
	l := liveness(host)
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
func (e *env) hookBudget(b config.Breaker) config.Breaker {
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
func (e *env) recordWait(cfg *config.Config, begun time.Time) time.Duration {
	wait := cfg.RecordTimeout
	if e.hookTimeout > 0 {
		left := begun.Add(e.hookTimeout - supervise.HookMargin(e.hookTimeout)/4).Sub(e.now())
		wait = min(wait, max(left, time.Millisecond))
	}
	return wait
}

// logGuardSkip logs a skip guard decided without the state's lock (on
// its own failure under failure_mode: closed, or on an open circuit the
// lock-free read showed), with its reason and verdict, where the event
// log takes an event without the state (store.Appender); that may fail
// for the reason the state did, and then the warning is all there is.
func (e *env) logGuardSkip(key string, b config.Breaker, reason, why string) {
	if e.runHooks == nil {
		return
	}
	if a, ok := e.runHooks.Events.(store.Appender); ok {
		a.Append(store.Event{Time: e.now(), Event: store.EventSkip, Key: key, Reason: reason,
			Verdict: store.VerdictOf(b.OnSkip == "block"), Error: why})
	}
}

// guardFailed handles guard's own failure before the child ran: by default
// it runs the child anyway; with failure_mode: closed it skips it.
func (e *env) guardFailed(cfg *config.Config, b config.Breaker, argv []string, key string, err error) error {
	if sig, ok := e.takeSignal(); ok {
		// A signal while guard read or waited for the state (its lock, say)
		// ends guard at once, and nothing runs.
		return exit(128 + int(sig))
	}
	why := view.ErrorLine(err)
	if errors.Is(err, store.ErrBusy) {
		why = fmt.Sprintf("state lock not obtained within %s", config.FormatDuration(cfg.LockTimeout))
	}
	if cfg.FailureMode == "closed" {
		e.logGuardSkip(key, b, store.SkipFailureMode, why)
		if b.OnSkip == "block" {
			return e.block(fmt.Sprintf("guard: skipped %s: %s, and failure_mode is closed; fix that ('guard doctor' checks the state), or set failure_mode: open to run hooks when guard cannot decide", circuit.KeyWord(key), why))
		}
		if b.Fallback != "" {
			e.skipWhy = store.SkipFailureMode
			return e.fallback(cfg, b, key, fmt.Sprintf("guard: skipped %s: %s, and failure_mode is closed", circuit.KeyWord(key), why))
		}
		e.warnf("%s; skipping %q (failure_mode: closed)", why, key)
		return exit(e.skipExit(cfg, b))
	}
	e.warnf("%s; running %q unguarded", why, key)
	return e.unguarded(argv, b)
}
