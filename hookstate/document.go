package hookstate

import (
	"encoding/json"
	"sort"
	"time"

	"guard/breaker"
	"guard/eventlog"
	"guard/statefile"
)

// Version is the document version this guard writes.
const Version = 1

// A Document is the whole of hook_state.json. Its zero value is an empty
// state. Members guard does not know are kept, at every level.
type Document struct {
	Version     int              `json:"version"`
	Hooks       map[string]*Hook `json:"hooks"`
	GlobalStats GlobalStats      `json:"global_stats"`
	Extra       statefile.Extra  `json:"-"`

	pending []eventlog.Event // to log with the next write; see Note
}

// GlobalStats are the Python guardrails' totals over every key.
type GlobalStats struct {
	TotalExecutions int64           `json:"total_executions"`
	TotalFailures   int64           `json:"total_failures"`
	HooksDisabled   int             `json:"hooks_disabled"` // keys now open
	LastUpdated     statefile.Time  `json:"last_updated"`
	Extra           statefile.Extra `json:"-"`
}

// A Hook is one key's entry. The fields up to RetryAfter are the Python
// guardrails' own, with their names and meanings, so that its CLI can read
// a file guard wrote; the rest are guard's.
type Hook struct {
	State                string         `json:"state"`
	FailureCount         int            `json:"failure_count"`
	ConsecutiveFailures  int            `json:"consecutive_failures"`
	ConsecutiveSuccesses int            `json:"consecutive_successes"`
	FirstFailure         statefile.Time `json:"first_failure"`
	LastFailure          statefile.Time `json:"last_failure"`
	LastSuccess          statefile.Time `json:"last_success"`
	LastError            *string        `json:"last_error"`
	DisabledAt           statefile.Time `json:"disabled_at"`
	RetryAfter           statefile.Time `json:"retry_after"`

	ReopenCount  int              `json:"reopen_count,omitempty"`  // re-opens in a row: the back-off exponent
	OpenReason   string           `json:"open_reason,omitempty"`   // why it last opened
	Forced       bool             `json:"forced,omitempty"`        // tripped by hand
	FailureTimes []statefile.Time `json:"failure_times,omitempty"` // failures inside failure_window
	ProbeLeases  []Lease          `json:"probe_leases,omitempty"`  // probes running now
	LastRun      statefile.Time   `json:"last_run,omitzero"`       // last outcome recorded
	Totals       Totals           `json:"totals"`
	Extra        statefile.Extra  `json:"-"`
}

// A Lease is a probe lease as the file stores it.
type Lease struct {
	PID        int             `json:"pid"`
	StartTicks uint64          `json:"start_ticks,omitempty"` // the holder's start time in clock ticks since boot
	Acquired   statefile.Time  `json:"acquired"`
	Expires    statefile.Time  `json:"expires"` // null: only a dead holder ends it
	Extra      statefile.Extra `json:"-"`
}

// Totals count every outcome a key has seen; they survive reset.
type Totals struct {
	Successes int64           `json:"successes"`
	Failures  int64           `json:"failures"`
	Ignored   int64           `json:"ignored"`
	Cancelled int64           `json:"cancelled"`
	Abandoned int64           `json:"abandoned"`
	Skips     int64           `json:"skips"`
	Rejected  int64           `json:"rejected"`
	Extra     statefile.Extra `json:"-"`
}

// The JSON methods keep unknown members. Each decodes through a copy of its
// type without methods, so that encoding/json does the field work.

func (d *Document) UnmarshalJSON(b []byte) error {
	type plain Document
	return statefile.UnmarshalObject(b, (*plain)(d), &d.Extra)
}

func (d Document) MarshalJSON() ([]byte, error) {
	type plain Document
	if d.Hooks == nil {
		d.Hooks = map[string]*Hook{}
	}
	return statefile.MarshalObject(plain(d), d.Extra)
}

func (g *GlobalStats) UnmarshalJSON(b []byte) error {
	type plain GlobalStats
	return statefile.UnmarshalObject(b, (*plain)(g), &g.Extra)
}

func (g GlobalStats) MarshalJSON() ([]byte, error) {
	type plain GlobalStats
	return statefile.MarshalObject(plain(g), g.Extra)
}

func (h *Hook) UnmarshalJSON(b []byte) error {
	type plain Hook
	return statefile.UnmarshalObject(b, (*plain)(h), &h.Extra)
}

func (h Hook) MarshalJSON() ([]byte, error) {
	type plain Hook
	return statefile.MarshalObject(plain(h), h.Extra)
}

func (l *Lease) UnmarshalJSON(b []byte) error {
	type plain Lease
	return statefile.UnmarshalObject(b, (*plain)(l), &l.Extra)
}

func (l Lease) MarshalJSON() ([]byte, error) {
	type plain Lease
	return statefile.MarshalObject(plain(l), l.Extra)
}

func (t *Totals) UnmarshalJSON(b []byte) error {
	type plain Totals
	return statefile.UnmarshalObject(b, (*plain)(t), &t.Extra)
}

func (t Totals) MarshalJSON() ([]byte, error) {
	type plain Totals
	return statefile.MarshalObject(plain(t), t.Extra)
}

var _ json.Marshaler = Document{}

// Circuit returns the breaker's view of h.
func (h *Hook) Circuit() breaker.Circuit {
	c := breaker.Circuit{
		State:                breaker.State(h.State),
		FailureCount:         h.FailureCount,
		ConsecutiveFailures:  h.ConsecutiveFailures,
		ConsecutiveSuccesses: h.ConsecutiveSuccesses,
		FirstFailure:         h.FirstFailure.Time,
		LastFailure:          h.LastFailure.Time,
		LastSuccess:          h.LastSuccess.Time,
		DisabledAt:           h.DisabledAt.Time,
		RetryAfter:           h.RetryAfter.Time,
		Reopens:              h.ReopenCount,
		OpenReason:           h.OpenReason,
		Forced:               h.Forced,
		LastRun:              h.LastRun.Time,
		Totals: breaker.Totals{
			Successes: h.Totals.Successes,
			Failures:  h.Totals.Failures,
			Ignored:   h.Totals.Ignored,
			Cancelled: h.Totals.Cancelled,
			Abandoned: h.Totals.Abandoned,
			Skips:     h.Totals.Skips,
			Rejected:  h.Totals.Rejected,
		},
	}
	if h.LastError != nil {
		c.LastError = *h.LastError
	}
	for _, t := range h.FailureTimes {
		c.Failures = append(c.Failures, t.Time)
	}
	for _, l := range h.ProbeLeases {
		c.Leases = append(c.Leases, breaker.Lease{PID: l.PID, Start: l.StartTicks, Acquired: l.Acquired.Time, Expires: l.Expires.Time})
	}
	return c
}

// setCircuit stores c in h, keeping the members of h that guard does not
// know, including those of leases that are still held.
func (h *Hook) setCircuit(c breaker.Circuit) {
	h.State = string(c.State)
	if h.State == "" {
		h.State = string(breaker.Closed)
	}
	h.FailureCount = c.FailureCount
	h.ConsecutiveFailures = c.ConsecutiveFailures
	h.ConsecutiveSuccesses = c.ConsecutiveSuccesses
	h.FirstFailure = statefile.TimeOf(c.FirstFailure)
	h.LastFailure = statefile.TimeOf(c.LastFailure)
	h.LastSuccess = statefile.TimeOf(c.LastSuccess)
	h.LastError = nil
	if c.LastError != "" {
		msg := c.LastError
		h.LastError = &msg
	}
	h.DisabledAt = statefile.TimeOf(c.DisabledAt)
	h.RetryAfter = statefile.TimeOf(ceilSecond(c.RetryAfter))
	h.ReopenCount = c.Reopens
	h.OpenReason = c.OpenReason
	h.Forced = c.Forced
	h.LastRun = statefile.TimeOf(c.LastRun)
	h.Totals = Totals{
		Successes: c.Totals.Successes,
		Failures:  c.Totals.Failures,
		Ignored:   c.Totals.Ignored,
		Cancelled: c.Totals.Cancelled,
		Abandoned: c.Totals.Abandoned,
		Skips:     c.Totals.Skips,
		Rejected:  c.Totals.Rejected,
		Extra:     h.Totals.Extra,
	}
	h.FailureTimes = nil
	for _, t := range c.Failures {
		h.FailureTimes = append(h.FailureTimes, statefile.TimeOf(t))
	}
	old := h.ProbeLeases
	h.ProbeLeases = nil
	for _, l := range c.Leases {
		wl := Lease{PID: l.PID, StartTicks: l.Start, Acquired: statefile.TimeOf(l.Acquired), Expires: statefile.TimeOf(ceilSecond(l.Expires))}
		for _, o := range old {
			if o.PID == l.PID && o.StartTicks == l.Start {
				wl.Extra = o.Extra
			}
		}
		h.ProbeLeases = append(h.ProbeLeases, wl)
	}
}

// ceilSecond rounds a deadline up to the second, the precision the file
// keeps, so that storing it never makes it come early.
func ceilSecond(t time.Time) time.Time {
	if r := t.Truncate(time.Second); !r.Equal(t) {
		return r.Add(time.Second)
	}
	return t
}

// lastActivity returns the latest time anything happened to h.
func (h *Hook) lastActivity() time.Time {
	var t time.Time
	for _, u := range []statefile.Time{h.LastRun, h.LastSuccess, h.LastFailure, h.DisabledAt} {
		if u.After(t) {
			t = u.Time
		}
	}
	return t
}

// Keys returns the keys in the document, sorted.
func (d *Document) Keys() []string {
	keys := make([]string, 0, len(d.Hooks))
	for k := range d.Hooks {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// Circuit returns the circuit of key; a key with no entry has a closed one.
func (d *Document) Circuit(key string) breaker.Circuit {
	if h := d.Hooks[key]; h != nil {
		return h.Circuit()
	}
	return breaker.Circuit{}
}

// put stores c as key's circuit.
func (d *Document) put(key string, c breaker.Circuit) {
	if d.Hooks == nil {
		d.Hooks = map[string]*Hook{}
	}
	h := d.Hooks[key]
	if h == nil {
		h = &Hook{}
		d.Hooks[key] = h
	}
	h.setCircuit(c)
}
