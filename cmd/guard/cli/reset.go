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

func (e *env) resetCommand() *cli.Command {
	return &cli.Command{
		Name:      "reset",
		Usage:     "close a circuit and clear its failure counters",
		ArgsUsage: "KEY... | --all",
		Description: `Returns each key to closed, clearing its failure counters, back-off, probe
leases and any trip by hand, so that the next call runs. Lifetime totals are
kept. KEY is the command line (or --name) as guard run keys it, or the key
as 'guard status' shows it, escapes and all. The skip notice, status and
report print a reset command that can be pasted as it is.

Examples:
   guard reset 'python3 lint.py'
   guard reset $'a key with\na newline'
   guard reset --all`,
		Flags: append([]cli.Flag{
			&cli.BoolFlag{Name: "all", Usage: "reset every key"},
		}, stateFlags()...),
		Action:       e.reset,
		BashComplete: e.completeKeys,
	}
}

func (e *env) reset(c *cli.Context) error {
	args := c.Args().Slice()
	all := c.Bool("all")
	switch {
	case all && len(args) > 0:
		return usagef("give keys or --all, not both")
	case !all && len(args) == 0:
		return usagef("which key? give one (see 'guard status') or --all")
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
	var closed []circuit.Closed
	var missing error
	err = hooks.Circuits.Update(now, func(tx store.CircuitTx) (bool, error) {
		keys, err := resolveKeys(args, tx)
		if err != nil {
			return false, err
		}
		closed, err = circuit.ResetKeys(tx, keys, all, now)
		if ns := (*circuit.NoStateError)(nil); errors.As(err, &ns) {
			missing = view.UnknownKey(ns.Key, tx)
			return false, nil
		}
		return len(closed) > 0, err
	})
	if err != nil {
		return err
	}
	if missing != nil {
		return missing
	}
	var n guardrun.Notes
	for _, c := range closed {
		n.NoteFor(cfg, c.Key, breaker.Circuit{}, []breaker.Event{{Kind: breaker.Transition, From: c.From, To: breaker.Closed, Reason: "reset by hand"}}, now)
	}
	defer e.StartNotes(&n, cfg, hooks)
	for _, c := range closed {
		fmt.Fprintf(e.Stdout, "reset %s: %s -> closed\n", circuit.KeyWord(c.Key), view.StateWord(string(c.From)))
	}
	if all {
		fmt.Fprintf(e.Stdout, "reset %d keys\n", len(closed))
	}
	return nil
}
