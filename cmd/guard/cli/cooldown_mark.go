package cli

import (
	"fmt"
	"time"

	"github.com/urfave/cli/v2"

	"guard/internal/view"
)

// cooldownMarkCommand is guard cooldown mark.
func (e *env) cooldownMarkCommand() *cli.Command {
	return &cli.Command{
		Name:      "mark",
		Usage:     "set last_NAME to now (run, daily_digest, ...)",
		ArgsUsage: "NAME",
		Description: `Sets the top-level last_NAME of the cooldown file to now, as the ops agent
stamps last_run and last_daily_digest. NAME may be written with its last_
prefix or without it: run and last_run name the same member.

Examples:
   guard cooldown mark run
   guard cooldown mark last_daily_digest`,
		Flags:  cooldownFlags(),
		Action: e.cooldownMark,
	}
}

// cooldownDueCommand is guard cooldown due.
func (e *env) cooldownDueCommand() *cli.Command {
	return &cli.Command{
		Name:      "due",
		Usage:     "exit 0 when last_NAME is unset or older than --every; else exit 1",
		ArgsUsage: "NAME --every DURATION",
		Description: `With --mark, a due NAME is marked in the same locked update, so that of many
agents asking at once exactly one is told it is due. NAME may be written
with its last_ prefix or without it, as for mark.

Example:
   guard cooldown due daily_digest --every 24h --mark && send-daily-digest`,
		Flags: append([]cli.Flag{
			&cli.DurationFlag{Name: "every", Usage: "how often NAME is due"},
			&cli.BoolFlag{Name: "mark", Usage: "if due, set last_NAME to now"},
		}, cooldownFlags()...),
		Action: e.cooldownDue,
	}
}

func (e *env) cooldownMark(c *cli.Context) error {
	name, err := oneStamp(c)
	if err != nil {
		return err
	}
	cd, err := e.openCooldown(c)
	if err != nil {
		return err
	}
	now := e.Now()
	if err := cd.Mark(name, now); err != nil {
		return err
	}
	fmt.Fprintf(e.Stdout, "last_%s = %s\n", name, now.UTC().Truncate(time.Second).Format(time.RFC3339))
	return nil
}

func (e *env) cooldownDue(c *cli.Context) error {
	name, err := oneStamp(c)
	if err != nil {
		return err
	}
	every := c.Duration("every")
	if every <= 0 {
		return usagef("--every must be longer than 0s")
	}
	cd, err := e.openCooldown(c)
	if err != nil {
		return err
	}
	now := e.Now()
	last, due, err := cd.Due(name, every, now, c.Bool("mark"))
	if err != nil {
		return err
	}
	switch {
	case last.IsZero():
		fmt.Fprintf(e.Stdout, "due: last_%s was never set\n", name)
	case due:
		fmt.Fprintf(e.Stdout, "due: last_%s was %s ago\n", name, now.Sub(last).Truncate(time.Second))
	default:
		fmt.Fprintf(e.Stdout, "not due: last_%s was %s ago; due again in %s\n", name, now.Sub(last).Truncate(time.Second), view.Until(last.Add(every), now))
		return exit(1)
	}
	return nil
}
