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
	Key     string `json:"key"`
	Project string `json:"project,omitempty"` // the $CLAUDE_PROJECT_DIR it belongs to
	// State is the key's state in the model every output shows (see
	// States): closed, open, half_open, forced_open, observe or disabled.
	// Circuit is its circuit's own state, as the state file has it
	// (closed, open or half_open): for a key in observe mode, the state
	// it would skip by; for a disabled key, what was left from before,
	// not in force.
	State                string        `json:"state"`
	Circuit              string        `json:"circuit"`
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
	// Mode is "observe" for a key in observe mode (its circuit decides,
	// and nothing is skipped) and "disabled" for a key guard does not
	// guard (mode: disabled, or guard disable: Disabled says who); absent
	// for the others.
	Mode     string          `json:"mode,omitempty"`
	Disabled *DisabledStatus `json:"disabled"`
	// MaxConcurrent is the key's max_concurrent (0: unlimited): Running
	// holds its slots in use.
	MaxConcurrent int `json:"max_concurrent"`
	// Rule is where the key stands against the rule that trips it: what
	// FAILURES shows (see Standing).
	Rule Standing `json:"rule"`

	known    bool // the key has an entry in the state file
	circuit  breaker.Circuit
	runTimes breaker.RunTimes
}

// KeyState returns the status's state in the model.
func (st *KeyStatus) KeyState() KeyState {
	return KeyState{Name: st.State, Circuit: breaker.State(st.Circuit)}
}

// setState sets State and Circuit from the circuit and Mode.
func (st *KeyStatus) setState() {
	ks := StateOf(st.circuit, st.Mode, true)
	st.State, st.Circuit = ks.Name, string(ks.Circuit)
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
		circuit:              c,
		runTimes:             c.Totals.RunTimes,
	}
	if d := c.Disabled; d != nil {
		st.Mode = StateDisabled
		st.Disabled = &DisabledStatus{Since: jsonx.TimeOf(d.Since), User: d.User, Host: d.Host, PID: d.PID, Reason: d.Reason}
	}
	st.setState()
	st.Rule = Standing{Rule: "consecutive", Failures: c.ConsecutiveFailures}
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

// Severity is a circuit state as Prometheus exports it in
// guard_circuit_state: 0 closed, 1 half-open, 2 open.
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
	SortStatuses(out)
	return out, nil
}

// SortStatuses sorts sts most urgent first (see KeyState.Rank), then by
// key.
func SortStatuses(sts []KeyStatus) {
	sort.SliceStable(sts, func(i, j int) bool {
		if a, b := sts[i].KeyState().Rank(), sts[j].KeyState().Rank(); a != b {
			return a < b
		}
		return sts[i].Key < sts[j].Key
	})
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
// Keys longer than keyWidth are shortened in the middle (0: never, and each
// key's last error shown whole too, as status --wide asks). With color,
// states are coloured.
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
	commands := make([]string, len(sts))
	for i, st := range sts {
		commands[i] = st.Key
		if projects && st.Project != "" {
			commands[i] = strings.TrimSuffix(st.Key, circuit.ProjectSep+st.Project)
		}
		commands[i] = KeyText(commands[i])
	}
	shown := ShortenApart(commands, keyWidth)
	lastWidth := 80 // shortened in the middle (see LastError); --wide (no key width): whole
	if keyWidth <= 0 {
		lastWidth = 0
	}
	for i, st := range sts {
		state := st.KeyState().Word()
		if !st.known && st.State == StateClosed {
			state = "closed (no state)"
		}
		last := "-"
		if st.LastError != nil && st.State != StateDisabled {
			last = Printable(LastError(*st.LastError, lastWidth))
		}
		row := []string{state, st.Rule.Brief(), nextTry(st, now), st.DurationMS.Brief(), shown[i], last}
		if projects {
			project := "-"
			if st.Project != "" {
				project = st.Project
			}
			row = []string{row[0], row[1], row[2], row[3], row[4], Printable(project), last}
		}
		t.rows = append(t.rows, row)
		running += len(st.Running)
	}
	if color {
		t.color = func(row, col int) string {
			if col != 0 {
				return ""
			}
			return stateColor[sts[row].State]
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
var stateColor = map[string]string{
	StateOpen:     "\x1b[31m", // red
	StateForced:   "\x1b[31m",
	StateHalfOpen: "\x1b[33m", // yellow
	StateClosed:   "\x1b[32m", // green
	StateObserve:  "\x1b[36m", // cyan
}

// nextTry says when a key will run again.
func nextTry(st KeyStatus, now time.Time) string {
	if st.State == StateDisabled {
		return "every call runs"
	}
	switch breaker.State(st.Circuit) {
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
	if st.MaxConcurrent > 0 {
		return fmt.Sprintf("%d of %d slots in use", len(st.Running), st.MaxConcurrent)
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
