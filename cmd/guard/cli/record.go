package cli

import (
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"guard/breaker"
	"guard/cmd/guard/guardrun"
	"guard/config"
	"guard/internal/circuit"
	"guard/internal/store"
	"guard/internal/view"
)

func (e *env) recordCommand() *cli.Command {
	return &cli.Command{
		Name:      "record",
		Usage:     "record the outcome of a call guard did not run",
		ArgsUsage: "KEY --success | --failure [--error TEXT]",
		Description: `Records the outcome of a call of KEY that ran without guard (a hook dispatcher
in Node or Python that runs its own commands, say), under the rules of guard
run, so that such a dispatcher and guard run share one circuit: failures trip
it, successes close it, the run is logged.

The circuit decides as it would have for a call made now. If it would have run
the call (closed; or open with its cooldown passed, when the record is the
probe), the outcome counts as that run's. If it would have skipped it (open,
tripped by hand, or half-open with a probe running elsewhere), the outcome is
that of a call the circuit did not admit, as gobreaker's two-step breaker has
it: it is kept in the totals and last_error, and logged, but it neither opens
nor closes the circuit; guard says so. A key disabled by hand (guard disable)
or under mode: disabled records nothing. min_interval does not apply: the call
ran already.

KEY is a key as guard run makes it of a command line or --name: a command
that refers to $CLAUDE_PROJECT_DIR is recorded for the project
CLAUDE_PROJECT_DIR names, and a hooks rule's scope applies (scope: session
takes --session); a key as 'guard status' shows it is taken too. The config's
hooks rules apply as for guard run, and the flags below override them.

Exit status: 0 when the outcome was taken (counted or not), 64 for a usage
error, 1 if the state could not be read or written.

Examples:
   guard record "python3 lint.py" --success
   guard record "python3 lint.py" --failure --error "exit 1: lint.py: 3 errors"
   guard record notify-slack --failure --error ECONNRESET --duration 2.5s
   guard record '$CLAUDE_PROJECT_DIR/.claude/hooks/check.sh' --success --json`,
		Flags: append([]cli.Flag{
			&cli.BoolFlag{Name: "success", Usage: "the call succeeded"},
			&cli.BoolFlag{Name: "failure", Usage: "the call failed"},
			&cli.StringFlag{Name: "error", Usage: "what went wrong, kept as last_error (with --failure)"},
			&cli.DurationFlag{Name: "duration", Usage: "how long the call ran, for run times and slow_call"},
			&cli.StringFlag{Name: "session", Usage: "the Claude Code session `ID` the call ran for (a key under scope: session)"},
			&cli.IntFlag{Name: "failure-threshold", Usage: "open the circuit after `N` failures", DefaultText: fromConfig},
			&cli.IntFlag{Name: "success-threshold", Usage: "close it after `N` successful probes", DefaultText: fromConfig},
			&cli.DurationFlag{Name: "cooldown", Usage: "keep it open for `DURATION` before probing", DefaultText: fromConfig},
			&cli.BoolFlag{Name: "json", Usage: "print what became of the outcome as JSON"},
		}, stateFlags()...),
		Action:       e.record,
		BashComplete: e.completeKeys,
	}
}

// maxRecordedError bounds the --error kept as last_error, as a run's
// stderr tail is bounded.
const maxRecordedError = 4 << 10

// A recordReport is what guard record --json prints.
type recordReport struct {
	Key     string `json:"key"`
	Outcome string `json:"outcome"` // success or failure, as recorded (a slow success is a failure)
	// Counted says that the outcome moved the circuit as a run's would
	// have; Probe that it counted as a half-open circuit's probe.
	Counted bool `json:"counted"`
	Probe   bool `json:"probe"`
	// NotCounted says why it did not: open, forced, probing, disabled
	// (guard disable) or mode_disabled (mode: disabled in the config).
	NotCounted  string              `json:"not_counted,omitempty"`
	State       string              `json:"state"` // after, as status shows it
	Transitions []transitionReport  `json:"transitions"`
	RetryAfter  *string             `json:"retry_after"`
	Failures    int                 `json:"consecutive_failures"`
	Totals      breakerTotalsReport `json:"totals"`
}

type transitionReport struct {
	From   string `json:"from"`
	To     string `json:"to"`
	Reason string `json:"reason"`
}

type breakerTotalsReport struct {
	Successes int64 `json:"successes"`
	Failures  int64 `json:"failures"`
}

func (e *env) record(c *cli.Context) error {
	if c.NArg() != 1 {
		return usagef("record takes one KEY, got %d arguments (usage: guard record KEY --success | --failure [--error TEXT])", c.NArg())
	}
	var o circuit.Outside
	switch {
	case c.Bool("success") && c.Bool("failure"):
		return usagef("give --success or --failure, not both")
	case c.Bool("success") && c.IsSet("error"):
		return usagef("--error goes with --failure: a success has no error")
	case c.Bool("success"):
		o.Outcome = breaker.Success
	case c.Bool("failure"):
		o.Outcome = breaker.Failure
		o.Error = strings.TrimSpace(c.String("error"))
		if len(o.Error) > maxRecordedError {
			o.Error = o.Error[len(o.Error)-maxRecordedError:]
		}
	default:
		return usagef("say what became of the call: --success or --failure (usage: guard record KEY --success | --failure [--error TEXT])")
	}
	if o.Duration = c.Duration("duration"); o.Duration < 0 {
		return usagef("--duration must not be negative")
	}
	call := guardrun.Call{Name: c.Args().First()}
	for _, f := range []struct {
		name string
		dst  **int
	}{{"failure-threshold", &call.FailureThreshold}, {"success-threshold", &call.SuccessThreshold}} {
		if c.IsSet(f.name) {
			v := c.Int(f.name)
			*f.dst = &v
		}
	}
	if c.IsSet("cooldown") {
		v := c.Duration("cooldown")
		call.Cooldown = &v
	}

	cfg, err := e.loadConfig(c)
	if err != nil {
		return err
	}
	arg := c.Args().First()
	key := circuit.ValidKey(arg)
	ruleKey := circuit.RuleKey(key)
	b, err := call.Settings(cfg, ruleKey)
	if err != nil {
		return &guardrun.UsageError{Err: err}
	}
	scoped := key
	if key == ruleKey { // not a key of a project or session already
		project := e.Getenv(circuit.ProjectVar)
		scoped = circuit.ProjectKey(key, project)
		if b.Scope != circuit.ScopeAuto && b.Scope != "" {
			scoped = circuit.ScopedKey(scoped, key, b.Scope, project, c.String("session"))
		}
	}
	r := o.Result(b)
	rep := recordReport{Outcome: string(r.Outcome), Transitions: []transitionReport{}}
	if !b.Enabled || b.Mode == "disabled" {
		rep.Key, rep.NotCounted, rep.State = scoped, "mode_disabled", string(breaker.Disabled)
		return e.recorded(c, rep, fmt.Sprintf("not recorded: %s is under mode: disabled in %s, which keeps no state", circuit.KeyWord(scoped), view.Printable(cfg.Source)))
	}
	hooks, err := e.OpenHooks(cfg)
	if err != nil {
		return err
	}
	h := guardrun.Host(e.Getenv)
	p := &circuit.Protocol{Self: store.Holder{Host: h, PID: os.Getpid()}}
	self := p.Holder()
	holder := breaker.Lease{Host: self.Host, PID: self.PID, Start: self.Start}
	s := b.Settings(ruleKey)
	now := e.Now()
	var rec circuit.Recorded
	err = hooks.Circuits.Update(now, func(tx store.CircuitTx) (bool, error) {
		rec = circuit.Recorded{}
		rep.Key = scoped
		if scoped == key {
			k, err := circuit.ResolveKey(arg, tx.Has)
			if err != nil {
				return false, err
			}
			rep.Key = k
		}
		var err error
		rec, err = circuit.RecordOutside(tx, rep.Key, s, store.TxNow(tx, now), holder, guardrun.Liveness(h).Lease, r, o.Duration)
		return !rec.Disabled, err
	})
	if err != nil {
		return err
	}
	var n guardrun.Notes
	n.Note(b, rep.Key, rec.Circuit, rec.Events, now)
	defer e.StartNotes(&n, cfg, hooks)
	cb := rec.Circuit
	rep.Counted, rep.Probe = rec.Counted, rec.Probe
	rep.State = string(cb.Shown())
	rep.Failures = cb.ConsecutiveFailures
	rep.Totals = breakerTotalsReport{Successes: cb.Totals.Successes, Failures: cb.Totals.Failures}
	if !cb.RetryAfter.IsZero() && cb.State == breaker.Open {
		t := store.Stamp(cb.RetryAfter)
		rep.RetryAfter = &t
	}
	for _, ev := range rec.Events {
		if ev.Kind == breaker.Transition {
			rep.Transitions = append(rep.Transitions, transitionReport{From: string(ev.From), To: string(ev.To), Reason: ev.Reason})
		}
	}
	word := circuit.KeyWord(rep.Key)
	var line string
	switch {
	case rec.Disabled:
		rep.NotCounted = "disabled"
		line = fmt.Sprintf("not recorded: %s is disabled by hand (%s); to turn it back on: %s", word, disabledBy(cb.Disabled), view.EnableCommand(rep.Key))
	case !rec.Counted:
		rep.NotCounted = string(rec.Skip)
		line = fmt.Sprintf("recorded %s for %s, not counted: the circuit would have skipped the call (%s), so it moves nothing; kept in the totals and last_error", o.Outcome, word, skipWords(rec.Skip))
	default:
		as := ""
		if r.Outcome != o.Outcome {
			as = fmt.Sprintf(" as a %s (%s)", r.Outcome, r.Error)
		}
		line = fmt.Sprintf("recorded %s for %s%s: %s", o.Outcome, word, as, recordedState(cb, b, rec))
	}
	return e.recorded(c, rep, line)
}

// recorded prints what became of a recorded outcome: line, or rep with
// --json.
func (e *env) recorded(c *cli.Context, rep recordReport, line string) error {
	if c.Bool("json") {
		return view.WriteJSON(e.Stdout, rep)
	}
	fmt.Fprintln(e.Stdout, view.Printable(line))
	return nil
}

// recordedState says where a circuit stands after a counted outcome.
func recordedState(c breaker.Circuit, b config.Breaker, rec circuit.Recorded) string {
	for _, ev := range rec.Events {
		if ev.Kind == breaker.Transition && ev.To == c.State {
			return fmt.Sprintf("%s -> %s (%s)", view.StateWord(string(ev.From)), view.StateWord(string(ev.To)), ev.Reason)
		}
	}
	switch c.State {
	case breaker.Open:
		return "open"
	case breaker.HalfOpen:
		if rec.Probe {
			return fmt.Sprintf("half_open, %d of %d successful probes", c.ConsecutiveSuccesses, max(1, b.SuccessThreshold))
		}
		return "half_open"
	}
	if c.ConsecutiveFailures > 0 && b.OfLast == 0 && b.FailureRate == 0 && b.FailureWindow == 0 {
		return fmt.Sprintf("closed, %d of %d failures in a row", c.ConsecutiveFailures, max(1, b.FailureThreshold))
	}
	return "closed"
}

// skipWords says why a circuit would skip a call, in a few words.
func skipWords(why breaker.SkipReason) string {
	switch why {
	case breaker.SkipForced:
		return "tripped by hand"
	case breaker.SkipProbing:
		return "half-open, a probe running elsewhere"
	case breaker.SkipInterval:
		return "min_interval"
	}
	return "open"
}

// disabledBy says who disabled a key, and when.
func disabledBy(d *breaker.Disable) string {
	if d == nil {
		return ""
	}
	who := d.User
	if d.Host != "" {
		who += "@" + d.Host
	}
	s := "by " + who
	if d.PID != 0 {
		s += fmt.Sprintf(" (pid %d)", d.PID)
	}
	s += " since " + d.Since.UTC().Format(time.RFC3339)
	if d.Reason != "" && d.Reason != "disabled by hand" {
		s += ": " + d.Reason
	}
	return s
}
