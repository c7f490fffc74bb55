package main

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"text/tabwriter"
	"time"

	"github.com/urfave/cli/v2"

	"guard/breaker"
	"guard/bulkhead"
	"guard/hookstate"
	"guard/statefile"
	"guard/supervise"
)

func (e *env) statusCommand() *cli.Command {
	return &cli.Command{
		Name:      "status",
		Usage:     "show each key's circuit: state, failures, last error, next try",
		ArgsUsage: "[KEY...]",
		Description: `Prints one line per key (all keys, or the ones named): open circuits first,
then half-open, then closed. It reads the state file without taking the lock.

--json prints an array of objects, one per key, with: key, state ("closed",
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
		}, stateFlags()...),
		Action: e.status,
	}
}

// A keyStatus is one element of 'guard status --json'.
type keyStatus struct {
	Key                  string           `json:"key"`
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
func statuses(doc *hookstate.Document, keys []string, runs []bulkhead.Run, now time.Time) []keyStatus {
	byKey := map[string][]bulkhead.Run{}
	for _, r := range runs {
		byKey[r.Key] = append(byKey[r.Key], r)
	}
	if len(keys) == 0 {
		keys = doc.Keys()
		for k := range byKey {
			if doc.Hooks[k] == nil {
				keys = append(keys, k)
			}
		}
	}
	out := make([]keyStatus, 0, len(keys))
	for _, k := range keys {
		var totals hookstate.Totals
		h := doc.Hooks[k]
		if h != nil {
			totals = h.Totals
		}
		st := statusOf(k, doc.Circuit(k), totals, byKey[k], now)
		st.known = h != nil
		out = append(out, st)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if a, b := stateRank(out[i].State), stateRank(out[j].State); a != b {
			return a < b
		}
		return out[i].Key < out[j].Key
	})
	return out
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
	sts := statuses(doc, c.Args().Slice(), inFlight(store), now)
	if c.Bool("json") {
		return writeJSON(e.stdout, sts)
	}
	if len(sts) == 0 {
		fmt.Fprintf(e.stdout, "no keys yet in %s\n", store.Path())
		return nil
	}
	statusTable(e.stdout, sts, now)
	return nil
}

// statusTable prints statuses as an aligned table, then the runs in flight.
func statusTable(w io.Writer, sts []keyStatus, now time.Time) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "STATE\tFAILURES\tNEXT\tKEY\tLAST ERROR")
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
			last = lastError(*st.LastError, 60)
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\n", state, st.FailureCount, nextTry(st, now), st.Key, last)
		running += len(st.Running)
	}
	tw.Flush()
	if running == 0 {
		return
	}
	fmt.Fprintf(w, "\nIn flight:\n")
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "PID\tRUNNING\tTIME LEFT\tKEY")
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
			fmt.Fprintf(tw, "%d\t%s\t%s\t%s\n", pid, (time.Duration(r.ElapsedMS) * time.Millisecond).Truncate(time.Second), left, st.Key)
		}
	}
	tw.Flush()
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
