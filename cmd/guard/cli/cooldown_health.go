package cli

import (
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"guard/internal/view"
)

// cooldownHealthyCommand is guard cooldown healthy.
func (e *env) cooldownHealthyCommand() *cli.Command {
	return &cli.Command{
		Name:      "healthy",
		Usage:     "count a healthy check; after reset_after_healthy in a row, clear the service's budgets",
		ArgsUsage: "SERVICE",
		Description: `Adds one to SERVICE's consecutive_healthy. When it reaches
reset_after_healthy (2), every action array of the service is emptied and
the count starts again from 0.

Example:
   curl -fsS http://nginx/health && guard cooldown healthy nginx || guard cooldown unhealthy nginx`,
		Flags:        cooldownFlags(),
		Action:       e.cooldownHealthy,
		BashComplete: e.completeServices,
	}
}

// cooldownUnhealthyCommand is guard cooldown unhealthy.
func (e *env) cooldownUnhealthyCommand() *cli.Command {
	return &cli.Command{
		Name:      "unhealthy",
		Usage:     "end the service's healthy streak",
		ArgsUsage: "SERVICE",
		Description: `Sets SERVICE's consecutive_healthy back to 0.

Example:
   guard cooldown unhealthy nginx`,
		Flags:        cooldownFlags(),
		Action:       e.cooldownUnhealthy,
		BashComplete: e.completeServices,
	}
}

func (e *env) cooldownHealthy(c *cli.Context) error {
	service, err := oneService(c)
	if err != nil {
		return err
	}
	cd, err := e.openCooldown(c)
	if err != nil {
		return err
	}
	reset := cd.ResetAfterHealthy
	streak, cleared, err := cd.Healthy(service, e.Now())
	if err != nil {
		return err
	}
	if cleared {
		var fields []string
		for _, a := range cd.Actions {
			fields = append(fields, a.Field)
		}
		fmt.Fprintf(e.Stdout, "%s: healthy %d in a row: cleared %s\n", view.Printable(service), reset, strings.Join(fields, ", "))
	} else {
		fmt.Fprintf(e.Stdout, "%s: healthy %d in a row (budgets clear at %d)\n", view.Printable(service), streak, reset)
	}
	return nil
}

func (e *env) cooldownUnhealthy(c *cli.Context) error {
	service, err := oneService(c)
	if err != nil {
		return err
	}
	cd, err := e.openCooldown(c)
	if err != nil {
		return err
	}
	if err := cd.Unhealthy(service, e.Now()); err != nil {
		return err
	}
	fmt.Fprintf(e.Stdout, "%s: unhealthy; healthy streak reset to 0\n", view.Printable(service))
	return nil
}
