package main

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/urfave/cli/v2"

	"guard/breaker"
	"guard/bulkhead"
	"guard/hookstate"
	"guard/runproto"
	"guard/statefile"
	"guard/supervise"
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

A hook that refers to $CLAUDE_PROJECT_DIR has one circuit per project: its
key is "COMMAND @ PROJECT", and the table shows the project in a column.

--json prints an array of objects, one per key, with: key, project (for a
per-project key), state ("closed",
"open" or "half_open"), failure_count, consecutive_failures,
consecutive_successes, last_error, first_failure, last_failure, last_success,
disabled_at, retry_after (RFC 3339 or null), forced, open_reason,
reopen_count, probe_leases ([{pid, acquired, expires, alive}]), running (the
runs in flight: [{pid, child_pid, started, elapsed_ms, deadline,
remaining_ms}]), last_run and totals ({successes, failures, ignored,
cancelled, abandoned, skips, rejected}).

Examples:
   guard status
   guard status "python3 lint.py"
   guard status --json | jq '.[] | select(.state != "closed") | .key'`,
		Flags: append([]cli.Flag{
			&cli.BoolFlag{Name: "json", Usage: "print JSON"},
			&cli.BoolFlag{Name: "wide", Usage: "show long keys whole instead of shortened in the middle"},
		}, stateFlags()...),
		Action:       e.status,
		BashComplete: e.completeKeys,
	}
}

// A keyStatus is one element of 'guard status --json'.
type keyStatus struct {
	Key                  string           `json:"key"`
	Project              string           `json:"project,omitempty"` // the $CLAUDE_PROJECT_DIR it belongs to
	State                string           `json:"state"`
	FailureCount         int              `json:"failure_count"`
	ConsecutiveFailures  int              `json:"consecutive_failures"`
	ConsecutiveSuccesses int              `json:"consecutive_successes"`
	LastError            *string          `json:"last_error"`
	FirstFailure         statefile.Time   `json:"first_failure"`
	LastFailure          statefile.Time   `json:"last_failure"`
	LastSuccess          statefile.Time   `json:"last_success"`
	DisabledAt           statefile.Time   `json:"disabled_at"`
	RetryAfter           statefile.Time   `json:"retry_after"`
	Forced               bool             `json:"forced"`
	OpenReason           *string          `json:"open_reason"`
	ReopenCount          int              `json:"reopen_count"`
	ProbeLeases          []leaseStatus    `json:"probe_leases"`
	Running              []runStatus      `json:"running"`
	LastRun              statefile.Time   `json:"last_run"`
	Totals               hookstate.Totals `json:"totals"`

	known bool // the key has an entry in the state file
}

// A runStatus is a run in flight.
type runStatus struct {
	PID         int            `json:"pid"`                 // guard's
	ChildPID    int            `json:"child_pid,omitempty"` // the command's
	Started     statefile.Time `json:"started"`
	ElapsedMS   int64          `json:"elapsed_ms"`
	Deadline    statefile.Time `json:"deadline"`     // null: no timeout
	RemainingMS *int64         `json:"remaining_ms"` // until the timeout; null: none
}

type leaseStatus struct {
	PID      int            `json:"pid"`
	Acquired statefile.Time `json:"acquired"`
	Expires  statefile.Time `json:"expires"`
	Alive    bool           `json:"alive"`
}

func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func statusOf(key string, c breaker.Circuit, totals hookstate.Totals, runs []bulkhead.Run, now time.Time) keyStatus {
	st := keyStatus{
		Key:                  key,
		Project:              runproto.KeyProject(key),
		State:                string(c.State),
		FailureCount:         c.FailureCount,
		ConsecutiveFailures:  c.ConsecutiveFailures,
		ConsecutiveSuccesses: c.ConsecutiveSuccesses,
		LastError:            optional(c.LastError),
		FirstFailure:         statefile.TimeOf(c.FirstFailure),
		LastFailure:          statefile.TimeOf(c.LastFailure),
		LastSuccess:          statefile.TimeOf(c.LastSuccess),
		DisabledAt:           statefile.TimeOf(c.DisabledAt),
		RetryAfter:           statefile.TimeOf(c.RetryAfter),
		Forced:               c.Forced,
		OpenReason:           optional(c.OpenReason),
		ReopenCount:          c.Reopens,
		ProbeLeases:          []leaseStatus{},
		Running:              []runStatus{},
		LastRun:              statefile.TimeOf(c.LastRun),
		Totals:               totals,
	}
	if st.State == "" {
		st.State = string(breaker.Closed)
	}
	st.Totals.Extra = nil
	for _, l := range c.Leases {
		st.ProbeLeases = append(st.ProbeLeases, leaseStatus{
			PID: l.PID, Acquired: statefile.TimeOf(l.Acquired), Expires: statefile.TimeOf(l.Expires),
			Alive: supervise.Alive(l.PID, l.Start),
		})
	}
	for _, r := range runs {
		rs := runStatus{PID: r.PID, ChildPID: r.ChildPID, Started: statefile.TimeOf(r.Started),
			Deadline: statefile.TimeOf(r.Deadline), ElapsedMS: now.Sub(r.Started).Milliseconds()}
		if !r.Deadline.IsZero() {
			left := max(r.Deadline.Sub(now).Milliseconds(), 0)
			rs.RemainingMS = &left
		}
		st.Running = append(st.Running, rs)
	}
	return st
}

// stateRank orders keys for people: what needs attention first.
func stateRank(s string) int {
	switch breaker.State(s) {
	case breaker.Open:
		return 0
	case breaker.HalfOpen:
		return 1
	}
	return 2
}

// statuses returns the status of keys (all keys, and any key with a run in
// flight, if none are given), most urgent first.
func statuses(doc *hookstate.Document, keys []string, runs []bulkhead.Run, now time.Time) ([]keyStatus, error) {
	byKey := map[string][]bulkhead.Run{}
	for _, r := range runs {
		byKey[r.Key] = append(byKey[r.Key], r)
	}
	if len(keys) == 0 {
		keys = doc.Keys()
		for k := range byKey {
			if !doc.Has(k) {
				keys = append(keys, k)
			}
		}
	}
	out := make([]keyStatus, 0, len(keys))
	for _, k := range keys {
		var totals hookstate.Totals
		var c breaker.Circuit
		h, err := doc.Hook(k)
		if err != nil {
			return nil, err
		}
		if h != nil {
			totals, c = h.Totals, h.Circuit()
		} else if isAside(doc, k) {
			continue // malformed: set aside, and warned of
		}
		st := statusOf(k, c, totals, byKey[k], now)
		st.known = h != nil
		out = append(out, st)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if a, b := stateRank(out[i].State), stateRank(out[j].State); a != b {
			return a < b
		}
		return out[i].Key < out[j].Key
	})
	return out, nil
}

func isAside(doc *hookstate.Document, key string) bool {
	for _, a := range doc.Aside() {
		if a.Key == key {
			return true
		}
	}
	return false
}

// warnAside warns of the entries of doc that do not check out; the next
// update of the state sets them aside.
func (e *env) warnAside(doc *hookstate.Document) {
	for _, a := range doc.Aside() {
		e.warnf("the state of %q is malformed (%s) and is left out; the next guard run sets it aside", printable(a.Key), shortErr(a.Err))
	}
}

// inFlight lists the runs in flight beside store's state file.
func inFlight(store *hookstate.Store) []bulkhead.Run {
	runs, _ := bulkhead.List(bulkhead.Dir(store.Path()), supervise.Alive)
	return runs
}

func (e *env) status(c *cli.Context) error {
	_, store, doc, err := e.snapshot(c)
	if err != nil {
		return err
	}
	now := e.now()
	sts, err := statuses(doc, c.Args().Slice(), inFlight(store), now)
	if err != nil {
		return fmt.Errorf("%w; the next guard run will move it aside", err)
	}
	e.warnAside(doc)
	if c.Bool("json") {
		return writeJSON(e.stdout, sts)
	}
	if len(sts) == 0 {
		fmt.Fprintf(e.stdout, "no keys yet in %s\n", store.Path())
		return nil
	}
	width := keyWidth
	if c.Bool("wide") {
		width = 0
	}
	statusTable(e.stdout, sts, now, width, e.color())
	return nil
}

// keyWidth is how much of a key 'guard status' shows without --wide.
const keyWidth = 48

// color reports whether output may be coloured: stdout is a terminal and
// NO_COLOR is not set (https://no-color.org).
func (e *env) color() bool {
	return supervise.IsTerminal(e.stdout) && e.getenv("NO_COLOR") == "" && e.getenv("TERM") != "dumb"
}

// statusTable prints statuses as an aligned table, then the runs in flight.
// Keys longer than keyWidth are shortened in the middle (0: never). With
// color, states are coloured.
func statusTable(w io.Writer, sts []keyStatus, now time.Time, keyWidth int, color bool) {
	t := &table{header: []string{"STATE", "FAILURES", "NEXT", "KEY", "LAST ERROR"}}
	projects := false
	for _, st := range sts {
		projects = projects || st.Project != ""
	}
	if projects {
		// A key kept per project shows its command and, apart, its project.
		t.header = []string{"STATE", "FAILURES", "NEXT", "KEY", "PROJECT", "LAST ERROR"}
	}
	running := 0
	for _, st := range sts {
		state := st.State
		if !st.known {
			state = "closed (no state)"
		} else if st.Forced {
			state += " (forced)"
		}
		last := "-"
		if st.LastError != nil {
			last = printable(lastError(*st.LastError, 60))
		}
		row := []string{state, fmt.Sprint(st.FailureCount), nextTry(st, now), ellipsize(printable(st.Key), keyWidth), last}
		if projects {
			key, project := st.Key, "-"
			if st.Project != "" {
				key, project = strings.TrimSuffix(key, runproto.ProjectSep+st.Project), st.Project
			}
			row = []string{row[0], row[1], row[2], ellipsize(printable(key), keyWidth), printable(project), last}
		}
		t.rows = append(t.rows, row)
		running += len(st.Running)
	}
	if color {
		t.color = func(row, col int) string {
			if col != 0 {
				return ""
			}
			return stateColor[breaker.State(sts[row].State)]
		}
	}
	t.write(w)
	if running == 0 {
		return
	}
	fmt.Fprintf(w, "\nIn flight:\n")
	t = &table{header: []string{"PID", "RUNNING", "TIME LEFT", "KEY"}}
	for _, st := range sts {
		for _, r := range st.Running {
			pid := r.PID
			if r.ChildPID != 0 {
				pid = r.ChildPID
			}
			left := "no timeout"
			if r.RemainingMS != nil {
				left = (time.Duration(*r.RemainingMS) * time.Millisecond).Truncate(time.Second).String()
			}
			t.rows = append(t.rows, []string{fmt.Sprint(pid), (time.Duration(r.ElapsedMS) * time.Millisecond).Truncate(time.Second).String(), left, ellipsize(printable(st.Key), keyWidth)})
		}
	}
	t.write(w)
}

// stateColor is the ANSI colour of each state on a terminal.
var stateColor = map[breaker.State]string{
	breaker.Open:     "\x1b[31m", // red
	breaker.HalfOpen: "\x1b[33m", // yellow
	breaker.Closed:   "\x1b[32m", // green
}

// A table is text in aligned columns, two spaces apart. Colour codes are
// added after the padding is worked out, so they do not upset it.
type table struct {
	header []string
	rows   [][]string
	color  func(row, col int) string // an ANSI colour for a cell, or ""
}

func (t *table) write(w io.Writer) {
	widths := make([]int, len(t.header))
	for _, r := range append([][]string{t.header}, t.rows...) {
		for i, cell := range r {
			widths[i] = max(widths[i], utf8.RuneCountInString(cell))
		}
	}
	line := func(r []string, row int) {
		var b strings.Builder
		for i, cell := range r {
			pad := ""
			if i < len(r)-1 {
				pad = strings.Repeat(" ", widths[i]-utf8.RuneCountInString(cell)+2)
			}
			if c := ""; t.color != nil && row >= 0 {
				if c = t.color(row, i); c != "" {
					cell = c + cell + "\x1b[0m"
				}
			}
			b.WriteString(cell + pad)
		}
		fmt.Fprintln(w, strings.TrimRight(b.String(), " "))
	}
	line(t.header, -1)
	for i, r := range t.rows {
		line(r, i)
	}
}

// ellipsize shortens s to width characters by cutting out its middle.
func ellipsize(s string, width int) string {
	r := []rune(s)
	if width <= 0 || len(r) <= width {
		return s
	}
	head := (width - 1) / 2
	tail := width - 1 - head
	return string(r[:head]) + "…" + string(r[len(r)-tail:])
}

// nextTry says when a key will run again.
func nextTry(st keyStatus, now time.Time) string {
	switch breaker.State(st.State) {
	case breaker.Open:
		switch {
		case st.RetryAfter.IsZero() && st.Forced:
			return "until reset"
		case !st.RetryAfter.After(now):
			return "next call probes"
		}
		return "in " + until(st.RetryAfter.Time, now)
	case breaker.HalfOpen:
		for _, l := range st.ProbeLeases {
			if l.Alive {
				return fmt.Sprintf("probing (pid %d)", l.PID)
			}
		}
		return "next call probes"
	}
	return "-"
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
