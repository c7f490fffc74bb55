package main

import (
	"fmt"
	"io"
	"time"

	"github.com/urfave/cli/v2"

	"guard/breaker"
	"guard/hookstate"
	"guard/statefile"
)

func (e *env) reportCommand() *cli.Command {
	return &cli.Command{
		Name:  "report",
		Usage: "the health report: totals, and why each open circuit is open",
		Description: `Summarises every key: how many there are, how many are active (closed),
open or half-open, the total runs and failures, and for each open or half-open
key why it opened, its last error and when it will be tried again.

--format json prints the Python guardrails' health report fields
(total_hooks, active_hooks, disabled_hooks, total_executions,
total_failures, disabled_hook_details, global_stats) plus half_open_hooks
and half_open_hook_details. disabled_hooks counts open circuits; each detail
has command, state, failure_count, consecutive_failures, last_error,
disabled_at, retry_after, open_reason and forced.

Examples:
   guard report
   guard report --format json | jq .disabled_hook_details`,
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "format", Value: "text", Usage: "text or json"},
		}, stateFlags()...),
		Action: e.report,
	}
}

// A healthReport is 'guard report --format json'.
type healthReport struct {
	TotalHooks          int                   `json:"total_hooks"`
	ActiveHooks         int                   `json:"active_hooks"`
	DisabledHooks       int                   `json:"disabled_hooks"`
	HalfOpenHooks       int                   `json:"half_open_hooks"`
	TotalExecutions     int64                 `json:"total_executions"`
	TotalFailures       int64                 `json:"total_failures"`
	DisabledHookDetails []hookDetail          `json:"disabled_hook_details"`
	HalfOpenHookDetails []hookDetail          `json:"half_open_hook_details"`
	GlobalStats         hookstate.GlobalStats `json:"global_stats"`
	StateFile           string                `json:"state_file"`
	GeneratedAt         statefile.Time        `json:"generated_at"`
}

type hookDetail struct {
	Command             string         `json:"command"`
	State               string         `json:"state"`
	FailureCount        int            `json:"failure_count"`
	ConsecutiveFailures int            `json:"consecutive_failures"`
	LastError           *string        `json:"last_error"`
	DisabledAt          statefile.Time `json:"disabled_at"`
	RetryAfter          statefile.Time `json:"retry_after"`
	OpenReason          *string        `json:"open_reason"`
	Forced              bool           `json:"forced"`
}

func buildReport(doc *hookstate.Document, path string, now time.Time) healthReport {
	r := healthReport{
		DisabledHookDetails: []hookDetail{},
		HalfOpenHookDetails: []hookDetail{},
		TotalExecutions:     doc.GlobalStats.TotalExecutions,
		TotalFailures:       doc.GlobalStats.TotalFailures,
		GlobalStats:         doc.GlobalStats,
		StateFile:           path,
		GeneratedAt:         statefile.TimeOf(now),
	}
	for _, st := range statuses(doc, nil, nil, now) {
		r.TotalHooks++
		d := hookDetail{
			Command: st.Key, State: st.State, FailureCount: st.FailureCount,
			ConsecutiveFailures: st.ConsecutiveFailures, LastError: st.LastError,
			DisabledAt: st.DisabledAt, RetryAfter: st.RetryAfter, OpenReason: st.OpenReason, Forced: st.Forced,
		}
		switch breaker.State(st.State) {
		case breaker.Open:
			r.DisabledHooks++
			r.DisabledHookDetails = append(r.DisabledHookDetails, d)
		case breaker.HalfOpen:
			r.HalfOpenHooks++
			r.HalfOpenHookDetails = append(r.HalfOpenHookDetails, d)
		default:
			r.ActiveHooks++
		}
	}
	return r
}

func (e *env) report(c *cli.Context) error {
	format := c.String("format")
	if format != "text" && format != "json" {
		return usagef("--format must be text or json, got %q", format)
	}
	_, store, doc, err := e.snapshot(c)
	if err != nil {
		return err
	}
	now := e.now()
	r := buildReport(doc, store.Path(), now)
	if format == "json" {
		return writeJSON(e.stdout, r)
	}
	writeTextReport(e.stdout, r, now)
	return nil
}

func writeTextReport(w io.Writer, r healthReport, now time.Time) {
	fmt.Fprintf(w, "guard health report for %s\n\n", r.StateFile)
	fmt.Fprintf(w, "  keys:       %d (%d active, %d open, %d half-open)\n", r.TotalHooks, r.ActiveHooks, r.DisabledHooks, r.HalfOpenHooks)
	fmt.Fprintf(w, "  executions: %d, of which %d failed\n", r.TotalExecutions, r.TotalFailures)
	if r.DisabledHooks+r.HalfOpenHooks == 0 {
		fmt.Fprintf(w, "\nAll circuits are closed.\n")
		return
	}
	for _, group := range []struct {
		title   string
		details []hookDetail
	}{{"Open", r.DisabledHookDetails}, {"Half-open", r.HalfOpenHookDetails}} {
		for _, d := range group.details {
			fmt.Fprintf(w, "\n%s: %s\n", group.title, d.Command)
			why := "after failures"
			if d.OpenReason != nil {
				why = *d.OpenReason
			}
			switch {
			case d.Forced:
				fmt.Fprintf(w, "  why:        tripped by hand at %s (%s)\n", stamp(d.DisabledAt), why)
			case d.State == string(breaker.HalfOpen):
				fmt.Fprintf(w, "  why:        opened at %s after %s; its cooldown has passed and probes are running\n", stamp(d.DisabledAt), why)
			default:
				fmt.Fprintf(w, "  why:        opened at %s after %s\n", stamp(d.DisabledAt), why)
			}
			fmt.Fprintf(w, "  failures:   %d since it last closed, %d in a row\n", d.FailureCount, d.ConsecutiveFailures)
			if d.LastError != nil {
				fmt.Fprintf(w, "  last error: %s\n", lastError(*d.LastError, 200))
			}
			switch {
			case d.State == string(breaker.HalfOpen):
				fmt.Fprintf(w, "  next:       closes after enough successful probes, re-opens on a failed one\n")
			case d.RetryAfter.IsZero():
				fmt.Fprintf(w, "  next:       stays open until reset\n")
			case d.RetryAfter.After(now):
				fmt.Fprintf(w, "  next:       probes in %s (at %s)\n", until(d.RetryAfter.Time, now), stamp(d.RetryAfter))
			default:
				fmt.Fprintf(w, "  next:       the next call probes\n")
			}
			fmt.Fprintf(w, "  to retry:   guard reset %s\n", keyArg(d.Command))
		}
	}
}

func stamp(t statefile.Time) string {
	if t.IsZero() {
		return "an unknown time"
	}
	return t.UTC().Format(statefile.TimeLayout)
}
