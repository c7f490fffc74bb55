package view

import (
	"fmt"
	"time"

	"guard/breaker"
	"guard/config"
	"guard/statefile"
	"guard/store"
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
	Service     string         `json:"service,omitempty"`
	Action      string         `json:"action,omitempty"`
	Field       string         `json:"field"`
	Allowed     bool           `json:"allowed"`
	InCooldown  bool           `json:"in_cooldown"`
	Used        int            `json:"used"`
	Limit       int            `json:"limit"`
	Window      string         `json:"window"`
	WindowMS    int64          `json:"window_ms"`
	NextAllowed statefile.Time `json:"next_allowed"` // null: never
}

func VerdictOf(service string, a store.Action, v breaker.Verdict) Verdict {
	return Verdict{
		Service: service, Action: a.Name, Field: a.Field,
		Allowed: v.Allowed, InCooldown: !v.Allowed, Used: v.Used, Limit: v.Limit,
		Window: config.FormatDuration(a.Window), WindowMS: a.Window.Milliseconds(),
		NextAllowed: statefile.TimeOf(v.NextAllowed),
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
		s += fmt.Sprintf("; next allowed at %s (in %s)", v.NextAllowed.UTC().Format(statefile.TimeLayout), Until(v.NextAllowed, now))
	}
	return s
}

// ServiceStatuses returns the budgets of the services names in v at now.
func ServiceStatuses(v store.BudgetView, actions []store.Action, names []string, now time.Time) (map[string]ServiceStatus, error) {
	out := map[string]ServiceStatus{}
	for _, name := range names {
		st := ServiceStatus{ConsecutiveHealthy: v.Streak(name), Actions: map[string]Verdict{}}
		for _, a := range actions {
			verdict, err := v.Check(name, a, now)
			if err != nil {
				return nil, err
			}
			vj := VerdictOf("", a, verdict)
			vj.Action = ""
			st.Actions[a.Name] = vj
			st.InCooldown = st.InCooldown || !verdict.Allowed
		}
		out[name] = st
	}
	return out, nil
}
