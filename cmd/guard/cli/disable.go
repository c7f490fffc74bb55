package cli

import (
	"fmt"
	"os"
	"strconv"

	"github.com/urfave/cli/v2"

	"guard/breaker"
	"guard/cmd/guard/guardrun"
	"guard/config"
	"guard/internal/circuit"
	"guard/internal/store"
	"guard/internal/view"
)

func (e *env) disableCommand() *cli.Command {
	return &cli.Command{
		Name:      "disable",
		Usage:     "turn guard off for a key, without editing the config",
		ArgsUsage: "KEY... [--reason TEXT]",
		Description: `Turns guard off for each KEY at run time, as Hystrix's forceClosed and
resilience4j's DISABLED state do: every call of the key runs unguarded, as
under mode: disabled (no state read beyond the key's own, nothing recorded,
never skipped, never tripped; a --timeout given to guard run still holds),
until guard enable KEY. The circuit is left as it was, and goes on from
there once enabled. status, report, Prometheus and the dashboard show the key
as disabled, and the event log says who disabled it (user, host and pid) and
why. A key need not have run yet.

How it combines with the other commands: 'guard reset' closes the circuit
underneath and leaves the key disabled (a reset of every key must not turn
guard back on for a key someone turned off); 'guard trip' enables the key and
opens it (the last command given by hand wins); 'guard probe' works on the
circuit underneath. mode: disabled (or enabled: false) in the config wins
over all of them, since guard then reads no state at all.

Examples:
   guard disable "python3 lint.py" --reason "flaky since the upgrade; INC-1234"
   guard enable "python3 lint.py"`,
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "reason", Usage: "why, for whoever reads 'guard status' and the event log"},
		}, stateFlags()...),
		Action:       e.disable,
		BashComplete: e.completeKeys,
	}
}

func (e *env) enableCommand() *cli.Command {
	return &cli.Command{
		Name:      "enable",
		Usage:     "turn guard back on for a key that 'guard disable' turned off",
		ArgsUsage: "KEY... [--reason TEXT]",
		Description: `Ends 'guard disable' for each KEY: calls are guarded again, and the circuit
goes on from the state it was in when disabled (an open circuit whose cooldown
has passed probes on the next call; 'guard reset' closes it). A key that is not
disabled is left as it is. A key the config turns off (mode: disabled, or
enabled: false) stays off, whatever enable does: it says so (a hint after
enabling a key disabled both ways; an error, exit 1, for a key only the
config disables).

Examples:
   guard enable "python3 lint.py"
   guard enable lint deploy-check --reason "fixed in v2.3"`,
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "reason", Usage: "why, for the event log"},
		}, stateFlags()...),
		Action:       e.enable,
		BashComplete: e.completeKeys,
	}
}

// manual is who gives a command by hand, for the event log.
func (e *env) manual(reason string) circuit.Manual {
	return circuit.Manual{User: userName(e.Getenv), Host: guardrun.Host(e.Getenv), PID: os.Getpid(), Reason: reason}
}

// userName names the user guard runs as, for the event log: $USER,
// $LOGNAME or $USERNAME, else the user ID. (os/user is not used: it would
// take cgo or /etc/passwd for a name the environment nearly always has.)
func userName(getenv func(string) string) string {
	for _, v := range []string{"USER", "LOGNAME", "USERNAME"} {
		if u := getenv(v); u != "" {
			return u
		}
	}
	if uid := os.Getuid(); uid >= 0 {
		return "uid " + strconv.Itoa(uid)
	}
	return "unknown"
}

func (e *env) disable(c *cli.Context) error {
	if c.NArg() == 0 {
		return usagef("which key? give one or more (see 'guard status')")
	}
	cfg, err := e.loadConfig(c)
	if err != nil {
		return err
	}
	hooks, err := e.OpenHooks(cfg)
	if err != nil {
		return err
	}
	by := e.manual(c.String("reason"))
	now := e.Now()
	type done struct {
		key     string
		ev      breaker.Event
		changed bool
		was     *breaker.Disable
	}
	var dones []done
	err = hooks.Circuits.Update(now, func(tx store.CircuitTx) (bool, error) {
		dones = nil
		keys, err := resolveKeys(c.Args().Slice(), tx)
		if err != nil {
			return false, err
		}
		changed := false
		for _, k := range keys {
			before, err := tx.Circuit(k)
			if err != nil {
				return false, err
			}
			ev, ch, err := circuit.Disable(tx, k, store.TxNow(tx, now), by)
			if err != nil {
				return false, err
			}
			dones = append(dones, done{k, ev, ch, before.Disabled})
			changed = changed || ch
		}
		return changed, nil
	})
	if err != nil {
		return err
	}
	var n guardrun.Notes
	for _, d := range dones {
		if d.changed {
			n.NoteFor(cfg, d.key, breaker.Circuit{}, []breaker.Event{d.ev}, now)
		}
	}
	defer e.StartNotes(&n, cfg, hooks)
	for _, d := range dones {
		if !d.changed {
			fmt.Fprintf(e.Stdout, "%s is already disabled (%s)\n", circuit.KeyWord(d.key), view.Printable(disabledBy(d.was)))
			continue
		}
		fmt.Fprintf(e.Stdout, "disabled %s (was %s): every call runs unguarded; to guard it again: %s\n", circuit.KeyWord(d.key), d.ev.From, view.EnableCommand(d.key))
	}
	for _, d := range dones {
		e.hintConfigDisables(cfg, d.key)
	}
	return nil
}

// configDisables reports whether the config turns guard off for key
// (mode: disabled, or enabled: false): that wins over guard enable.
func configDisables(cfg *config.Config, key string) bool {
	b := cfg.For(circuit.RuleKey(key))
	return !b.Enabled || b.Mode == "disabled"
}

// hintConfigDisables says, on its own line, that the config turns guard off
// for key as well, so that neither guard disable nor guard enable reads as
// if it decided how the key's calls run.
func (e *env) hintConfigDisables(cfg *config.Config, key string) {
	if configDisables(cfg, key) {
		fmt.Fprintf(e.Stderr, "guard: hint: %s is disabled by the config as well (mode: disabled), which wins: its calls run unguarded until that rule changes\n", view.KeyText(key))
	}
}

func (e *env) enable(c *cli.Context) error {
	if c.NArg() == 0 {
		return usagef("which key? give one or more (see 'guard status')")
	}
	cfg, err := e.loadConfig(c)
	if err != nil {
		return err
	}
	hooks, err := e.OpenHooks(cfg)
	if err != nil {
		return err
	}
	by := e.manual(c.String("reason"))
	now := e.Now()
	type done struct {
		key     string
		ev      breaker.Event
		changed bool
		c       breaker.Circuit
	}
	var dones []done
	var missing error
	err = hooks.Circuits.Update(now, func(tx store.CircuitTx) (bool, error) {
		dones, missing = nil, nil
		keys, err := resolveKeys(c.Args().Slice(), tx)
		if err != nil {
			return false, err
		}
		for _, k := range keys {
			if !tx.Has(k) {
				missing = view.UnknownKey(k, tx)
				if configDisables(cfg, k) {
					missing = notDisabledByHand(k)
				}
				return false, nil
			}
		}
		changed := false
		for _, k := range keys {
			ev, ch, err := circuit.Enable(tx, k, store.TxNow(tx, now), by)
			if err != nil {
				return false, err
			}
			cb, _ := tx.Circuit(k)
			dones = append(dones, done{k, ev, ch, cb})
			changed = changed || ch
		}
		return changed, nil
	})
	if err != nil {
		return err
	}
	if missing != nil {
		return missing
	}
	var n guardrun.Notes
	for _, d := range dones {
		if d.changed {
			n.NoteFor(cfg, d.key, d.c, []breaker.Event{d.ev}, now)
		}
	}
	defer e.StartNotes(&n, cfg, hooks)
	var notByHand error
	for _, d := range dones {
		if !d.changed && configDisables(cfg, d.key) {
			notByHand = notDisabledByHand(d.key)
			continue
		}
		if !d.changed {
			fmt.Fprintf(e.Stdout, "%s is not disabled\n", circuit.KeyWord(d.key))
			continue
		}
		line := fmt.Sprintf("enabled %s: disabled -> %s", circuit.KeyWord(d.key), view.StateWord(string(d.ev.To)))
		if d.c.State == breaker.Open {
			if d.c.RetryAfter.IsZero() {
				line += "; it stays open until " + view.ResetCommand(d.key)
			} else if d.c.RetryAfter.After(now) {
				line += fmt.Sprintf("; next try in %s, or now with %s", view.Until(d.c.RetryAfter, now), view.ResetCommand(d.key))
			} else {
				line += "; the next call probes"
			}
		}
		fmt.Fprintln(e.Stdout, line)
		e.hintConfigDisables(cfg, d.key)
	}
	return notByHand
}

// notDisabledByHand is guard enable's error for a key that only the config
// turns off: enable cannot turn it on.
func notDisabledByHand(key string) error {
	return fmt.Errorf("%s is not disabled by guard disable; the config disables it (mode: disabled): change that rule to guard it again", view.KeyText(key))
}
