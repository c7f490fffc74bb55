package main

import (
	"fmt"
	"time"

	"github.com/urfave/cli/v2"

	"guard/backend"
	"guard/config"
	"guard/eventlog"
	"guard/statefile"
	"guard/view"
)

func (e *env) logCommand() *cli.Command {
	return &cli.Command{
		Name:  "log",
		Usage: "show the event log: every run, skip, transition, reset, trip and cooldown decision",
		Description: `Reads the event log (logging.file, or hook_state.events.jsonl beside the hook
state file and cooldown.events.jsonl beside the cooldown file), across its
rotated files, in time order, and prints the events that pass the filters.
--limit keeps the most recent N of them, after --offset has skipped the most
recent M (so --limit 20 --offset 20 is the page before the last 20).
--json prints each event as the JSON line it was written as. Lines that do
not parse are skipped, and guard says how many.

Each line has time (RFC 3339) and ts_ms (Unix milliseconds), event (run,
skip, transition, reaped, rejected, reset, trip, probe, quarantine, import,
cooldown, cooldown_record, cooldown_health, mark) and, as they apply, key,
action, outcome, exit, duration_ms, error, probe, from, to, reason, state,
until, used, limit, pid and file.

Examples:
   guard log --key "python3 lint.py" --since 1h
   guard log --event transition --since 2026-11-21T14:00:00Z --until 2026-11-21T14:05:00Z
   guard log --key '*lint*' --limit 20
   guard log --event 'cooldown*' --json | jq -r .outcome`,
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

// matcher returns a test for an exact name or a glob.
func matcher(flag, pattern string) (func(string) bool, error) {
	if pattern == "" {
		return func(string) bool { return true }, nil
	}
	if !config.IsGlob(pattern) {
		return func(s string) bool { return s == pattern }, nil
	}
	re, err := config.Glob(pattern)
	if err != nil {
		return nil, usagef("--%s: %v", flag, err)
	}
	return re.MatchString, nil
}

// when parses a --since or --until value.
func when(flag, v string, now time.Time) (time.Time, error) {
	if v == "" {
		return time.Time{}, nil
	}
	if d, err := config.ParseDuration(v); err == nil {
		return now.Add(-d), nil
	}
	if t, err := statefile.ParseTime(v); err == nil {
		return t, nil
	}
	return time.Time{}, usagef("--%s %q is neither a duration (1h) nor an RFC 3339 time", flag, v)
}

func (e *env) log(c *cli.Context) error {
	if c.NArg() > 0 {
		return usagef("log takes no arguments; use --key to pick a key")
	}
	now := e.now()
	keyOK, err := matcher("key", c.String("key"))
	if err != nil {
		return err
	}
	eventOK, err := matcher("event", c.String("event"))
	if err != nil {
		return err
	}
	since, err := when("since", c.String("since"), now)
	if err != nil {
		return err
	}
	until, err := when("until", c.String("until"), now)
	if err != nil {
		return err
	}
	limit, offset := c.Int("limit"), c.Int("offset")
	if limit < 0 || offset < 0 {
		return usagef("--limit and --offset must not be negative")
	}
	cfg, err := e.loadConfig(c)
	if err != nil {
		return err
	}
	res, err := backend.AllEvents(cfg).Read(func(ev *eventlog.Event) bool {
		return keyOK(ev.Key) && eventOK(ev.Event) &&
			(since.IsZero() || !ev.Time.Before(since)) && (until.IsZero() || ev.Time.Before(until))
	})
	if err != nil {
		return err
	}
	if res.Malformed > 0 {
		e.warnf("skipped %d malformed lines in the event log", res.Malformed)
	}
	evs := res.Events
	evs = evs[:max(len(evs)-offset, 0)]
	if limit > 0 && len(evs) > limit {
		evs = evs[len(evs)-limit:]
	}
	if c.Bool("json") {
		for _, ev := range evs {
			fmt.Fprintf(e.stdout, "%s\n", ev.Raw)
		}
		return nil
	}
	view.WriteEvents(e.stdout, evs)
	return nil
}
