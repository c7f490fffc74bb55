package cli

import (
	"fmt"
	"time"

	"github.com/urfave/cli/v2"

	"guard/internal/cooldown"
	"guard/internal/jsonx"
	"guard/internal/store"
	"guard/internal/view"
)

// cooldownStatusCommand is guard cooldown status.
func (e *env) cooldownStatusCommand() *cli.Command {
	return &cli.Command{
		Name:      "status",
		Usage:     "budgets used, in_cooldown and next allowed time, per service",
		ArgsUsage: "[SERVICE]",
		Description: `--json prints {"services": {NAME: {"in_cooldown", "consecutive_healthy",
"actions": {ACTION: {"field", "used", "limit", "window", "window_ms",
"in_cooldown", "next_allowed"}}}}, "last": {NAME: time}}, where next_allowed
is when the next action is allowed (now if it is) and last holds the
last_NAME stamps.

Examples:
   guard cooldown status
   guard cooldown status nginx --json | jq .services.nginx.in_cooldown`,
		Flags:        append([]cli.Flag{jsonFlag()}, cooldownFlags()...),
		Action:       e.cooldownStatus,
		BashComplete: e.completeServices,
	}
}

func (e *env) cooldownStatus(c *cli.Context) error {
	if c.NArg() > 1 {
		return usagef("want at most one SERVICE")
	}
	cd, err := e.openCooldown(c)
	if err != nil {
		return err
	}
	doc, err := cd.Snapshot()
	if err != nil {
		return err
	}
	now := e.Now()
	names := doc.ServiceNames()
	if c.NArg() == 1 {
		names = []string{c.Args().First()}
	}
	st, err := budgetStatusOf(doc, cd.Actions, names, now)
	if err != nil {
		return err
	}
	if c.Bool("json") {
		return view.WriteJSON(e.Stdout, st)
	}
	if len(names) == 0 {
		fmt.Fprintf(e.Stdout, "no services yet in %s\n", cd.state.Where)
		return nil
	}
	view.WriteBudgetTable(e.Stdout, st, names, cd.Actions, now)
	return nil
}

// serviceStatuses returns the budgets of the services names in v at now.
func serviceStatuses(v store.BudgetView, actions []store.Action, names []string, now time.Time) (map[string]view.ServiceStatus, error) {
	out := map[string]view.ServiceStatus{}
	for _, name := range names {
		st := view.ServiceStatus{ConsecutiveHealthy: v.Streak(name), Actions: map[string]view.Verdict{}}
		for _, a := range actions {
			verdict, err := cooldown.Check(v, name, a, 1, now)
			if err != nil {
				return nil, err
			}
			vj := view.VerdictOf("", a, verdict)
			vj.Action = ""
			st.Actions[a.Name] = vj
			st.InCooldown = st.InCooldown || !verdict.Allowed
		}
		out[name] = st
	}
	return out, nil
}

// budgetStatusOf returns the status of the services names in v at now.
func budgetStatusOf(v store.BudgetView, actions []store.Action, names []string, now time.Time) (view.BudgetStatus, error) {
	st := view.BudgetStatus{Last: map[string]jsonx.Time{}}
	var err error
	if st.Services, err = serviceStatuses(v, actions, names, now); err != nil {
		return st, err
	}
	for _, name := range v.Stamps() {
		if t, err := v.Last(name); err == nil {
			st.Last[name] = jsonx.TimeOf(t)
		}
	}
	return st, nil
}
