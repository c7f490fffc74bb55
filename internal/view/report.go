package view

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"guard/breaker"
	"guard/config"
	"guard/internal/circuit"
	"guard/internal/jsonx"
	"guard/internal/store"
)

// A Report is 'guard report --format json'.
type Report struct {
	TotalHooks  int `json:"total_hooks"`
	ActiveHooks int `json:"active_hooks"`
	// DisabledByHand counts the keys guard disable turned off (States'
	// disabled counts them with those under mode: disabled).
	DisabledByHand int `json:"disabled_by_hand"`
	// States counts the keys by their state in the model (see States):
	// the counts the text, Markdown, Prometheus and the dashboard give.
	States              map[string]int           `json:"states"`
	DisabledHooks       int                      `json:"disabled_hooks"`
	HalfOpenHooks       int                      `json:"half_open_hooks"`
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
	// DisabledKeys lists the keys under mode: disabled.
	DisabledKeys []string `json:"disabled_keys"`
}

// A HookDetail is a key the report tells about: open, forced open,
// half-open, or in observe mode with a circuit that is not closed.
type HookDetail struct {
	Command string `json:"command"`
	// State is the key's state in the model (open, forced_open,
	// half_open, observe), Circuit its circuit's.
	State               string     `json:"state"`
	Circuit             string     `json:"circuit"`
	FailureCount        int        `json:"failure_count"`
	ConsecutiveFailures int        `json:"consecutive_failures"`
	LastError           *string    `json:"last_error"`
	DisabledAt          jsonx.Time `json:"disabled_at"`
	RetryAfter          jsonx.Time `json:"retry_after"`
	OpenReason          *string    `json:"open_reason"`
	Forced              bool       `json:"forced"`
	Mode                string     `json:"mode,omitempty"` // "observe": nothing is skipped
	Rule                Standing   `json:"rule"`
	// Skips and SkipsBlocked count the calls not run (skips and
	// rejections), and of them those whose action was blocked.
	Skips        int64 `json:"skips"`
	SkipsBlocked int64 `json:"skips_blocked"`
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
		Cooldown:     map[string]ServiceStatus{},
		States:       map[string]int{},
		StateFile:    config.Redact(where),
		GeneratedAt:  jsonx.TimeOf(now),
		DurationMS:   map[string]*Durations{},
		DisabledKeys: []string{},
	}
	for _, st := range sts {
		if st.DurationMS != nil {
			r.DurationMS[st.Key] = st.DurationMS
		}
		r.TotalHooks++
		r.States[st.State]++
		if st.State == StateDisabled {
			// Not guarded: its old circuit, if any, is in force nowhere.
			r.ActiveHooks++
			r.DisabledKeys = append(r.DisabledKeys, st.Key)
			if st.Disabled != nil {
				r.DisabledByHand++
			}
			continue
		}
		d := HookDetail{
			Command: st.Key, State: st.State, Circuit: st.Circuit, FailureCount: st.FailureCount,
			ConsecutiveFailures: st.ConsecutiveFailures, LastError: st.LastError,
			DisabledAt: st.DisabledAt, RetryAfter: st.RetryAfter, OpenReason: st.OpenReason, Forced: st.Forced,
			Mode: st.Mode, Rule: st.Rule,
			Skips: st.Totals.Skips + st.Totals.Rejected, SkipsBlocked: st.Totals.SkipsBlocked + st.Totals.RejectedBlocked,
		}
		// The Python guardrails' groups, by the circuit: an open circuit
		// in observe mode is among the "disabled" (open) ones, marked.
		switch breaker.State(st.Circuit) {
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
	for _, s := range States {
		r.States[s] += 0
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

// SlowestInReport is how many of the slowest hooks the text report lists.
const SlowestInReport = 5

func WriteText(w io.Writer, r Report, now time.Time) {
	fmt.Fprintf(w, "guard health report for %s\n\n", Printable(r.StateFile))
	fmt.Fprintf(w, "  keys:       %d (%s)\n", r.TotalHooks, r.stateCounts())
	fmt.Fprintf(w, "  executions: %d, of which %d failed\n", r.TotalExecutions, r.TotalFailures)
	if spent := spentBudgets(r.Cooldown); len(spent) > 0 {
		fmt.Fprintf(w, "  cooldowns:  %s\n", strings.Join(spent, "; "))
	}
	if slow := Timings(r.DurationMS).Slowest(SlowestInReport); len(slow) > 0 {
		// A project's hooks share a long start and end: each is shown
		// with its project apart, shortened where they differ.
		slowKeys := make([]string, len(slow))
		for i, k := range slow {
			slowKeys[i] = KeyText(circuit.RuleKey(k))
		}
		slowKeys = ShortenApart(slowKeys, KeyWidth)
		fmt.Fprintf(w, "  slowest:    ")
		for i, k := range slow {
			if i > 0 {
				fmt.Fprintf(w, "\n              ")
			}
			d := r.DurationMS[k]
			fmt.Fprintf(w, "%s p95 %s (p50 %s, max %s, %s)", slowKeys[i], ms(d.P95), ms(d.P50), ms(d.Max), breaker.Count(d.Count, "run"))
			if p := circuit.KeyProject(k); p != "" {
				fmt.Fprintf(w, " in %s", Printable(p))
			}
		}
		fmt.Fprintln(w)
	}
	if disabled := r.keysIn(StateDisabled); len(disabled) > 0 {
		fmt.Fprintf(w, "  disabled:   %s (not guarded: every call runs; mode: disabled or guard disable)\n", strings.Join(disabled, ", "))
	}
	details := r.details()
	if len(details) == 0 {
		fmt.Fprintf(w, "\nNo circuit is open or half-open.\n")
		return
	}
	for _, d := range details {
		fmt.Fprintf(w, "\n%s: %s\n", detailTitle(d), KeyText(d.Command))
		fmt.Fprintf(w, "  why:        %s\n", Printable(whyOpen(d)))
		fmt.Fprintf(w, "  failures:   %s (%d since it last closed)\n", d.Rule.Text(), d.FailureCount)
		if d.Skips > 0 {
			fmt.Fprintf(w, "  skipped:    %s\n", skipCounts(d))
		}
		if d.LastError != nil {
			fmt.Fprintf(w, "  last error: %s\n", Printable(LastError(*d.LastError, 200)))
		}
		fmt.Fprintf(w, "  next:       %s\n", nextStep(d, now))
		fmt.Fprintf(w, "  to retry:   %s\n", ResetCommand(d.Command))
	}
}

func whyOpen(d HookDetail) string {
	// A circuit another tool opened (the Python wrapper) has no reason.
	why := "failures"
	if d.OpenReason != nil && *d.OpenReason != "" && !(d.Forced && *d.OpenReason == "tripped by hand") {
		why = *d.OpenReason
	}
	switch {
	case d.Forced && why == "failures":
		return fmt.Sprintf("tripped by hand at %s", stamp(d.DisabledAt))
	case d.Forced:
		return fmt.Sprintf("tripped by hand at %s (%s)", stamp(d.DisabledAt), why)
	case d.Circuit == string(breaker.HalfOpen):
		return fmt.Sprintf("opened at %s after %s; its cooldown has passed and probes are running", stamp(d.DisabledAt), why)
	}
	return fmt.Sprintf("opened at %s after %s", stamp(d.DisabledAt), why)
}

func nextStep(d HookDetail, now time.Time) string {
	switch {
	case d.Circuit == string(breaker.HalfOpen):
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
	fmt.Fprintf(w, "| keys | closed | open | open (forced) | half-open | observe | disabled | executions | failures |\n|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	fmt.Fprintf(w, "| %d | %d | %d | %d | %d | %d | %d | %d | %d |\n", r.TotalHooks, r.States[StateClosed], r.States[StateOpen], r.States[StateForced],
		r.States[StateHalfOpen], r.States[StateObserve], r.States[StateDisabled], r.TotalExecutions, r.TotalFailures)
	if disabled := r.keysIn(StateDisabled); len(disabled) > 0 {
		fmt.Fprintf(w, "\nDisabled (not guarded: every call runs; mode: disabled or guard disable): %s.\n", mdText(strings.Join(disabled, ", ")))
	}
	if spent := spentBudgets(r.Cooldown); len(spent) > 0 {
		fmt.Fprintf(w, "\nAction budgets spent: %s.\n", mdText(strings.Join(spent, "; ")))
	}
	if slow := Timings(r.DurationMS).Slowest(0); len(slow) > 0 {
		fmt.Fprintf(w, "\n## Run times\n\n| key | runs | p50 | p95 | max |\n|---|---:|---:|---:|---:|\n")
		for _, k := range slow {
			d := r.DurationMS[k]
			fmt.Fprintf(w, "| %s | %d | %s | %s | %s |\n", mdCodeCell(KeyText(k)), d.Count, ms(d.P50), ms(d.P95), ms(d.Max))
		}
	}
	details := r.details()
	if len(details) == 0 {
		fmt.Fprintf(w, "\nNo circuit is open or half-open.\n")
		return nil
	}
	trail, readErr := trails(events, details)
	for _, d := range details {
		fmt.Fprintf(w, "\n## %s: %s\n\n", detailTitle(d), mdCode(KeyText(d.Command)))
		fmt.Fprintf(w, "- **Why:** %s\n", mdText(whyOpen(d)))
		fmt.Fprintf(w, "- **Failures:** %s (%d since it last closed)\n", mdText(d.Rule.Text()), d.FailureCount)
		if d.Skips > 0 {
			fmt.Fprintf(w, "- **Skipped:** %s\n", mdText(skipCounts(d)))
		}
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

// mdCodeCell is mdCode for a table cell: a | is escaped even in a code
// span, where GitHub's tables would split the row at it (and show the
// span's \| as |).
func mdCodeCell(s string) string { return strings.ReplaceAll(mdCode(s), "|", `\|`) }

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

// stateCounts lists how many keys are in each state: "3 closed, 1 open,
// 1 half-open", with the states no key is in after half-open left out.
func (r Report) stateCounts() string {
	var parts []string
	for _, s := range States {
		n := r.States[s]
		if n == 0 && s != StateClosed && s != StateOpen && s != StateHalfOpen {
			continue
		}
		parts = append(parts, fmt.Sprintf("%d %s", n, StateWord(s)))
	}
	return strings.Join(parts, ", ")
}

// keysIn lists, as shown, the keys in state s that have no details:
// the disabled ones.
func (r Report) keysIn(s string) []string {
	var out []string
	for _, k := range r.DisabledKeys {
		if s == StateDisabled {
			out = append(out, KeyText(k))
		}
	}
	return out
}

// details lists the keys to tell about, most urgent first: open, half-open,
// forced open, then observe mode's.
func (r Report) details() []HookDetail {
	out := append(append([]HookDetail{}, r.DisabledHookDetails...), r.HalfOpenHookDetails...)
	sort.SliceStable(out, func(i, j int) bool {
		a := KeyState{Name: out[i].State, Circuit: breaker.State(out[i].Circuit)}.Rank()
		b := KeyState{Name: out[j].State, Circuit: breaker.State(out[j].Circuit)}.Rank()
		return a < b
	})
	return out
}

// detailTitle heads a key's section: its state, as every output words it.
func detailTitle(d HookDetail) string {
	ks := KeyState{Name: d.State, Circuit: breaker.State(d.Circuit)}
	title := ks.Word()
	if d.State == StateObserve {
		title += ": would skip, runs anyway"
	}
	return strings.ToUpper(title[:1]) + title[1:]
}

// skipCounts says how many of d's calls were not run, and what became of
// their actions: "12 calls not run (3 blocked, 9 allowed)"; in observe
// mode, how many it would have skipped.
func skipCounts(d HookDetail) string {
	calls := "calls"
	if d.Skips == 1 {
		calls = "call"
	}
	if d.State == StateObserve {
		return fmt.Sprintf("%d %s it would have skipped (observe mode: they ran)", d.Skips, calls)
	}
	return fmt.Sprintf("%d %s not run (%d blocked, %d allowed)", d.Skips, calls, d.SkipsBlocked, d.Skips-d.SkipsBlocked)
}
