package cli

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/urfave/cli/v2"

	"guard/cmd/guard/guardrun"
	"guard/config"
	"guard/internal/store"
	"guard/internal/view"
)

func (e *env) statusCommand() *cli.Command {
	return &cli.Command{
		Name:      "status",
		Usage:     "show each key's circuit: state, failures, last error, next try",
		ArgsUsage: "[KEY...]",
		Description: `Prints one line per key (all keys, or the ones named): open circuits first,
then half-open, then closed, then the runs in flight. It reads the state file
without taking the lock. Keys longer than 48 characters, and last errors
longer than 80, are shortened in the middle (an error keeps its end, what
went wrong) unless --wide is given; states are coloured on a terminal
unless NO_COLOR is set.

The P50/P95 column is how long the key's runs took (median and 95th
percentile), over the runs the event log holds; "guard report --slowest 5"
lists the slowest hooks.

A hook that refers to $CLAUDE_PROJECT_DIR has one circuit per project: its
key is "COMMAND @ PROJECT", and the table shows the project in a column.

Each key is in one of six states, the same in every output: closed, open,
half-open, open (forced), observe (its circuit decides, every call runs;
the state it would skip by in brackets) and disabled (mode: disabled: not
guarded; an old circuit is never shown open). FAILURES is where the key
stands against the rule that trips it: 2/3 (failures in a row, trips at
3), 2/3 in 10m, 2/3 of last 5, 40%/50% of 10 in 10m (failure_rate),
probes 1/2 (half-open). NEXT gives "2 of 2 slots in use" for a key with
max_concurrent.

--json prints an array of objects, one per key, with: key, project (for a
per-project key), state (closed, open, half_open, forced_open, observe or
disabled), circuit (the circuit's own state: closed, open or half_open),
mode (observe or disabled, when set), max_concurrent, rule (where it
stands: {rule, failures, threshold, calls, window, failure_rate,
failure_rate_threshold, ...}), failure_count, consecutive_failures,
consecutive_successes, last_error, first_failure, last_failure, last_success,
disabled_at, retry_after (RFC 3339 or null), forced, open_reason,
reopen_count, probe_leases ([{pid, acquired, expires, alive}]), running (the
runs in flight: [{pid, child_pid, started, elapsed_ms, deadline,
remaining_ms}]), last_run, totals ({successes, failures, ignored,
cancelled, abandoned, skips, rejected, skips_blocked, rejected_blocked}),
duration_ms ({count, p50, p95,
max} of its runs in the event log, or null) and known (false for a key with
no state and no run in flight: never run, or mistyped).

A KEY guard does not know is shown as closed, "closed (no state)" in the
table and "known": false in JSON, and guard status exits 1 once it has
printed them all, with a "did you mean" line on stderr for each.

--watch redraws the table every second (--interval), with the runs in
flight, until interrupted: in place on a terminal, without flicker, fitted
to its size (the header stays; the lines that do not fit give way to a
"... N more lines" line; a resize is followed); elsewhere (a pipe, a file)
each snapshot is appended after a "--- TIME" line. After the first
snapshot, each reads only what was appended to the event log.

Examples:
   guard status
   guard status --watch --interval 2s
   guard status "python3 lint.py"
   guard status --json | jq '.[] | select(.state != "closed") | .key'`,
		Flags: append([]cli.Flag{
			&cli.BoolFlag{Name: "json", Usage: "print JSON"},
			&cli.BoolFlag{Name: "wide", Usage: "show long keys and last errors whole instead of shortened in the middle"},
			&cli.BoolFlag{Name: "watch", Aliases: []string{"w"}, Usage: "redraw the table every --interval until interrupted"},
			&cli.DurationFlag{Name: "interval", Value: time.Second, Usage: "how often --watch redraws"},
			&cli.IntFlag{Name: "count", Usage: "with --watch, stop after `N` snapshots (0: never)"},
		}, stateFlags()...),
		Action:       e.status,
		BashComplete: e.completeKeys,
	}
}

// warnAside warns of the entries of doc that do not check out; the next
// update of that key (a run of it, a reset) sets each aside: the other
// keys' runs do not read it (faults #8).
func (e *env) warnAside(v store.CircuitView) {
	for _, a := range v.Aside() {
		e.Warnf("%s", view.AsideWarning(a))
	}
}

// inFlight lists the runs in flight, and the liveness that checked them.
func (e *env) inFlight(hooks *store.Hooks) ([]store.Run, func(store.Holder) bool) {
	alive := guardrun.Liveness(guardrun.Host(e.Getenv)).Alive
	runs, _ := hooks.Runs.List(alive)
	return runs, alive
}

func (e *env) status(c *cli.Context) error {
	if !c.Bool("watch") {
		if c.IsSet("interval") || c.IsSet("count") {
			return usagef("--interval and --count go with --watch")
		}
		return e.statusOnce(c, e.Stdout)
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
	if e.Exits {
		signal.Notify(stop, os.Interrupt, syscall.SIGTERM)
		defer signal.Stop(stop)
	}
	e.Warned = map[string]bool{}
	e.watching = &watchEvents{}
	term := ansiTerminal(e.Stdout) && e.Getenv("TERM") != "dumb"
	if term {
		// A frame ends on its last line, so that it never scrolls; the
		// prompt after the last goes below it.
		defer io.WriteString(e.Stdout, "\n")
	}
	var resized chan os.Signal
	if term && e.Exits {
		resized = make(chan os.Signal, 1)
		notifyResize(resized)
		defer signal.Stop(resized)
	}
	var buf bytes.Buffer
	for i := 0; count == 0 || i < count; i++ {
		clear := i == 0
		if i > 0 {
			select {
			case <-stop:
				return nil
			case <-resized:
				clear = true // what the terminal rewrapped goes
			case <-time.After(interval):
			}
		}
		buf.Reset()
		rows, cols := 0, 0
		if term {
			rows, cols = termSize(e.Stdout)
			e.fitCols = cols
		}
		if err := e.statusOnce(c, &buf); err != nil {
			return err
		}
		if term {
			e.Stdout.Write(frame(buf.String(), clear, interval, rows, cols))
			continue
		}
		fmt.Fprintf(e.Stdout, "--- %s\n", e.Now().UTC().Format(time.RFC3339))
		e.Stdout.Write(buf.Bytes())
		fmt.Fprintln(e.Stdout)
	}
	return nil
}

// frame is one redraw of --watch on a terminal of rows and cols (0: not
// known): in place, in one write: home, each line over the old one
// (cleared to its end), then clear what is left below. There is no blank
// frame between two, so no flicker; only the first, and the first after
// a resize, clears the screen. A frame never takes more rows than the
// terminal has, so that it never scrolls: the table's header stays, and
// the lines that do not fit give way to a "... N more lines" line. Lines
// are cut to the width, so that none wraps onto the next row.
func frame(content string, clear bool, interval time.Duration, rows, cols int) []byte {
	lines := strings.Split(strings.TrimSuffix(content, "\n"), "\n")
	footer := []string{"", fmt.Sprintf("every %s; Ctrl-C to stop", interval)}
	if rows > 0 {
		if rows < 4 {
			footer = footer[1:]
		}
		if room := rows - len(footer); len(lines) > room {
			keep := max(room-1, 1)
			lines = append(lines[:keep:keep], fmt.Sprintf("... %d more lines", len(lines)-keep))
			lines = lines[:max(room, 0)]
		}
	}
	var b bytes.Buffer
	if clear {
		b.WriteString("\x1b[2J")
	}
	b.WriteString("\x1b[H")
	all := append(lines, footer...)
	for i, line := range all {
		if cols > 0 {
			// Not the last column: a character there leaves the cursor
			// waiting to wrap, and some terminals then clear it with \e[K.
			line = clip(line, cols-1)
		}
		b.WriteString(line)
		b.WriteString("\x1b[K")
		if i < len(all)-1 {
			b.WriteByte('\n')
		}
	}
	b.WriteString("\x1b[J")
	return b.Bytes()
}

// clip cuts line to width columns of a terminal: escape sequences (the
// states' colours) take none, a wide character two. A line cut inside a
// colour ends it.
func clip(line string, width int) string {
	w, coloured := 0, false
	for i := 0; i < len(line); {
		if line[i] == 0x1b && i+1 < len(line) && line[i+1] == '[' {
			j := i + 2
			for j < len(line) && (line[j] < 0x40 || line[j] > 0x7e) {
				j++
			}
			i, coloured = j+1, true
			continue
		}
		r, n := utf8.DecodeRuneInString(line[i:])
		rw := runeWidth(r)
		if w+rw > width {
			if coloured {
				return line[:i] + "\x1b[0m"
			}
			return line[:i]
		}
		w += rw
		i += n
	}
	return line
}

// runeWidth is how many columns a terminal gives r: none for a combining
// mark, two for the East Asian wide and fullwidth blocks and emoji, else one.
func runeWidth(r rune) int {
	switch {
	case unicode.Is(unicode.Mn, r) || unicode.Is(unicode.Me, r) || r == 0x200b:
		return 0
	case r >= 0x1100 && r <= 0x115f, r >= 0x2e80 && r <= 0xa4cf && r != 0x303f,
		r >= 0xac00 && r <= 0xd7a3, r >= 0xf900 && r <= 0xfaff, r >= 0xfe30 && r <= 0xfe4f,
		r >= 0xff00 && r <= 0xff60, r >= 0xffe0 && r <= 0xffe6,
		r >= 0x1f300 && r <= 0x1f64f, r >= 0x1f900 && r <= 0x1f9ff, r >= 0x20000 && r <= 0x3fffd:
		return 2
	}
	return 1
}

// fitKeys returns the key width at which the KEY column of the status
// table ends within the terminal's width (e.fitCols), so that --watch on a
// narrow terminal still tells long keys apart: cut at the screen's edge,
// they would all show the same first letters; shortened in the middle,
// they keep their ends. It never goes under 5 columns, nor over width.
func (e *env) fitKeys(sts []view.KeyStatus, now time.Time, width int) int {
	var b bytes.Buffer
	view.StatusTable(&b, sts, now, width, false)
	header, _, _ := strings.Cut(b.String(), "\n")
	start := strings.Index(header, "KEY")
	if start < 0 {
		return width
	}
	room := e.fitCols - 1 - start // the header is plain ASCII
	longest := 0
	for _, st := range sts {
		longest = max(longest, len([]rune(view.KeyText(st.Key))))
	}
	if longest <= room || (width > 0 && width <= room) {
		return width
	}
	return max(room, 5)
}

// A keyStatus is one element of 'guard status --json': the key's status,
// and whether guard knows the key at all: the state has an entry for it,
// or it has a run in flight. A key it does not know is shown as a closed
// circuit, which is what the next call would find; known says it never
// ran (or is mistyped).
type keyStatus struct {
	view.KeyStatus
	Known bool `json:"known"`
}

// statusOnce writes the status of the keys c names to w. A named key that
// guard does not know is shown as closed and marked so ("closed (no
// state)", "known": false); once the status is written, each is
// reported on stderr with the keys it may be a typo of, and the status
// is 1, unless --watch is redrawing, where a key may appear later.
func (e *env) statusOnce(c *cli.Context, w io.Writer) error {
	cfg, hooks, v, err := e.snapshot(c)
	if err != nil {
		return err
	}
	now := e.Now()
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
	known := func(k string) bool { return knows(v, runs, k) }
	if c.Bool("json") {
		err = view.WriteJSON(w, statusDocument(v, runs, sts))
	} else if len(sts) == 0 && len(keys) == 0 {
		fmt.Fprintf(w, "no keys yet in %s\n", hooks.Where)
	} else {
		width := view.KeyWidth
		if c.Bool("wide") {
			width = 0
		}
		if e.fitCols > 0 && !c.Bool("wide") {
			width = e.fitKeys(sts, now, width)
		}
		view.StatusTable(w, sts, now, width, e.color())
	}
	if err != nil || c.Bool("watch") {
		return err
	}
	unknown := false
	for i, k := range keys {
		if known(k) || slices.Contains(keys[:i], k) {
			continue
		}
		unknown = true
		if !slices.ContainsFunc(v.Aside(), func(a store.Aside) bool { return a.Key == k }) {
			// (A key set aside was warned of above.)
			e.Errorf("%v", view.UnknownKey(k, v))
		}
	}
	if unknown {
		return exit(1)
	}
	return nil
}

// knows reports whether guard knows key: it has an entry, or a run in
// flight (its first).
func knows(v store.CircuitView, runs []store.Run, key string) bool {
	return v.Has(key) || slices.ContainsFunc(runs, func(r store.Run) bool { return r.Key == key })
}

// statusDocument is 'guard status --json' of sts.
func statusDocument(v store.CircuitView, runs []store.Run, sts []view.KeyStatus) []keyStatus {
	out := make([]keyStatus, len(sts))
	for i, st := range sts {
		out[i] = keyStatus{st, knows(v, runs, st.Key)}
	}
	return out
}

// timings reads the run times of every key from the event log; nil, with a
// warning, if it cannot be read.
func (e *env) timings(cfg *config.Config) view.Timings {
	events, err := e.runEvents(cfg)
	if err == nil {
		var t view.Timings
		if t, err = view.RunTimings(events); err == nil {
			return t
		}
	}
	e.Warnf("run times left out: %v", view.ErrorLine(err))
	return nil
}

// A watchEvents is what status --watch keeps of the event logs from one
// frame to the next: logs it follows (store.Follower), so that each frame
// reads only what was appended since the last.
type watchEvents struct {
	where  string // the logs followed: which states, which log file
	events store.Events
}

// runEvents returns the event logs that run times come from: for status
// --watch, followed (while the config names the same logs) where the
// backend can follow them; else read whole.
func (e *env) runEvents(cfg *config.Config) (store.Events, error) {
	w := e.watching
	where := cfg.StateFile + "\x00" + cfg.Cooldown.StateFile + "\x00" + cfg.Logging.EventLog
	if w != nil && w.events != nil && w.where == where {
		return w.events, nil
	}
	events, err := store.AllEvents(cfg)
	if err = e.Handoff(err); err != nil {
		return nil, err
	}
	if f, ok := events.(store.Follower); ok && w != nil {
		w.where, w.events = where, f.Follow(isRunTime)
		return w.events, nil
	}
	return events, nil
}

// isRunTime is an event view.RunTimings counts: a run, with its duration.
func isRunTime(ev *store.Event) bool {
	return ev.Event == store.EventRun && ev.DurationMS != nil
}

// addTimings gives each status its key's run times, and what the config
// says of its key (its state in the model, its rule: view.ApplyConfig).
func (e *env) addTimings(cfg *config.Config, sts []view.KeyStatus) {
	t := e.timings(cfg)
	for i := range sts {
		sts[i].DurationMS = t[sts[i].Key]
	}
	view.ApplyConfig(sts, cfg, e.Now())
}

// color reports whether output may be coloured: stdout is a terminal and
// NO_COLOR is not set (https://no-color.org).
func (e *env) color() bool {
	return ansiTerminal(e.Stdout) && e.Getenv("NO_COLOR") == "" && e.Getenv("TERM") != "dumb"
}
