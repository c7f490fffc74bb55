package cli

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"guard/breaker"
	"guard/cmd/guard/guardrun"
	"guard/internal/notify"
	"guard/internal/store"
	"guard/internal/supervise"
)

func (e *env) notifyCommand() *cli.Command {
	return &cli.Command{
		Name:      guardrun.NotifyCommand,
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
		return usagef("%s takes a COMMAND, and TRANSITIONs as arguments or on stdin", guardrun.NotifyCommand)
	}
	command := args[0]
	var ts []notify.Transition
	for _, a := range args[1:] {
		t, err := notify.Decode(a)
		if err != nil {
			return &guardrun.UsageError{Err: err}
		}
		ts = append(ts, t)
	}
	if len(args) == 1 {
		// From guard: the transitions on stdin, read first, so that the
		// guard that hands them over is not kept waiting.
		if e.Stdin == nil || supervise.IsTerminal(e.Stdin) {
			return usagef("%s takes TRANSITIONs as arguments, or on stdin (not a terminal)", guardrun.NotifyCommand)
		}
		var err error
		if ts, _, err = notify.ReadAll(e.Stdin); err != nil && len(ts) == 0 {
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
		if hooks, err := store.OpenHooks(cfg, store.Options{Host: guardrun.Host(e.Getenv)}); err == nil {
			log, _ = hooks.Events.(store.Appender)
		}
	}
	for _, t := range ts {
		res := supervise.Run(supervise.Spec{
			Argv:      []string{guardrun.SystemShell(), "-c", command}, // as guard run -c runs a string
			Env:       append(e.Environ(), t.Env()...),
			Stdin:     strings.NewReader(""),
			Stdout:    io.Discard,
			Stderr:    io.Discard,
			Timeout:   timeout,
			KillGrace: notifyKillGrace,
		})
		ev := store.Event{Time: e.Now(), Event: store.EventNotify, Key: t.Key, From: t.From, To: t.To, Reason: t.Reason,
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
