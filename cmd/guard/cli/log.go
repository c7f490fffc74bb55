package cli

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"guard/cmd/guard/guardrun"
	"guard/internal/store"
	"guard/internal/view"
)

func (e *env) logCommand() *cli.Command {
	return &cli.Command{
		Name:  "log",
		Usage: "show the event log: every run, skip, transition, reset, trip and cooldown decision",
		Description: `Reads the event log (logging.event_log, or hook_state.events.jsonl beside the
hook state file and cooldown.events.jsonl beside the cooldown file; the
guard_events table of a state in PostgreSQL), across its
rotated files, in time order, and prints the events that pass the filters.
--limit keeps the most recent N of them, after --offset has skipped the most
recent M (so --limit 20 --offset 20 is the page before the last 20).
--json prints each event as the JSON line it was written as. Lines that do
not parse are skipped, and guard says how many.

Each line has time (RFC 3339) and ts_ms (Unix milliseconds), event (run,
skip, transition, reaped, rejected, reset, trip, probe, disable, enable,
retry, fallback, notify, quarantine, import, cooldown, cooldown_record,
cooldown_health, mark) and, as they apply, key, action, outcome, exit,
duration_ms, error, probe, from, to, reason, verdict, state, until, used,
limit, pid, file, host and user (who gave guard disable or enable). A skip or rejected event (a
call guard did not run) has verdict "blocked" (on_skip: block: the action was
blocked) or "allowed" (guard did not block it), and the text says which: "skipped,
action blocked: circuit open until ...". The fallback event of a call whose
fallback ran in its place has the call's final verdict: "blocked" when the
fallback exited 2.

Examples:
   guard log --key "python3 lint.py" --since 1h
   guard log --event transition --since 2026-11-21T14:00:00Z --until 2026-11-21T14:05:00Z
   guard log --key '*lint*' --limit 20
   guard log --event 'cooldown*' --json | jq -r .outcome
   guard log --event skip --json | jq -r 'select(.verdict == "blocked") | .key'`,
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "key", Usage: "only events of `KEY` (exact, or a glob such as '*lint*'); a cooldown event's key is its service"},
			&cli.StringFlag{Name: "event", Usage: "only events named `NAME` (exact, or a glob such as 'cooldown*')"},
			&cli.StringFlag{Name: "since", Usage: "only events at or after `WHEN`: a duration ago (1h) or an RFC 3339 time"},
			&cli.StringFlag{Name: "until", Usage: "only events before `WHEN`: a duration ago (10m) or an RFC 3339 time"},
			&cli.IntFlag{Name: "limit", Usage: "show at most the `N` most recent events (0: all)"},
			&cli.IntFlag{Name: "offset", Usage: "skip the `N` most recent events first"},
			&cli.BoolFlag{Name: "json", Usage: "print JSON Lines"},
		}, stateFlags()...),
		Action: e.log,
	}
}

func (e *env) log(c *cli.Context) error {
	if c.NArg() > 0 {
		return usagef("log takes no arguments; use --key to pick a key")
	}
	limit, offset := c.Int("limit"), c.Int("offset")
	if limit < 0 || offset < 0 {
		return usagef("--limit and --offset must not be negative")
	}
	q, err := view.EventQuery(c.String("key"), c.String("event"), c.String("since"), c.String("until"), limit, offset, e.Now())
	if err != nil {
		return &guardrun.UsageError{Err: err}
	}
	cfg, err := e.loadConfig(c)
	if err != nil {
		return err
	}
	events, err := store.AllEvents(cfg)
	err = e.Handoff(err)
	if err != nil {
		return err
	}
	res, err := store.Select(events, q)
	if err != nil {
		return err
	}
	if res.Malformed > 0 {
		e.Warnf("skipped %d malformed lines in the event log", res.Malformed)
	}
	evs := res.Events
	if c.Bool("json") {
		for _, ev := range evs {
			fmt.Fprintf(e.Stdout, "%s\n", view.JSONSafe(string(ev.Raw)))
		}
		return nil
	}
	view.WriteEvents(e.Stdout, evs)
	return nil
}
