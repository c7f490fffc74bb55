package cli

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"guard/breaker"
	"guard/cmd/guard/guardrun"
	"guard/config"
	"guard/internal/circuit"
	"guard/internal/store"
	"guard/internal/view"
)

func (e *env) tripCommand() *cli.Command {
	return &cli.Command{
		Name:      "trip",
		Usage:     "force a circuit open",
		ArgsUsage: "KEY [--for DURATION] [--reason TEXT]",
		Description: `Opens the circuit of KEY by hand, so that calls are skipped. Without --for it
stays open until 'guard reset' or 'guard probe'; it never probes by itself.
With --for it probes again after that long, as after any cooldown. KEY need
not have run yet.

Examples:
   guard trip "python3 lint.py" --reason "linter is being upgraded"
   guard trip "./deploy-check.sh" --for 2h`,
		Flags: append([]cli.Flag{
			&cli.DurationFlag{Name: "for", Usage: "probe again after `DURATION` (default: stay open until reset)"},
			&cli.StringFlag{Name: "reason", Usage: "why, for whoever reads 'guard status'"},
		}, stateFlags()...),
		Action:       e.trip,
		BashComplete: e.completeKeys,
	}
}

func (e *env) trip(c *cli.Context) error {
	if c.NArg() != 1 {
		return usagef("trip takes one KEY, got %d arguments", c.NArg())
	}
	arg := c.Args().First()
	dur := c.Duration("for")
	if dur < 0 {
		return usagef("--for must not be negative")
	}
	cfg, err := e.loadConfig(c)
	if err != nil {
		return err
	}
	hooks, err := e.OpenHooks(cfg)
	if err != nil {
		return err
	}
	now := e.Now()
	var key string
	var ev breaker.Event
	var after breaker.Circuit
	err = hooks.Circuits.Update(now, func(tx store.CircuitTx) (bool, error) {
		var err error
		if key, err = circuit.ResolveKey(arg, tx.Has); err != nil {
			return false, err
		}
		if ev, err = circuit.Trip(tx, key, now, dur, c.String("reason")); err != nil {
			return false, err
		}
		after, err = tx.Circuit(key)
		return true, err
	})
	if err != nil {
		return err
	}
	var n guardrun.Notes
	n.NoteFor(cfg, key, after, []breaker.Event{ev}, now)
	defer e.StartNotes(&n, cfg, hooks)
	if dur > 0 {
		fmt.Fprintf(e.Stdout, "tripped %s: open for %s, until %s\n", circuit.KeyWord(key), config.FormatDuration(dur), store.Stamp(now.Add(dur)))
	} else {
		fmt.Fprintf(e.Stdout, "tripped %s: open until %s\n", circuit.KeyWord(key), view.ResetCommand(key))
	}
	return nil
}
