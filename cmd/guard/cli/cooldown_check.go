package cli

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"guard/internal/view"
)

// cooldownCheckCommand is guard cooldown check.
func (e *env) cooldownCheckCommand() *cli.Command {
	return &cli.Command{
		Name:      "check",
		Usage:     "exit 0 if the action is allowed now; exit 1 with the reason and the next allowed time",
		ArgsUsage: "SERVICE ACTION",
		Description: `Says how many of ACTION's budget SERVICE has used in the window, the limit,
and when the next one is allowed, and exits 0 if one more is allowed now, 1
if not. It changes nothing (the decision is logged).

Example:
   guard cooldown check nginx restart && docker restart nginx`,
		Flags:        append([]cli.Flag{jsonFlag()}, cooldownFlags()...),
		Action:       e.cooldownCheck,
		BashComplete: e.completeServices,
	}
}

// cooldownRecordCommand is guard cooldown record.
func (e *env) cooldownRecordCommand() *cli.Command {
	return &cli.Command{
		Name:      "record",
		Usage:     "record an action taken (successful unless --failed)",
		ArgsUsage: "SERVICE ACTION",
		Description: `Appends a record of ACTION on SERVICE, now, to the service's array for it
(registering the service if it is new), and says how much of the budget is
used. It records even when the budget is spent: the action happened.

Examples:
   guard cooldown record nginx restart
   guard cooldown record nginx restart --error "container exited with code 137"`,
		Flags: append([]cli.Flag{
			&cli.BoolFlag{Name: "failed", Usage: "the action failed"},
			&cli.StringFlag{Name: "error", Usage: "what went wrong (implies --failed)"},
		}, cooldownFlags()...),
		Action:       e.cooldownRecord,
		BashComplete: e.completeServices,
	}
}

func (e *env) cooldownCheck(c *cli.Context) error {
	service, cd, a, err := e.cooldownTarget(c)
	if err != nil {
		return err
	}
	now := e.Now()
	v, err := cd.Decide(service, a, now)
	if err != nil {
		return err
	}
	if c.Bool("json") {
		if err := view.WriteJSON(e.Stdout, view.VerdictOf(service, a, v)); err != nil {
			return err
		}
	} else if v.Allowed {
		fmt.Fprintf(e.Stdout, "%s %s: allowed (%s)\n", view.Printable(service), a.Name, view.BudgetLine(a, v, now))
	} else {
		fmt.Fprintf(e.Stdout, "%s %s: not allowed: %s\n", view.Printable(service), a.Name, view.BudgetLine(a, v, now))
	}
	if !v.Allowed {
		return exit(1)
	}
	return nil
}

func (e *env) cooldownRecord(c *cli.Context) error {
	service, cd, a, err := e.cooldownTarget(c)
	if err != nil {
		return err
	}
	failed := c.Bool("failed") || c.String("error") != ""
	now := e.Now()
	v, err := cd.Record(service, a, now, !failed, c.String("error"))
	if err != nil {
		return err
	}
	what := "recorded"
	if failed {
		what = "recorded a failed"
	}
	fmt.Fprintf(e.Stdout, "%s %s %s: %s\n", what, view.Printable(service), a.Name, view.BudgetLine(a, v, now))
	return nil
}
