package cli

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/urfave/cli/v2"

	"guard/backend"
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
		Description: `Runs CMD directly (or /bin/sh -c STRING with -c) and records the outcome in
the state file under the command's key. While the circuit is open the command
is skipped: guard prints a one-line notice and exits with open_exit_code (0).
Otherwise guard exits with the command's own status (128+n if signal n killed
it, 127 if it was not found, 126 if it could not be executed, 124 on timeout).
stdin, stdout and stderr pass through unchanged.

Exit statuses in success_exit_codes ([0]) are successes, those in
ignore_exit_codes ([2], a Claude hook's "block") count as neither, and all
else is a failure. If guard itself fails (unreadable state, lock timeout,
bad config), it warns and runs the command anyway.

The key is --name if given, else the -c string, else the arguments joined by
spaces with shell quoting where needed. A command that refers to
$CLAUDE_PROJECT_DIR has one circuit per project: "COMMAND @ PROJECT".

Examples:
   guard run -- python3 lint.py
   guard run -c 'npx prettier --check . && npx eslint .'
   guard run --name lint --timeout 30s -- make lint
   guard run --failure-threshold 5 --cooldown 1m -- ./flaky-check.sh`,
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "command", Aliases: []string{"c"}, Usage: "run `STRING` with /bin/sh -c, as Claude Code runs hooks"},
			&cli.StringFlag{Name: "name", Usage: "keep state under `KEY` instead of the command line"},
			&cli.DurationFlag{Name: "timeout", Usage: "stop the command after `DURATION`: SIGTERM, then SIGKILL after kill_grace; exit 124", DefaultText: fromConfig},
			&cli.IntFlag{Name: "failure-threshold", Usage: "open the circuit after `N` failures", DefaultText: fromConfig},
			&cli.IntFlag{Name: "success-threshold", Usage: "close it after `N` successful probes", DefaultText: fromConfig},
			&cli.DurationFlag{Name: "cooldown", Usage: "keep it open for `DURATION` before probing", DefaultText: fromConfig},
			&cli.IntFlag{Name: "cooldown-seconds", Usage: "the same, in `SECONDS`, as the Python wrapper spells it", DefaultText: fromConfig},
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
		e.holdWarnings()
		e.warnf("%v; running the command unguarded", err)
		err := e.unguarded(argv, config.Breaker{})
		e.releaseWarnings(err)
		return err
	}
	return &exitError{code: 1, err: fmt.Errorf("%v (usage: guard run [FLAGS] -- CMD [ARG...] or guard run [FLAGS] -c 'STRING')", err)}
}

func (e *env) run(c *cli.Context) error { return e.guardRun(lineFromContext(c)) }

// guardRun is guard run, given its parsed command line.
func (e *env) guardRun(l runLine) (err error) {
	e.holdWarnings()
	defer func() { e.releaseWarnings(err) }()
	e.subscribeSignals()
	defer func() {
		if !e.exits {
			<-e.sigsReady
			signal.Stop(e.sigs)
		}
	}()

	argv, key, ruleKey, err := l.Target(e.getenv(circuit.ProjectVar))
	if err != nil {
		return &exitError{code: 1, err: err}
	}
	cfg, err := e.loadConfigFrom(l.config, l.state)
	if err != nil {
		e.warnf("%v; running %q unguarded", view.ErrorLine(err), key)
		return e.unguarded(argv, config.Breaker{})
	}
	b, err := l.Settings(cfg, ruleKey)
	if err != nil {
		e.warnf("%v; running %q unguarded", err, key)
		return e.unguarded(argv, config.Breaker{})
	}
	if b.Scope != circuit.ScopeAuto && b.Scope != "" {
		sid := ""
		if b.Scope == circuit.ScopeSession {
			sid = e.sessionID()
		}
		key = circuit.ScopedKey(key, ruleKey, b.Scope, e.getenv(circuit.ProjectVar), sid)
	}
	if !b.Enabled || b.Mode == "disabled" {
		// A pass-through, but a --timeout given for this very run still
		// holds: it is supervision the caller asked for, not the breaker.
		var only config.Breaker
		if l.Timeout != nil {
			only.Timeout, only.KillGrace = b.Timeout, b.KillGrace
		}
		return e.unguarded(argv, only)
	}

	hooks, err := e.openHooks(cfg)
	if err != nil {
		return e.guardFailed(cfg, b, argv, key, err)
	}
	host := backend.Host(e.getenv)
	p := &circuit.Protocol{
		Circuits: hooks.Circuits, Runs: hooks.Runs,
		Live: backend.Liveness(host), Self: store.Holder{Host: host, PID: os.Getpid()},
	}
	now := e.now()
	var deadline time.Time
	if b.Timeout > 0 {
		deadline = now.Add(b.Timeout)
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

	s := b.Settings(ruleKey)
	dec, c, err := p.Admit(key, s, now)
	if err != nil {
		return e.guardFailed(cfg, b, argv, key, err)
	}
	if !dec.Run && !s.Observe {
		return e.skipped(cfg, b, key, view.SkipNotice(key, dec.Skip, c, e.now()))
	}
	// In observe mode a call the circuit skips runs anyway: the skip is
	// logged as one it would have made, and the run, not a probe, does not
	// move the circuit, which goes on as it would have.
	started := func(pid int) { slot.Started(pid) }
	if slot == nil {
		// An unlimited key registers its run only so that 'guard status'
		// can show it, once the child has started: that work then goes on
		// while the child runs. A failure is not worth a warning.
		started = func(pid int) { slot = p.Register(key, now, deadline, pid) }
	}

	var res supervise.Result
	<-e.sigsReady
	select {
	case sig := <-e.sigs:
		// Interrupted before the child started: nothing ran.
		res = supervise.Result{ExitCode: 128 + int(sig.(syscall.Signal)), Interrupted: sig}
	default:
		res = e.supervise(argv, key, b, started)
	}
	now = e.now()
	r := circuit.Classify(&res, b, dec)
	if err := p.Record(key, s, now, r, circuit.Run{Exit: res.ExitCode, Duration: res.Elapsed}); err != nil {
		e.warnf("could not record the outcome of %q: %v", key, view.ErrorLine(err))
	}
	return exit(e.launchFailureExit(key, b, &res))
}

// maxPayload is how much of its stdin guard reads for a hook payload's
// session_id; the child gets all of it either way.
const maxPayload = 4 << 20

// sessionID reads the Claude Code hook payload on stdin for its session_id,
// and hands the child the very same bytes: those read, then the rest. A
// terminal is not read; a payload that is not JSON, is longer than
// maxPayload or has no session_id gives "".
func (e *env) sessionID() string {
	if e.stdin == nil || supervise.IsTerminal(e.stdin) {
		return ""
	}
	buf, _ := io.ReadAll(io.LimitReader(e.stdin, maxPayload))
	e.stdin = io.MultiReader(bytes.NewReader(buf), e.stdin)
	return circuit.SessionID(buf)
}

// launchFailureExit is the status guard run exits with: the command's,
// except that a command that exited 2 only because it could not start
// exits launch_failure_exit (1), with a notice: Claude Code takes a hook's
// 2 for a deliberate block, and a hook whose script is missing would block
// every tool call.
func (e *env) launchFailureExit(key string, b config.Breaker, res *supervise.Result) int {
	if res.ExitCode != 2 || b.LaunchFailureExit == 2 {
		return res.ExitCode
	}
	line := res.LaunchFailure()
	if line == "" {
		return res.ExitCode
	}
	fmt.Fprintf(e.stderr, "guard: %s did not start (%s): recorded as a failure; exit %d instead of 2, so that Claude Code does not take it for a block (launch_failure_exit)\n",
		view.Truncate(view.Printable(key), 80), view.Truncate(view.Printable(line), 160), b.LaunchFailureExit)
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
	select {
	case <-e.sigsReady:
		return len(e.sigs) > 0
	default:
		return false
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
	if err := p.Reject(key, e.now(), why); err != nil {
		e.warnf("could not record the rejection of %q: %v", key, view.ErrorLine(err))
	}
	return e.skipped(cfg, b, key, view.RejectedNotice(key, why))
}

// supervise runs argv under b's timeout, reporting a command that could not
// be started the way a shell would. started, if set, gets the child's PID.
func (e *env) supervise(argv []string, key string, b config.Breaker, started func(int)) supervise.Result {
	res := supervise.Run(supervise.Spec{
		Argv:           argv,
		Stdin:          e.stdin,
		Stdout:         e.stdout,
		Stderr:         e.stderr,
		Timeout:        b.Timeout,
		KillGrace:      b.KillGrace,
		KillBackground: b.KillBackground,
		Started:        started,
		Signals:        e.sigs,
	})
	if res.Background != "" {
		fmt.Fprintf(e.stderr, "guard: %q left processes running when it exited; kill_background ended them (%s)\n", key, res.Background)
	}
	if !res.Ran() {
		fmt.Fprintf(e.stderr, "guard: %s\n", view.Printable(res.StartErr.Error()))
	}
	if res.TimedOut {
		fmt.Fprintf(e.stderr, "guard: %q ran longer than its timeout of %s and was stopped\n", key, config.FormatDuration(b.Timeout))
	}
	return res
}

// unguarded runs argv without touching any state: guard's fail-open path,
// and what a disabled breaker does.
func (e *env) unguarded(argv []string, b config.Breaker) error {
	if e.sigsReady != nil {
		<-e.sigsReady
	}
	return exit(e.supervise(argv, circuit.CommandKey(argv), b, nil).ExitCode)
}

// guardFailed handles guard's own failure before the child ran: by default
// it runs the child anyway; with failure_mode: closed it skips it.
func (e *env) guardFailed(cfg *config.Config, b config.Breaker, argv []string, key string, err error) error {
	why := view.ErrorLine(err)
	if errors.Is(err, store.ErrBusy) {
		why = fmt.Sprintf("state lock not obtained within %s", config.FormatDuration(cfg.LockTimeout))
	}
	if cfg.FailureMode == "closed" {
		e.warnf("%s; skipping %q (failure_mode: closed)", why, key)
		return exit(b.OpenExitCode)
	}
	e.warnf("%s; running %q unguarded", why, key)
	return e.unguarded(argv, b)
}
