package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"guard/breaker"
	"guard/circuit"
	"guard/store"
)

func (e *env) resetCommand() *cli.Command {
	return &cli.Command{
		Name:      "reset",
		Usage:     "close a circuit and clear its failure counters",
		ArgsUsage: "KEY... | --all",
		Description: `Returns each key to closed, clearing its failure counters, back-off, probe
leases and any trip by hand, so that the next call runs. Lifetime totals are
kept. The key is exactly what 'guard status' shows.

Examples:
   guard reset "python3 lint.py"
   guard reset --all`,
		Flags: append([]cli.Flag{
			&cli.BoolFlag{Name: "all", Usage: "reset every key"},
		}, stateFlags()...),
		Action:       e.reset,
		BashComplete: e.completeKeys,
	}
}

func (e *env) reset(c *cli.Context) error {
	keys := c.Args().Slice()
	all := c.Bool("all")
	switch {
	case all && len(keys) > 0:
		return usagef("give keys or --all, not both")
	case !all && len(keys) == 0:
		return usagef("which key? give one (see 'guard status') or --all")
	}
	hooks, err := e.openHooksOf(c)
	if err != nil {
		return err
	}
	now := e.now()
	var events []string
	var missing error
	err = hooks.Circuits.Update(now, func(tx store.CircuitTx) (bool, error) {
		events, missing = nil, nil
		if all {
			keys = tx.Keys()
		}
		changed := false
		for _, k := range keys {
			c, err := tx.Circuit(k)
			if err != nil {
				return false, err
			}
			if _, ok, err := circuit.Reset(tx, k, now); err != nil || !ok {
				missing = unknownKey(k, tx)
				return false, err
			}
			from := c.State
			changed = true
			events = append(events, fmt.Sprintf("reset %q: %s -> closed", k, orClosed(from)))
		}
		return changed, nil
	})
	if err != nil {
		return err
	}
	if missing != nil {
		return missing
	}
	for _, ev := range events {
		fmt.Fprintln(e.stdout, ev)
	}
	if all {
		fmt.Fprintf(e.stdout, "reset %d keys\n", len(events))
	}
	return nil
}

func orClosed(s breaker.State) breaker.State {
	if s == "" {
		return breaker.Closed
	}
	return s
}
