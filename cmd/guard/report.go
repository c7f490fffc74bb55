package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"guard/breaker"
	"guard/config"
	"guard/eventlog"
	"guard/hookstate"
	"guard/runproto"
	"guard/statefile"
)

func (e *env) reportCommand() *cli.Command {
	return &cli.Command{
		Name:  "report",
		Usage: "the health report: totals, and why each open circuit is open",
		Description: `Summarises every key: how many there are, how many are active (closed),
open or half-open, the total runs and failures, and for each open or half-open
key why it opened, its last error and when it will be tried again; then the
services whose action budgets are spent.

--format json prints the Python guardrails' health report fields
(total_hooks, active_hooks, disabled_hooks, total_executions,
total_failures, disabled_hook_details, global_stats) plus half_open_hooks,
half_open_hook_details and cooldown: an object of services, each as the
services member of 'guard cooldown status --json' has it (in_cooldown,
consecutive_healthy and each action's budget). disabled_hooks counts open circuits;
each detail has command, state, failure_count, consecutive_failures,
last_error, disabled_at, retry_after, open_reason and forced.

--format markdown gives a section for each open or half-open key, with its
decision trail from the event log. --format prometheus writes the metrics
for node_exporter's textfile collector: guard_circuit_state{key},
guard_runs_total{key,outcome}, guard_skips_total{key},
guard_cooldown_used{service,action} and more, with HELP and TYPE lines.
--output writes the report to a file atomically (a temp file renamed into
place), as the textfile collector needs.

Examples:
   guard report
   guard report --format json | jq .disabled_hook_details
   guard report --format markdown > guard-report.md
   guard report --format prometheus --output /var/lib/node_exporter/textfile_collector/guard.prom`,
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "format", Value: "text", Usage: "text, json, markdown or prometheus"},
			&cli.StringFlag{Name: "output", Usage: "write to `FILE` atomically instead of stdout"},
		}, stateFlags()...),
		Action: e.report,
	}
}

// A healthReport is 'guard report --format json'.
type healthReport struct {
	TotalHooks          int                      `json:"total_hooks"`
	ActiveHooks         int                      `json:"active_hooks"`
	DisabledHooks       int                      `json:"disabled_hooks"`
	HalfOpenHooks       int                      `json:"half_open_hooks"`
	TotalExecutions     int64                    `json:"total_executions"`
	TotalFailures       int64                    `json:"total_failures"`
	DisabledHookDetails []hookDetail             `json:"disabled_hook_details"`
	HalfOpenHookDetails []hookDetail             `json:"half_open_hook_details"`
	GlobalStats         hookstate.GlobalStats    `json:"global_stats"`
	Cooldown            map[string]serviceStatus `json:"cooldown"`
	StateFile           string                   `json:"state_file"`
	GeneratedAt         statefile.Time           `json:"generated_at"`
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

func buildReport(sts []keyStatus, doc *hookstate.Document, path string, now time.Time) healthReport {
	r := healthReport{
		DisabledHookDetails: []hookDetail{},
		HalfOpenHookDetails: []hookDetail{},
		TotalExecutions:     doc.GlobalStats.TotalExecutions,
		TotalFailures:       doc.GlobalStats.TotalFailures,
		GlobalStats:         doc.GlobalStats,
		Cooldown:            map[string]serviceStatus{},
		StateFile:           path,
		GeneratedAt:         statefile.TimeOf(now),
	}
	for _, st := range sts {
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
	switch format {
	case "text", "json", "markdown", "prometheus":
	default:
		return usagef("--format must be text, json, markdown or prometheus, got %q", format)
	}
	cfg, store, doc, err := e.snapshot(c)
	if err != nil {
		return err
	}
	now := e.now()
	sts, err := statuses(doc, nil, nil, now)
	if err != nil {
		return fmt.Errorf("%w; the next guard run will move it aside", err)
	}
	e.warnAside(doc)
	r := buildReport(sts, doc, store.Path(), now)
	if r.Cooldown, err = e.cooldownReport(cfg, now); err != nil {
		e.warnf("cooldown budgets left out of the report: %v", oneLine(err))
		r.Cooldown = map[string]serviceStatus{}
	}

	var buf bytes.Buffer
	switch format {
	case "json":
		err = writeJSON(&buf, r)
	case "prometheus":
		err = writeProm(&buf, promReport(r, sts, r.Cooldown))
	case "markdown":
		logs := []*eventlog.Log{store.Log(), eventLog(cfg, cfg.Cooldown.StateFile)}
		err = e.writeMarkdownReport(&buf, r, logs, now)
	default:
		writeTextReport(&buf, r, now)
	}
	if err != nil {
		return err
	}
	if out := c.String("output"); out != "" {
		if err := statefile.WriteFile(out, buf.Bytes(), 0o644, nil); err != nil {
			return fmt.Errorf("cannot write report: %w", err)
		}
		return nil
	}
	_, err = e.stdout.Write(buf.Bytes())
	return err
}

// cooldownReport returns the budgets of every service in the cooldown
// state, or none if there is no cooldown state.
func (e *env) cooldownReport(cfg *config.Config, now time.Time) (map[string]serviceStatus, error) {
	if _, err := os.Stat(cfg.Cooldown.StateFile); err != nil {
		return map[string]serviceStatus{}, nil
	}
	cd, err := e.openCooldownAt(cfg, cfg.Cooldown.StateFile)
	if err != nil {
		return nil, err
	}
	doc, err := cd.store.Snapshot()
	if err != nil {
		return nil, err
	}
	return cd.statuses(doc, doc.ServiceNames(), now)
}

// spentBudgets lists the actions whose budgets are spent, sorted.
func spentBudgets(cool map[string]serviceStatus) []string {
	var out []string
	for s, st := range cool {
		for a, v := range st.Actions {
			if v.InCooldown {
				out = append(out, fmt.Sprintf("%s %s (%d of %d in %s)", s, a, v.Used, v.Limit, v.Window))
			}
		}
	}
	sort.Strings(out)
	return out
}

func writeTextReport(w io.Writer, r healthReport, now time.Time) {
	fmt.Fprintf(w, "guard health report for %s\n\n", r.StateFile)
	fmt.Fprintf(w, "  keys:       %d (%d active, %d open, %d half-open)\n", r.TotalHooks, r.ActiveHooks, r.DisabledHooks, r.HalfOpenHooks)
	fmt.Fprintf(w, "  executions: %d, of which %d failed\n", r.TotalExecutions, r.TotalFailures)
	if spent := spentBudgets(r.Cooldown); len(spent) > 0 {
		fmt.Fprintf(w, "  cooldowns:  %s\n", strings.Join(spent, "; "))
	}
	if r.DisabledHooks+r.HalfOpenHooks == 0 {
		fmt.Fprintf(w, "\nAll circuits are closed.\n")
		return
	}
	for _, group := range []struct {
		title   string
		details []hookDetail
	}{{"Open", r.DisabledHookDetails}, {"Half-open", r.HalfOpenHookDetails}} {
		for _, d := range group.details {
			fmt.Fprintf(w, "\n%s: %s\n", group.title, printable(d.Command))
			fmt.Fprintf(w, "  why:        %s\n", whyOpen(d))
			fmt.Fprintf(w, "  failures:   %d since it last closed, %d in a row\n", d.FailureCount, d.ConsecutiveFailures)
			if d.LastError != nil {
				fmt.Fprintf(w, "  last error: %s\n", printable(lastError(*d.LastError, 200)))
			}
			fmt.Fprintf(w, "  next:       %s\n", nextStep(d, now))
			fmt.Fprintf(w, "  to retry:   guard reset %s\n", printable(runproto.KeyArg(d.Command)))
		}
	}
}

func whyOpen(d hookDetail) string {
	why := "after failures"
	if d.OpenReason != nil {
		why = *d.OpenReason
	}
	switch {
	case d.Forced:
		return fmt.Sprintf("tripped by hand at %s (%s)", stamp(d.DisabledAt), why)
	case d.State == string(breaker.HalfOpen):
		return fmt.Sprintf("opened at %s after %s; its cooldown has passed and probes are running", stamp(d.DisabledAt), why)
	}
	return fmt.Sprintf("opened at %s after %s", stamp(d.DisabledAt), why)
}

func nextStep(d hookDetail, now time.Time) string {
	switch {
	case d.State == string(breaker.HalfOpen):
		return "closes after enough successful probes, re-opens on a failed one"
	case d.RetryAfter.IsZero():
		return "stays open until reset"
	case d.RetryAfter.After(now):
		return fmt.Sprintf("probes in %s (at %s)", until(d.RetryAfter.Time, now), stamp(d.RetryAfter))
	}
	return "the next call probes"
}

// trailLength is how many of a key's latest events the markdown report
// shows.
const trailLength = 15

func (e *env) writeMarkdownReport(w io.Writer, r healthReport, logs []*eventlog.Log, now time.Time) error {
	fmt.Fprintf(w, "# guard health report\n\n")
	fmt.Fprintf(w, "Generated %s from `%s`.\n\n", stamp(r.GeneratedAt), r.StateFile)
	fmt.Fprintf(w, "| keys | active | open | half-open | executions | failures |\n|---:|---:|---:|---:|---:|---:|\n")
	fmt.Fprintf(w, "| %d | %d | %d | %d | %d | %d |\n", r.TotalHooks, r.ActiveHooks, r.DisabledHooks, r.HalfOpenHooks, r.TotalExecutions, r.TotalFailures)
	if spent := spentBudgets(r.Cooldown); len(spent) > 0 {
		fmt.Fprintf(w, "\nAction budgets spent: %s.\n", mdText(strings.Join(spent, "; ")))
	}
	details := append(append([]hookDetail{}, r.DisabledHookDetails...), r.HalfOpenHookDetails...)
	if len(details) == 0 {
		fmt.Fprintf(w, "\nAll circuits are closed.\n")
		return nil
	}
	var trail map[string][]eventlog.Event
	wanted := map[string]bool{}
	for _, d := range details {
		wanted[d.Command] = true
	}
	res, err := eventlog.Read(logs, func(ev *eventlog.Event) bool { return wanted[ev.Key] })
	if err != nil {
		e.warnf("decision trails left out: %v", oneLine(err))
	}
	trail = map[string][]eventlog.Event{}
	for _, ev := range res.Events {
		trail[ev.Key] = append(trail[ev.Key], ev)
	}
	for _, d := range details {
		title := "Open"
		if d.State == string(breaker.HalfOpen) {
			title = "Half-open"
		}
		fmt.Fprintf(w, "\n## %s: %s\n\n", title, mdCode(d.Command))
		fmt.Fprintf(w, "- **Why:** %s\n", mdText(whyOpen(d)))
		fmt.Fprintf(w, "- **Failures:** %d since it last closed, %d in a row\n", d.FailureCount, d.ConsecutiveFailures)
		if d.LastError != nil {
			fmt.Fprintf(w, "- **Last error:** %s\n", mdCode(lastError(*d.LastError, 200)))
		}
		fmt.Fprintf(w, "- **Next:** %s\n", mdText(nextStep(d, now)))
		fmt.Fprintf(w, "- **To retry:** %s\n", mdCode("guard reset "+runproto.KeyArg(d.Command)))
		evs := trail[d.Command]
		if len(evs) == 0 {
			fmt.Fprintf(w, "\nNo events in the log for this key.\n")
			continue
		}
		if len(evs) > trailLength {
			evs = evs[len(evs)-trailLength:]
		}
		fmt.Fprintf(w, "\n### Decision trail\n\n| time (UTC) | event | details |\n|---|---|---|\n")
		for _, ev := range evs {
			fmt.Fprintf(w, "| %s | %s | %s |\n", ev.Time.UTC().Format(statefile.TimeLayout), ev.Event, mdCell(describeEvent(&ev)))
		}
	}
	return nil
}

// mdCode writes s as a Markdown code span, with a fence longer than any run
// of backticks in s.
func mdCode(s string) string {
	s = printable(s)
	fence := "`"
	for strings.Contains(s, fence) {
		fence += "`"
	}
	s = strings.ReplaceAll(s, "\n", " ")
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		s = " " + s + " "
	}
	return fence + s + fence
}

var mdEscaper = strings.NewReplacer(`\`, `\\`, "`", "\\`", "*", `\*`, "_", `\_`, "[", `\[`, "]", `\]`, "<", `\<`, ">", `\>`, "|", `\|`, "#", `\#`, "\n", " ")

// mdText escapes s as Markdown text.
func mdText(s string) string { return mdEscaper.Replace(printable(s)) }

// mdCell escapes s for a table cell.
func mdCell(s string) string { return mdText(s) }

func stamp(t statefile.Time) string {
	if t.IsZero() {
		return "an unknown time"
	}
	return t.UTC().Format(statefile.TimeLayout)
}
