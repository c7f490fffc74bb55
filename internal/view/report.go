package view

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"guard/breaker"
	"guard/config"
	"guard/internal/jsonx"
	"guard/internal/store"
)

// A Report is 'guard report --format json'.
type Report struct {
	TotalHooks    int `json:"total_hooks"`
	ActiveHooks   int `json:"active_hooks"`
	DisabledHooks int `json:"disabled_hooks"`
	HalfOpenHooks int `json:"half_open_hooks"`
	// DisabledByHand counts the keys guard disable turned off (which the
	// Python guardrails' counts above count by their state underneath).
	DisabledByHand      int                      `json:"disabled_by_hand"`
	TotalExecutions     int64                    `json:"total_executions"`
	TotalFailures       int64                    `json:"total_failures"`
	DisabledHookDetails []HookDetail             `json:"disabled_hook_details"`
	HalfOpenHookDetails []HookDetail             `json:"half_open_hook_details"`
	GlobalStats         GlobalStats              `json:"global_stats"`
	Cooldown            map[string]ServiceStatus `json:"cooldown"`
	StateFile           string                   `json:"state_file"`
	GeneratedAt         jsonx.Time               `json:"generated_at"`
	// DurationMS sums up each key's run times in the event log.
	DurationMS map[string]*Durations `json:"duration_ms"`
}

type HookDetail struct {
	Command             string     `json:"command"`
	State               string     `json:"state"`
	FailureCount        int        `json:"failure_count"`
	ConsecutiveFailures int        `json:"consecutive_failures"`
	LastError           *string    `json:"last_error"`
	DisabledAt          jsonx.Time `json:"disabled_at"`
	RetryAfter          jsonx.Time `json:"retry_after"`
	OpenReason          *string    `json:"open_reason"`
	Forced              bool       `json:"forced"`
	Mode                string     `json:"mode,omitempty"` // "observe": nothing is skipped; "disabled": guard disable, every call runs
}

// GlobalStats are the totals over every key, as the Python guardrails'
// report has them.
type GlobalStats struct {
	TotalExecutions int64      `json:"total_executions"`
	TotalFailures   int64      `json:"total_failures"`
	HooksDisabled   int        `json:"hooks_disabled"`
	LastUpdated     jsonx.Time `json:"last_updated"`
}

// BuildReport builds the health report of the keys' statuses, with stats,
// for the state at where.
func BuildReport(sts []KeyStatus, stats store.Stats, where string, now time.Time) Report {
	r := Report{
		DisabledHookDetails: []HookDetail{},
		HalfOpenHookDetails: []HookDetail{},
		TotalExecutions:     stats.TotalExecutions,
		TotalFailures:       stats.TotalFailures,
		GlobalStats: GlobalStats{TotalExecutions: stats.TotalExecutions, TotalFailures: stats.TotalFailures,
			HooksDisabled: stats.HooksDisabled, LastUpdated: jsonx.TimeOf(stats.LastUpdated)},
		Cooldown:    map[string]ServiceStatus{},
		StateFile:   config.Redact(where),
		GeneratedAt: jsonx.TimeOf(now),
		DurationMS:  map[string]*Durations{},
	}
	for _, st := range sts {
		if st.DurationMS != nil {
			r.DurationMS[st.Key] = st.DurationMS
		}
		r.TotalHooks++
		d := HookDetail{
			Command: st.Key, State: st.State, FailureCount: st.FailureCount,
			ConsecutiveFailures: st.ConsecutiveFailures, LastError: st.LastError,
			DisabledAt: st.DisabledAt, RetryAfter: st.RetryAfter, OpenReason: st.OpenReason, Forced: st.Forced,
			Mode: st.Mode,
		}
		if st.Mode == string(breaker.Disabled) {
			r.DisabledByHand++
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

// spentBudgets lists the actions whose budgets are spent, sorted.
func spentBudgets(cool map[string]ServiceStatus) []string {
	var out []string
	for s, st := range cool {
		for a, v := range st.Actions {
			if v.InCooldown {
				out = append(out, fmt.Sprintf("%s %s (%d of %d in %s)", Printable(s), a, v.Used, v.Limit, v.Window))
			}
		}
	}
	sort.Strings(out)
	return out
}

// A tally counts the keys by what happens to their calls, as Prometheus's
// guard_circuits does: a key in observe mode whose circuit is not closed is
// neither open nor half-open, since its calls all run, but observe. (The
// JSON report keeps the Python guardrails' counts, which count it open.)
// A key disabled by hand (guard disable) is none of these either, but
// disabled, whatever its circuit underneath.
type tally struct{ active, open, halfOpen, observe, disabled int }

func (r Report) tally() tally {
	t := tally{open: r.DisabledHooks, halfOpen: r.HalfOpenHooks, disabled: r.DisabledByHand}
	for _, d := range r.DisabledHookDetails {
		switch d.Mode {
		case "observe":
			t.open--
			t.observe++
		case string(breaker.Disabled):
			t.open--
		}
	}
	for _, d := range r.HalfOpenHookDetails {
		switch d.Mode {
		case "observe":
			t.halfOpen--
			t.observe++
		case string(breaker.Disabled):
			t.halfOpen--
		}
	}
	t.active = r.TotalHooks - t.open - t.halfOpen - t.observe - t.disabled
	return t
}

// SlowestInReport is how many of the slowest hooks the text report lists.
const SlowestInReport = 5

func WriteText(w io.Writer, r Report, now time.Time) {
	fmt.Fprintf(w, "guard health report for %s\n\n", Printable(r.StateFile))
	t := r.tally()
	fmt.Fprintf(w, "  keys:       %d (%d active, %d open, %d half-open", r.TotalHooks, t.active, t.open, t.halfOpen)
	if t.observe > 0 {
		fmt.Fprintf(w, ", %d in observe mode: would skip, run anyway", t.observe)
	}
	if t.disabled > 0 {
		fmt.Fprintf(w, ", %d disabled by hand: every call runs", t.disabled)
	}
	fmt.Fprintf(w, ")\n")
	fmt.Fprintf(w, "  executions: %d, of which %d failed\n", r.TotalExecutions, r.TotalFailures)
	if spent := spentBudgets(r.Cooldown); len(spent) > 0 {
		fmt.Fprintf(w, "  cooldowns:  %s\n", strings.Join(spent, "; "))
	}
	if slow := Timings(r.DurationMS).Slowest(SlowestInReport); len(slow) > 0 {
		fmt.Fprintf(w, "  slowest:    ")
		for i, k := range slow {
			if i > 0 {
				fmt.Fprintf(w, "\n              ")
			}
			d := r.DurationMS[k]
			fmt.Fprintf(w, "%s p95 %s (p50 %s, max %s, %d runs)", ellipsize(KeyText(k), KeyWidth), ms(d.P95), ms(d.P50), ms(d.Max), d.Count)
		}
		fmt.Fprintln(w)
	}
	if r.DisabledHooks+r.HalfOpenHooks == 0 {
		fmt.Fprintf(w, "\nAll circuits are closed.\n")
		return
	}
	for _, group := range []struct {
		title   string
		details []HookDetail
	}{{"Open", r.DisabledHookDetails}, {"Half-open", r.HalfOpenHookDetails}} {
		for _, d := range group.details {
			title := group.title
			if d.Mode == "observe" {
				title += " (observe mode: would skip, runs anyway)"
			}
			if d.Mode == string(breaker.Disabled) {
				title += " (disabled by hand: every call runs until guard enable)"
			}
			fmt.Fprintf(w, "\n%s: %s\n", title, KeyText(d.Command))
			fmt.Fprintf(w, "  why:        %s\n", Printable(whyOpen(d)))
			fmt.Fprintf(w, "  failures:   %d since it last closed, %d in a row\n", d.FailureCount, d.ConsecutiveFailures)
			if d.LastError != nil {
				fmt.Fprintf(w, "  last error: %s\n", Printable(LastError(*d.LastError, 200)))
			}
			fmt.Fprintf(w, "  next:       %s\n", nextStep(d, now))
			fmt.Fprintf(w, "  to retry:   %s\n", ResetCommand(d.Command))
		}
	}
}

func whyOpen(d HookDetail) string {
	// A circuit another tool opened (the Python wrapper) has no reason.
	why := "failures"
	if d.OpenReason != nil && *d.OpenReason != "" {
		why = *d.OpenReason
	}
	switch {
	case d.Forced && why == "failures":
		return fmt.Sprintf("tripped by hand at %s", stamp(d.DisabledAt))
	case d.Forced:
		return fmt.Sprintf("tripped by hand at %s (%s)", stamp(d.DisabledAt), why)
	case d.State == string(breaker.HalfOpen):
		return fmt.Sprintf("opened at %s after %s; its cooldown has passed and probes are running", stamp(d.DisabledAt), why)
	}
	return fmt.Sprintf("opened at %s after %s", stamp(d.DisabledAt), why)
}

func nextStep(d HookDetail, now time.Time) string {
	switch {
	case d.State == string(breaker.HalfOpen):
		return "closes after enough successful probes, re-opens on a failed one"
	case d.RetryAfter.IsZero():
		return "stays open until reset"
	case d.RetryAfter.After(now):
		return fmt.Sprintf("probes in %s (at %s)", Until(d.RetryAfter.Time, now), stamp(d.RetryAfter))
	}
	return "the next call probes"
}

// TrailLength is how many of a key's latest events the markdown report
// shows.
const TrailLength = 15

// WriteMarkdown writes r as Markdown: a section for each open or half-open
// key, with its decision trail from events. A trail that cannot be read is
// left out, and the error returned after the report is written.
func WriteMarkdown(w io.Writer, r Report, events store.Events, now time.Time) error {
	fmt.Fprintf(w, "# guard health report\n\n")
	fmt.Fprintf(w, "Generated %s from %s.\n\n", stamp(r.GeneratedAt), mdCode(r.StateFile))
	// The observe column only when there are such keys, as the text has it.
	t := r.tally()
	if t.observe == 0 {
		fmt.Fprintf(w, "| keys | active | open | half-open | executions | failures |\n|---:|---:|---:|---:|---:|---:|\n")
		fmt.Fprintf(w, "| %d | %d | %d | %d | %d | %d |\n", r.TotalHooks, t.active, t.open, t.halfOpen, r.TotalExecutions, r.TotalFailures)
	} else {
		fmt.Fprintf(w, "| keys | active | open | half-open | observe mode, not closed | executions | failures |\n|---:|---:|---:|---:|---:|---:|---:|\n")
		fmt.Fprintf(w, "| %d | %d | %d | %d | %d | %d | %d |\n", r.TotalHooks, t.active, t.open, t.halfOpen, t.observe, r.TotalExecutions, r.TotalFailures)
	}
	if spent := spentBudgets(r.Cooldown); len(spent) > 0 {
		fmt.Fprintf(w, "\nAction budgets spent: %s.\n", mdText(strings.Join(spent, "; ")))
	}
	if slow := Timings(r.DurationMS).Slowest(0); len(slow) > 0 {
		fmt.Fprintf(w, "\n## Run times\n\n| key | runs | p50 | p95 | max |\n|---|---:|---:|---:|---:|\n")
		for _, k := range slow {
			d := r.DurationMS[k]
			fmt.Fprintf(w, "| %s | %d | %s | %s | %s |\n", mdCode(KeyText(k)), d.Count, ms(d.P50), ms(d.P95), ms(d.Max))
		}
	}
	details := append(append([]HookDetail{}, r.DisabledHookDetails...), r.HalfOpenHookDetails...)
	if len(details) == 0 {
		fmt.Fprintf(w, "\nAll circuits are closed.\n")
		return nil
	}
	trail, readErr := trails(events, details)
	for _, d := range details {
		title := "Open"
		if d.State == string(breaker.HalfOpen) {
			title = "Half-open"
		}
		if d.Mode == "observe" {
			title += " (observe mode: would skip, runs anyway)"
		}
		fmt.Fprintf(w, "\n## %s: %s\n\n", title, mdCode(KeyText(d.Command)))
		fmt.Fprintf(w, "- **Why:** %s\n", mdText(whyOpen(d)))
		fmt.Fprintf(w, "- **Failures:** %d since it last closed, %d in a row\n", d.FailureCount, d.ConsecutiveFailures)
		if d.LastError != nil {
			fmt.Fprintf(w, "- **Last error:** %s\n", mdCode(LastError(*d.LastError, 200)))
		}
		fmt.Fprintf(w, "- **Next:** %s\n", mdText(nextStep(d, now)))
		fmt.Fprintf(w, "- **To retry:** %s\n", mdCode(ResetCommand(d.Command)))
		evs := trail[d.Command]
		if len(evs) == 0 {
			fmt.Fprintf(w, "\nNo events in the log for this key.\n")
			continue
		}
		if len(evs) > TrailLength {
			evs = evs[len(evs)-TrailLength:]
		}
		fmt.Fprintf(w, "\n### Decision trail\n\n| time (UTC) | event | details |\n|---|---|---|\n")
		for _, ev := range evs {
			fmt.Fprintf(w, "| %s | %s | %s |\n", ev.Time.UTC().Format(jsonx.TimeLayout), ev.Event, mdCell(DescribeEvent(&ev)))
		}
	}
	if readErr != nil {
		return fmt.Errorf("decision trails left out: %w", readErr)
	}
	return nil
}

// mdCode writes s as a Markdown code span, with a fence longer than any run
// of backticks in s.
func mdCode(s string) string {
	s = Printable(s)
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
func mdText(s string) string { return mdEscaper.Replace(Printable(s)) }

// mdCell escapes s for a table cell.
func mdCell(s string) string { return mdText(s) }

// trails reads the last TrailLength events of each key of details: a query
// a key where the log answers queries itself (a database, on an index), else
// one read of the log for them all.
func trails(events store.Events, details []HookDetail) (map[string][]store.Event, error) {
	trail := map[string][]store.Event{}
	var keys []string
	for _, d := range details {
		keys = append(keys, d.Command)
	}
	if _, ok := events.(store.Querier); !ok {
		res, err := store.Select(events, store.Query{Keys: keys})
		for _, ev := range res.Events {
			trail[ev.Key] = append(trail[ev.Key], ev)
		}
		return trail, err
	}
	for _, k := range keys {
		res, err := store.Select(events, store.Query{Keys: []string{k}, Limit: TrailLength})
		if err != nil {
			return trail, err
		}
		trail[k] = res.Events
	}
	return trail, nil
}
