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
reopen_count, probe_leases ([{pid, acquired, expires, alive}]), last_run and
totals ({successes, failures, ignored, cancelled, abandoned, skips}).

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
	LastRun              statefile.Time   `json:"last_run"`
	Totals               hookstate.Totals `json:"totals"`
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

func statusOf(key string, c breaker.Circuit, totals hookstate.Totals) keyStatus {
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

// statuses returns the status of keys (all keys if none), most urgent first.
func statuses(doc *hookstate.Document, keys []string) []keyStatus {
	if len(keys) == 0 {
		keys = doc.Keys()
	}
	out := make([]keyStatus, 0, len(keys))
	for _, k := range keys {
		var totals hookstate.Totals
		if h := doc.Hooks[k]; h != nil {
			totals = h.Totals
		}
		out = append(out, statusOf(k, doc.Circuit(k), totals))
	}
	sort.SliceStable(out, func(i, j int) bool {
		if a, b := stateRank(out[i].State), stateRank(out[j].State); a != b {
			return a < b
		}
		return out[i].Key < out[j].Key
	})
	return out
}

func (e *env) status(c *cli.Context) error {
	_, store, doc, err := e.snapshot(c)
	if err != nil {
		return err
	}
	sts := statuses(doc, c.Args().Slice())
	if c.Bool("json") {
		return writeJSON(e.stdout, sts)
	}
	if len(sts) == 0 {
		fmt.Fprintf(e.stdout, "no keys yet in %s\n", store.Path())
		return nil
	}
	e.statusTable(e.stdout, sts, doc)
	return nil
}

// statusTable prints statuses as an aligned table.
func (e *env) statusTable(w io.Writer, sts []keyStatus, doc *hookstate.Document) {
	now := e.now()
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "STATE\tFAILURES\tNEXT\tKEY\tLAST ERROR")
	for _, st := range sts {
		state := st.State
		if _, known := doc.Hooks[st.Key]; !known {
			state = "closed (no state)"
		} else if st.Forced {
			state += " (forced)"
		}
		last := "-"
		if st.LastError != nil {
			last = lastError(*st.LastError, 60)
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\n", state, st.FailureCount, nextTry(st, now), st.Key, last)
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
