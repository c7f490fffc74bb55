package cli

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/urfave/cli/v2"

	"guard/backend"
	"guard/config"
	"guard/internal/circuit"
	"guard/internal/store"
	"guard/internal/supervise"
	"guard/internal/view"
)

func (e *env) statusCommand() *cli.Command {
	return &cli.Command{
		Name:      "status",
		Usage:     "show each key's circuit: state, failures, last error, next try",
		ArgsUsage: "[KEY...]",
		Description: `Prints one line per key (all keys, or the ones named): open circuits first,
then half-open, then closed, then the runs in flight. It reads the state file
without taking the lock. Keys longer than 48 characters are shortened in the
middle unless --wide is given; states are coloured on a terminal unless
NO_COLOR is set.

The P50/P95 column is how long the key's runs took (median and 95th
percentile), over the runs the event log holds; "guard report --slowest 5"
lists the slowest hooks.

A hook that refers to $CLAUDE_PROJECT_DIR has one circuit per project: its
key is "COMMAND @ PROJECT", and the table shows the project in a column.

--json prints an array of objects, one per key, with: key, project (for a
per-project key), state ("closed",
"open" or "half_open"), failure_count, consecutive_failures,
consecutive_successes, last_error, first_failure, last_failure, last_success,
disabled_at, retry_after (RFC 3339 or null), forced, open_reason,
reopen_count, probe_leases ([{pid, acquired, expires, alive}]), running (the
runs in flight: [{pid, child_pid, started, elapsed_ms, deadline,
remaining_ms}]), last_run, totals ({successes, failures, ignored,
cancelled, abandoned, skips, rejected}) and duration_ms ({count, p50, p95,
max} of its runs in the event log, or null).

--watch redraws the table every second (--interval), with the runs in
flight, until interrupted: in place on a terminal, without flicker; elsewhere
(a pipe, a file) each snapshot is appended after a "--- TIME" line.

Examples:
   guard status
   guard status --watch --interval 2s
   guard status "python3 lint.py"
   guard status --json | jq '.[] | select(.state != "closed") | .key'`,
		Flags: append([]cli.Flag{
			&cli.BoolFlag{Name: "json", Usage: "print JSON"},
			&cli.BoolFlag{Name: "wide", Usage: "show long keys whole instead of shortened in the middle"},
			&cli.BoolFlag{Name: "watch", Aliases: []string{"w"}, Usage: "redraw the table every --interval until interrupted"},
			&cli.DurationFlag{Name: "interval", Value: time.Second, Usage: "how often --watch redraws"},
			&cli.IntFlag{Name: "count", Usage: "with --watch, stop after `N` snapshots (0: never)"},
		}, stateFlags()...),
		Action:       e.status,
		BashComplete: e.completeKeys,
	}
}

// warnAside warns of the entries of doc that do not check out; the next
// update of the state sets them aside.
func (e *env) warnAside(v store.CircuitView) {
	for _, a := range v.Aside() {
		e.warnf("the state of %q is malformed (%s) and is left out; the next guard run sets it aside", a.Key, view.ErrorLine(a.Err))
	}
}

// inFlight lists the runs in flight, and the liveness that checked them.
func (e *env) inFlight(hooks *backend.Hooks) ([]store.Run, func(store.Holder) bool) {
	alive := backend.Liveness(backend.Host(e.getenv)).Alive
	runs, _ := hooks.Runs.List(alive)
	return runs, alive
}

func (e *env) status(c *cli.Context) error {
	if !c.Bool("watch") {
		if c.IsSet("interval") || c.IsSet("count") {
			return usagef("--interval and --count go with --watch")
		}
		return e.statusOnce(c, e.stdout)
	}
	if c.Bool("json") {
		return usagef("--watch draws the table; for JSON, run guard status --json in a loop")
	}
	interval, count := c.Duration("interval"), c.Int("count")
	if interval < 100*time.Millisecond {
		return usagef("--interval must be at least 100ms, got %s", interval)
	}
	if count < 0 {
		return usagef("--count must not be negative, got %d", count)
	}
	stop := make(chan os.Signal, 1)
	if e.exits {
		signal.Notify(stop, os.Interrupt, syscall.SIGTERM)
		defer signal.Stop(stop)
	}
	e.warned = map[string]bool{}
	term := supervise.IsTerminal(e.stdout) && e.getenv("TERM") != "dumb"
	var buf bytes.Buffer
	for i := 0; count == 0 || i < count; i++ {
		if i > 0 {
			select {
			case <-stop:
				return nil
			case <-time.After(interval):
			}
		}
		buf.Reset()
		if err := e.statusOnce(c, &buf); err != nil {
			return err
		}
		if term {
			e.stdout.Write(frame(buf.String(), i == 0, interval))
			continue
		}
		fmt.Fprintf(e.stdout, "--- %s\n", e.now().UTC().Format(time.RFC3339))
		e.stdout.Write(buf.Bytes())
		fmt.Fprintln(e.stdout)
	}
	return nil
}

// frame is one redraw of --watch on a terminal: in place, in one write:
// home, each line over the old one (cleared to its end), then clear what
// is left below. There is no blank frame between two, so no flicker; only
// the first clears the screen.
func frame(content string, first bool, interval time.Duration) []byte {
	var b bytes.Buffer
	if first {
		b.WriteString("\x1b[2J")
	}
	b.WriteString("\x1b[H")
	for _, line := range strings.SplitAfter(content, "\n") {
		b.WriteString(strings.TrimSuffix(line, "\n"))
		if strings.HasSuffix(line, "\n") {
			b.WriteString("\x1b[K\n")
		}
	}
	fmt.Fprintf(&b, "\x1b[K\nevery %s; Ctrl-C to stop\x1b[K\n\x1b[J", interval)
	return b.Bytes()
}

// statusOnce writes the status of the keys c names to w.
func (e *env) statusOnce(c *cli.Context, w io.Writer) error {
	cfg, hooks, v, err := e.snapshot(c)
	if err != nil {
		return err
	}
	now := e.now()
	runs, alive := e.inFlight(hooks)
	keys, err := resolveKeys(c.Args().Slice(), v)
	if err != nil {
		return err
	}
	sts, err := view.Statuses(v, keys, runs, now, alive)
	if err != nil {
		return fmt.Errorf("%w; the next guard run will move it aside", err)
	}
	e.warnAside(v)
	e.addTimings(cfg, sts)
	if c.Bool("json") {
		return view.WriteJSON(w, sts)
	}
	if len(sts) == 0 {
		fmt.Fprintf(w, "no keys yet in %s\n", hooks.Where)
		return nil
	}
	width := view.KeyWidth
	if c.Bool("wide") {
		width = 0
	}
	view.StatusTable(w, sts, now, width, e.color())
	return nil
}

// timings reads the run times of every key from the event log; nil, with a
// warning, if it cannot be read.
func (e *env) timings(cfg *config.Config) view.Timings {
	events, err := backend.AllEvents(cfg)
	if err = e.handoff(err); err == nil {
		var t view.Timings
		if t, err = view.RunTimings(events); err == nil {
			return t
		}
	}
	e.warnf("run times left out: %v", view.ErrorLine(err))
	return nil
}

// addTimings gives each status its key's run times, and marks the keys in
// observe mode.
func (e *env) addTimings(cfg *config.Config, sts []view.KeyStatus) {
	t := e.timings(cfg)
	for i := range sts {
		sts[i].DurationMS = t[sts[i].Key]
		if cfg.For(circuit.RuleKey(sts[i].Key)).Mode == "observe" {
			sts[i].Mode = "observe"
		}
	}
}

// color reports whether output may be coloured: stdout is a terminal and
// NO_COLOR is not set (https://no-color.org).
func (e *env) color() bool {
	return supervise.IsTerminal(e.stdout) && e.getenv("NO_COLOR") == "" && e.getenv("TERM") != "dumb"
}
