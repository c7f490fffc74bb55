package cli

import (
	"errors"
	"fmt"

	"github.com/urfave/cli/v2"

	"guard/breaker"
	"guard/cmd/guard/guardrun"
	"guard/internal/circuit"
	"guard/internal/store"
	"guard/internal/view"
)

func (e *env) probeCommand() *cli.Command {
	return &cli.Command{
		Name:      "probe",
		Usage:     "let an open circuit probe now",
		ArgsUsage: "KEY",
		Description: `Moves an open circuit (tripped by hand or not) to half-open now, so that the
next call runs as a probe instead of waiting for the cooldown. The circuit
closes after success_threshold successful probes and re-opens on a failed one.

Example:
   guard probe "python3 lint.py"`,
		Flags:        stateFlags(),
		Action:       e.probe,
		BashComplete: e.completeKeys,
	}
}

func (e *env) probe(c *cli.Context) error {
	if c.NArg() != 1 {
		return usagef("probe takes one KEY, got %d arguments", c.NArg())
	}
	arg := c.Args().First()
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
	var changed bool
	var perr error
	var ev breaker.Event
	err = hooks.Circuits.Update(now, func(tx store.CircuitTx) (bool, error) {
		var err error
		if key, err = circuit.ResolveKey(arg, tx.Has); err != nil {
			return false, err
		}
		if !tx.Has(key) {
			perr = view.UnknownKey(key, tx)
			return false, nil
		}
		ev, changed, perr = circuit.Probe(tx, key, now)
		return changed, nil
	})
	if err == nil && changed {
		var n guardrun.Notes
		n.NoteFor(cfg, key, breaker.Circuit{}, []breaker.Event{ev}, now)
		defer e.StartNotes(&n, cfg, hooks)
	}
	switch {
	case err != nil:
		return err
	case errors.Is(perr, breaker.ErrNotOpen):
		return fmt.Errorf("circuit of %s is closed; nothing to probe", circuit.KeyWord(key))
	case perr != nil:
		return perr
	case !changed:
		fmt.Fprintf(e.Stdout, "%s is already half-open; the next free call probes\n", circuit.KeyWord(key))
	default:
		fmt.Fprintf(e.Stdout, "%s: open -> half-open; the next call runs as a probe\n", circuit.KeyWord(key))
	}
	return nil
}
