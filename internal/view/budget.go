package view

import (
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"guard/breaker"
	"guard/config"
	"guard/internal/jsonx"
	"guard/internal/store"
)

// A ServiceStatus is a service's budgets, as 'guard cooldown status --json' and the
// report show them.
type ServiceStatus struct {
	InCooldown         bool               `json:"in_cooldown"`
	ConsecutiveHealthy int                `json:"consecutive_healthy"`
	Actions            map[string]Verdict `json:"actions"`
}

// Verdict is a budget verdict for --json output.
type Verdict struct {
	Service     string     `json:"service,omitempty"`
	Action      string     `json:"action,omitempty"`
	Field       string     `json:"field"`
	Allowed     bool       `json:"allowed"`
	InCooldown  bool       `json:"in_cooldown"`
	Used        int        `json:"used"`
	Limit       int        `json:"limit"`
	Window      string     `json:"window"`
	WindowMS    int64      `json:"window_ms"`
	NextAllowed jsonx.Time `json:"next_allowed"` // null: never
}

func VerdictOf(service string, a store.Action, v breaker.Verdict) Verdict {
	return Verdict{
		Service: service, Action: a.Name, Field: a.Field,
		Allowed: v.Allowed, InCooldown: !v.Allowed, Used: v.Used, Limit: v.Limit,
		Window: config.FormatDuration(a.Window), WindowMS: a.Window.Milliseconds(),
		NextAllowed: jsonx.TimeOf(v.NextAllowed),
	}
}

// BudgetLine describes a verdict: "2 of 2 restarts in the last 4h; next
// allowed at 2025-06-15T12:15:00Z (in 1h12m)".
func BudgetLine(a store.Action, v breaker.Verdict, now time.Time) string {
	s := fmt.Sprintf("%d of %d %s in the last %s", v.Used, v.Limit, a.Field, config.FormatDuration(a.Window))
	switch {
	case v.Allowed:
	case v.NextAllowed.IsZero():
		s += "; the limit is 0, so never"
	default:
		s += fmt.Sprintf("; next allowed at %s (in %s)", v.NextAllowed.UTC().Format(jsonx.TimeLayout), Until(v.NextAllowed, now))
	}
	return s
}

// A BudgetStatus is 'guard cooldown status --json': each service's
// budgets, and when each last_NAME stamp was set.
type BudgetStatus struct {
	Services map[string]ServiceStatus `json:"services"`
	Last     map[string]jsonx.Time    `json:"last"`
}

// WriteBudgetTable prints the budgets of the services names as a table:
// one line per service and action.
func WriteBudgetTable(w io.Writer, st BudgetStatus, names []string, actions []store.Action, now time.Time) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "SERVICE\tACTION\tUSED\tWINDOW\tNEXT ALLOWED\tHEALTHY")
	for _, name := range names {
		s := st.Services[name]
		for _, a := range actions {
			v := s.Actions[a.Name]
			next := "now"
			switch {
			case v.Allowed:
			case v.NextAllowed.IsZero():
				next = "never (limit 0)"
			default:
				next = fmt.Sprintf("in %s (%s)", Until(v.NextAllowed.Time, now), v.NextAllowed.UTC().Format(jsonx.TimeLayout))
			}
			fmt.Fprintf(tw, "%s\t%s\t%d/%d\t%s\t%s\t%d\n", Printable(name), a.Name, v.Used, v.Limit, v.Window, next, s.ConsecutiveHealthy)
		}
	}
	tw.Flush()
}
