package view

import (
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"guard/breaker"
	"guard/internal/circuit"
	"guard/internal/jsonx"
	"guard/internal/store"
)

// A KeyStatus is one element of 'guard status --json'.
type KeyStatus struct {
	Key                  string        `json:"key"`
	Project              string        `json:"project,omitempty"` // the $CLAUDE_PROJECT_DIR it belongs to
	State                string        `json:"state"`
	FailureCount         int           `json:"failure_count"`
	ConsecutiveFailures  int           `json:"consecutive_failures"`
	ConsecutiveSuccesses int           `json:"consecutive_successes"`
	LastError            *string       `json:"last_error"`
	FirstFailure         jsonx.Time    `json:"first_failure"`
	LastFailure          jsonx.Time    `json:"last_failure"`
	LastSuccess          jsonx.Time    `json:"last_success"`
	DisabledAt           jsonx.Time    `json:"disabled_at"`
	RetryAfter           jsonx.Time    `json:"retry_after"`
	Forced               bool          `json:"forced"`
	OpenReason           *string       `json:"open_reason"`
	ReopenCount          int           `json:"reopen_count"`
	ProbeLeases          []LeaseStatus `json:"probe_leases"`
	Running              []RunStatus   `json:"running"`
	LastRun              jsonx.Time    `json:"last_run"`
	Totals               Totals        `json:"totals"`
	// DurationMS sums up the key's run times in the event log; nil when
	// the log has none (or was not read).
	DurationMS *Durations `json:"duration_ms"`
	// Mode is "observe" for a key in observe mode: its state is what it
	// would be, and nothing is skipped; "disabled" for a key that guard
	// disable turned off (Disabled says who): every call runs unguarded,
	// and State is the circuit's underneath.
	Mode     string          `json:"mode,omitempty"`
	Disabled *DisabledStatus `json:"disabled"`

	known bool // the key has an entry in the state file
}

// Totals count every outcome a key has seen.
type Totals struct {
	Successes int64 `json:"successes"`
	Failures  int64 `json:"failures"`
	Ignored   int64 `json:"ignored"`
	Cancelled int64 `json:"cancelled"`
	Abandoned int64 `json:"abandoned"`
	Skips     int64 `json:"skips"`
	Rejected  int64 `json:"rejected"`
	// Of the skips and rejections, those whose action was blocked
	// (on_skip: block); the others let it through.
	SkipsBlocked    int64 `json:"skips_blocked"`
	RejectedBlocked int64 `json:"rejected_blocked"`
}

func totalsOf(t breaker.Totals) Totals {
	return Totals{Successes: t.Successes, Failures: t.Failures, Ignored: t.Ignored, Cancelled: t.Cancelled, Abandoned: t.Abandoned,
		Skips: t.Skips, Rejected: t.Rejected, SkipsBlocked: t.SkipsBlocked, RejectedBlocked: t.RejectedBlocked}
}

// A RunStatus is a run in flight.
type RunStatus struct {
	Host        string     `json:"host,omitempty"`      // guard's
	PID         int        `json:"pid"`                 // guard's
	ChildPID    int        `json:"child_pid,omitempty"` // the command's
	Started     jsonx.Time `json:"started"`
	ElapsedMS   int64      `json:"elapsed_ms"`
	Deadline    jsonx.Time `json:"deadline"`     // null: no timeout
	RemainingMS *int64     `json:"remaining_ms"` // until the timeout; null: none
}

// A DisabledStatus says who disabled a key by hand (guard disable), when
// and why.
type DisabledStatus struct {
	Since  jsonx.Time `json:"since"`
	User   string     `json:"user,omitempty"`
	Host   string     `json:"host,omitempty"`
	PID    int        `json:"pid,omitempty"`
	Reason string     `json:"reason,omitempty"`
}

// A LeaseStatus is a probe lease.
type LeaseStatus struct {
	Host     string     `json:"host,omitempty"`
	PID      int        `json:"pid"`
	Acquired jsonx.Time `json:"acquired"`
	Expires  jsonx.Time `json:"expires"`
	Alive    bool       `json:"alive"`
}

func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func statusOf(key string, c breaker.Circuit, runs []store.Run, now time.Time, alive func(store.Holder) bool) KeyStatus {
	st := KeyStatus{
		Key:                  key,
		Project:              circuit.KeyProject(key),
		State:                string(c.State),
		FailureCount:         c.FailureCount,
		ConsecutiveFailures:  c.ConsecutiveFailures,
		ConsecutiveSuccesses: c.ConsecutiveSuccesses,
		LastError:            optional(c.LastError),
		FirstFailure:         jsonx.TimeOf(c.FirstFailure),
		LastFailure:          jsonx.TimeOf(c.LastFailure),
		LastSuccess:          jsonx.TimeOf(c.LastSuccess),
		DisabledAt:           jsonx.TimeOf(c.DisabledAt),
		RetryAfter:           jsonx.TimeOf(c.RetryAfter),
		Forced:               c.Forced,
		OpenReason:           optional(c.OpenReason),
		ReopenCount:          c.Reopens,
		ProbeLeases:          []LeaseStatus{},
		Running:              []RunStatus{},
		LastRun:              jsonx.TimeOf(c.LastRun),
		Totals:               totalsOf(c.Totals),
	}
	if st.State == "" {
		st.State = string(breaker.Closed)
	}
	if d := c.Disabled; d != nil {
		st.Mode = string(breaker.Disabled)
		st.Disabled = &DisabledStatus{Since: jsonx.TimeOf(d.Since), User: d.User, Host: d.Host, PID: d.PID, Reason: d.Reason}
	}
	for _, l := range c.Leases {
		st.ProbeLeases = append(st.ProbeLeases, LeaseStatus{
			Host: l.Host, PID: l.PID, Acquired: jsonx.TimeOf(l.Acquired), Expires: jsonx.TimeOf(l.Expires),
			Alive: alive(store.Holder{Host: l.Host, PID: l.PID, Start: l.Start}),
		})
	}
	for _, r := range runs {
		rs := RunStatus{Host: r.Holder.Host, PID: r.Holder.PID, ChildPID: r.ChildPID, Started: jsonx.TimeOf(r.Started),
			Deadline: jsonx.TimeOf(r.Deadline), ElapsedMS: now.Sub(r.Started).Milliseconds()}
		if !r.Deadline.IsZero() {
			left := max(r.Deadline.Sub(now).Milliseconds(), 0)
			rs.RemainingMS = &left
		}
		st.Running = append(st.Running, rs)
	}
	return st
}

// Severity ranks a circuit state by how much it needs attention: 0
// closed, 1 half-open, 2 open. Status and reports list the worst first,
// and Prometheus exports it as guard_circuit_state.
func Severity(s breaker.State) int {
	switch s {
	case breaker.Open:
		return 2
	case breaker.HalfOpen:
		return 1
	}
	return 0
}

// Statuses returns the status of keys (all keys, and any key with a run in
// flight, if none are given), most urgent first. A key whose state did not
// check out is left out (see store.CircuitView.Aside).
func Statuses(v store.CircuitView, keys []string, runs []store.Run, now time.Time, alive func(store.Holder) bool) ([]KeyStatus, error) {
	byKey := map[string][]store.Run{}
	for _, r := range runs {
		byKey[r.Key] = append(byKey[r.Key], r)
	}
	if len(keys) == 0 {
		keys = v.Keys()
		for k := range byKey {
			if !v.Has(k) {
				keys = append(keys, k)
			}
		}
	}
	out := make([]KeyStatus, 0, len(keys))
	for _, k := range keys {
		c, err := v.Circuit(k)
		if err != nil {
			return nil, err
		}
		known := v.Has(k)
		if !known && isAside(v, k) {
			continue
		}
		st := statusOf(k, c, byKey[k], now, alive)
		st.known = known
		out = append(out, st)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if a, b := out[i].severity(), out[j].severity(); a != b {
			return a > b
		}
		return out[i].Key < out[j].Key
	})
	return out, nil
}

// severity is Severity of the state st shows: a key disabled by hand
// runs every call, as a closed one does.
func (st *KeyStatus) severity() int {
	if st.Mode == string(breaker.Disabled) {
		return 0
	}
	return Severity(breaker.State(st.State))
}

func isAside(v store.CircuitView, key string) bool {
	for _, a := range v.Aside() {
		if a.Key == key {
			return true
		}
	}
	return false
}

// KeyWidth is how much of a key 'guard status' shows without --wide.
const KeyWidth = 48

// StatusTable prints Statuses as an aligned table, then the runs in flight.
// Keys longer than KeyWidth are shortened in the middle (0: never). With
// color, states are coloured.
func StatusTable(w io.Writer, sts []KeyStatus, now time.Time, keyWidth int, color bool) {
	t := &table{header: []string{"STATE", "FAILURES", "NEXT", "P50/P95", "KEY", "LAST ERROR"}}
	projects := false
	for _, st := range sts {
		projects = projects || st.Project != ""
	}
	if projects {
		// A key kept per project shows its command and, apart, its project.
		t.header = []string{"STATE", "FAILURES", "NEXT", "P50/P95", "KEY", "PROJECT", "LAST ERROR"}
	}
	running := 0
	for _, st := range sts {
		state := st.State
		if !st.known {
			state = "closed (no state)"
		} else if st.Forced {
			state += " (forced)"
		}
		if st.Mode == "observe" {
			state += " (observe)"
		}
		if st.Mode == string(breaker.Disabled) {
			state = string(breaker.Disabled)
		}
		last := "-"
		if st.LastError != nil {
			last = Printable(LastError(*st.LastError, 60))
		}
		row := []string{state, fmt.Sprint(st.FailureCount), nextTry(st, now), st.DurationMS.Brief(), ellipsize(KeyText(st.Key), keyWidth), last}
		if projects {
			key, project := st.Key, "-"
			if st.Project != "" {
				key, project = strings.TrimSuffix(key, circuit.ProjectSep+st.Project), st.Project
			}
			row = []string{row[0], row[1], row[2], row[3], ellipsize(KeyText(key), keyWidth), Printable(project), last}
		}
		t.rows = append(t.rows, row)
		running += len(st.Running)
	}
	if color {
		t.color = func(row, col int) string {
			if col != 0 {
				return ""
			}
			if sts[row].Mode == string(breaker.Disabled) {
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
			t.rows = append(t.rows, []string{fmt.Sprint(pid), (time.Duration(r.ElapsedMS) * time.Millisecond).Truncate(time.Second).String(), left, ellipsize(KeyText(st.Key), keyWidth)})
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

// nextTry says when a key will run again.
func nextTry(st KeyStatus, now time.Time) string {
	if st.Mode == string(breaker.Disabled) {
		return "every call runs"
	}
	switch breaker.State(st.State) {
	case breaker.Open:
		switch {
		case st.RetryAfter.IsZero() && st.Forced:
			return "until reset"
		case !st.RetryAfter.After(now):
			return "next call probes"
		}
		return "in " + Until(st.RetryAfter.Time, now)
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

// UnknownKey explains that key has no state, suggesting keys that look like
// what the user meant.
func UnknownKey(key string, v store.CircuitView) error {
	var near []string
	keys := v.Keys()
	for _, k := range keys {
		if strings.Contains(k, key) || strings.Contains(key, k) {
			near = append(near, circuit.KeyArg(k))
		}
	}
	msg := "no state for key " + circuit.KeyWord(key)
	if len(near) > 0 && len(near) <= 5 {
		msg += "; did you mean " + strings.Join(near, " or ") + "?"
	} else if len(keys) > 0 {
		msg += "; 'guard status' lists the keys"
	}
	return errors.New(msg)
}
