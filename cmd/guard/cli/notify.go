package cli

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"guard/breaker"
	"guard/config"
	"guard/internal/circuit"
	"guard/internal/notify"
	"guard/internal/store"
	"guard/internal/supervise"
	"guard/internal/view"
)

// notifyCommandName is the hidden command that runs on_state_change
// commands, detached from the guard that saw the transitions.
const notifyCommandName = "notify-state-change"

func (e *env) notifyCommand() *cli.Command {
	return &cli.Command{
		Name:      notifyCommandName,
		Hidden:    true,
		Usage:     "run an on_state_change command for transitions (guard starts it itself)",
		ArgsUsage: "-- COMMAND [TRANSITION...]",
		Description: `guard starts this, detached, when a circuit changes state and its key has an
on_state_change command: it runs COMMAND with the shell once per TRANSITION (a
JSON object), in order, with GUARD_KEY, GUARD_FROM, GUARD_TO, GUARD_REASON,
GUARD_TIME and GUARD_UNTIL set, each run stopped after --timeout, and logs a
notify event for each, with its outcome. Without TRANSITION arguments it reads
them from stdin, one a line: guard hands them over that way, since a command
line cannot hold a flood of them (a reset --all of thousands of keys).

Example (what guard starts; run by hand, it tries a command out):
   guard notify-state-change --timeout 10s -- 'echo "$GUARD_KEY: $GUARD_FROM -> $GUARD_TO"' \
     '{"key":"lint","from":"closed","to":"open","reason":"3 consecutive failures","time":"2026-11-28T04:00:00Z"}'`,
		Flags: append([]cli.Flag{
			&cli.DurationFlag{Name: "timeout", Value: 30 * time.Second, Usage: "stop each run after `DURATION`"},
		}, stateFlags()...),
		Action: e.notifyStateChange,
	}
}

// notifyKillGrace is how long a run of on_state_change that overran its
// timeout has between SIGTERM and SIGKILL.
const notifyKillGrace = 2 * time.Second

func (e *env) notifyStateChange(c *cli.Context) error {
	args := c.Args().Slice()
	if len(args) < 1 {
		return usagef("%s takes a COMMAND, and TRANSITIONs as arguments or on stdin", notifyCommandName)
	}
	command := args[0]
	var ts []notify.Transition
	for _, a := range args[1:] {
		t, err := notify.Decode(a)
		if err != nil {
			return &usageError{err: err}
		}
		ts = append(ts, t)
	}
	if len(args) == 1 {
		// From guard: the transitions on stdin, read first, so that the
		// guard that hands them over is not kept waiting.
		if e.stdin == nil || supervise.IsTerminal(e.stdin) {
			return usagef("%s takes TRANSITIONs as arguments, or on stdin (not a terminal)", notifyCommandName)
		}
		var err error
		if ts, _, err = notify.ReadAll(e.stdin); err != nil && len(ts) == 0 {
			return fmt.Errorf("reading the transitions: %w", err)
		}
	}
	timeout := c.Duration("timeout")
	if timeout <= 0 {
		return usagef("--timeout must be longer than 0s")
	}
	// Where to log: the state's event log. If it cannot be opened the
	// command still runs; there is then nowhere to say how it went.
	var log store.Appender
	if cfg, err := e.loadConfig(c); err == nil {
		if hooks, err := store.OpenHooks(cfg, store.Options{Host: host(e.getenv)}); err == nil {
			log, _ = hooks.Events.(store.Appender)
		}
	}
	for _, t := range ts {
		res := supervise.Run(supervise.Spec{
			Argv:      []string{systemShell(), "-c", command}, // as guard run -c runs a string
			Env:       append(e.environ(), t.Env()...),
			Stdin:     strings.NewReader(""),
			Stdout:    io.Discard,
			Stderr:    io.Discard,
			Timeout:   timeout,
			KillGrace: notifyKillGrace,
		})
		ev := store.Event{Time: e.now(), Event: store.EventNotify, Key: t.Key, From: t.From, To: t.To, Reason: t.Reason,
			Outcome: string(breaker.Success), Exit: store.Int(res.ExitCode), DurationMS: store.Int64(res.Elapsed.Milliseconds())}
		if res.ExitCode != 0 || !res.Ran() || res.TimedOut || res.Signal != 0 {
			ev.Outcome = string(breaker.Failure)
			ev.Error = res.Describe(timeout)
		}
		if log != nil {
			_ = log.Append(ev)
		}
	}
	return nil
}

// A notes gathers the transitions a command made, for the on_state_change
// commands of their keys: started once the state that holds them is
// written, all at once, one helper per command so that each sees its
// transitions in order.
type notes struct {
	order []noteCommand
	ts    map[noteCommand][]notify.Transition
}

// A noteCommand is an on_state_change command with its timeout.
type noteCommand struct {
	command string
	timeout time.Duration
}

// note adds the transitions among evs of key's circuit (now c), for b's
// on_state_change. A transition to the state it came from (a reset of a
// closed circuit) is none.
func (n *notes) note(b config.Breaker, key string, c breaker.Circuit, evs []breaker.Event, now time.Time) {
	if b.OnStateChange == "" {
		return
	}
	nc := noteCommand{b.OnStateChange, b.OnStateChangeTimeout}
	for _, ev := range evs {
		if ev.Kind != breaker.Transition || ev.From == ev.To {
			continue
		}
		t := notify.Transition{Key: key, From: string(ev.From), To: string(ev.To), Reason: ev.Reason, Time: now}
		if ev.To == breaker.Open && !c.RetryAfter.IsZero() {
			t.Until = store.Stamp(c.RetryAfter)
		}
		if n.ts == nil {
			n.ts = map[noteCommand][]notify.Transition{}
		}
		if _, ok := n.ts[nc]; !ok {
			n.order = append(n.order, nc)
		}
		n.ts[nc] = append(n.ts[nc], t)
	}
}

// noteFor is note, with the settings of key from cfg.
func (n *notes) noteFor(cfg *config.Config, key string, c breaker.Circuit, evs []breaker.Event, now time.Time) {
	if cfg == nil {
		return
	}
	n.note(cfg.For(circuit.RuleKey(key)), key, c, evs, now)
}

// startNotes starts the helpers for the transitions n gathered, detached,
// and forgets them. The helper is this very program (guard, guard-pg or
// guard-web, whichever reads the state), told where the state is: the
// config file this command read, and its state location (GUARD_STATE,
// which the command sees too). A helper that
// cannot be started is a warning and an event, never the call's failure.
func (e *env) startNotes(n *notes, cfg *config.Config, hooks *store.Hooks) {
	if n == nil || len(n.order) == 0 || cfg == nil {
		return
	}
	name := "guard"
	if len(e.args) > 0 && e.args[0] != "" {
		name = e.args[0]
	}
	// The state goes in the environment, not on the command line, where
	// anyone may read a database URL's password.
	env := append(e.environ(), "GUARD_STATE="+cfg.StateFile)
	for _, nc := range n.order {
		args := []string{name, notifyCommandName, "--timeout", nc.timeout.String()}
		if cfg.Source != "" && cfg.Source != config.Default("").Source && cfg.Source != config.StdinSource {
			args = append(args, "--config", cfg.Source)
		}
		args = append(args, "--", nc.command)
		ts := n.ts[nc]
		err := notify.Start(notify.Helper{Args: args, Env: env}, ts) // the transitions go on its stdin
		if err == nil {
			continue
		}
		e.warnf("on_state_change for %s not run: %v", circuit.KeyWord(ts[0].Key), view.ErrorLine(err))
		if hooks == nil {
			continue
		}
		if a, ok := hooks.Events.(store.Appender); ok {
			for _, t := range ts {
				_ = a.Append(store.Event{Time: e.now(), Event: store.EventNotify, Key: t.Key, From: t.From, To: t.To, Reason: t.Reason,
					Outcome: string(breaker.Failure), Error: fmt.Sprintf("not started: %v", err)})
			}
		}
	}
	n.order, n.ts = nil, nil
}
