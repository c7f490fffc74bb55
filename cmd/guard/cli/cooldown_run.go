package cli

import (
	"fmt"
	"os"
	"os/signal"
	"time"

	"github.com/urfave/cli/v2"

	"guard/cmd/guard/guardrun"
	"guard/internal/circuit"
	"guard/internal/cooldown"
	"guard/internal/supervise"
	"guard/internal/view"
)

// cooldownRunCommand is guard cooldown run.
func (e *env) cooldownRunCommand() *cli.Command {
	return &cli.Command{
		Name:      "run",
		Usage:     "check, reserve, run and record: run CMD only if the budget allows it",
		ArgsUsage: "SERVICE ACTION -- CMD [ARG...]",
		Description: `Reserves one action of the budget under the lock, so that of two callers
racing for the last one exactly one runs, then runs CMD and records whether
it succeeded (exit 0). While CMD runs its record is marked in_progress and
counts against the budget. CMD is read as cooldown hook reads a command
(see guard cooldown hook --help): every action it takes is reserved too,
each time it takes it, SERVICE ACTION at least once. If a budget has no
room for them all, or CMD may take a budgeted action guard cannot count or
read, CMD does not run: guard says why, ending "needs human attention", and
exits 75. So it does when the budgets cannot be read or written (a database
away), unless cooldown.failure_mode is open: CMD then runs unchecked, with
a warning, and is recorded afterwards if the budgets can be reached again.
Otherwise guard exits with CMD's status.

Examples:
   guard cooldown run nginx restart -- docker restart nginx
   guard cooldown run web restart -- sh -c 'docker restart web && docker restart web-worker'`,
		Flags: append([]cli.Flag{
			&cli.DurationFlag{Name: "timeout", Usage: "stop CMD after `DURATION` (SIGTERM, then SIGKILL 5s later)"},
		}, cooldownFlags()...),
		Action:       e.cooldownRun,
		BashComplete: e.completeServices,
	}
}

func (e *env) cooldownRun(c *cli.Context) error {
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, supervise.Signals...)
	defer signal.Stop(sigs)
	// A signal before CMD starts ends a wait for the state's lock, and
	// guard, at once (guarantee 11): see signalled.
	ready := make(chan struct{})
	close(ready)
	e.Sigs, e.SigsReady = sigs, ready

	args := c.Args().Slice()
	if len(args) < 3 {
		return usagef("want SERVICE ACTION -- CMD [ARG...]")
	}
	service, name, argv := args[0], args[1], args[2:]
	if argv[0] == "--" {
		argv = argv[1:]
	}
	if len(argv) == 0 {
		return usagef("nothing to run after SERVICE ACTION")
	}
	if err := checkService(service); err != nil {
		return err
	}
	cd, err := e.openCooldownOrNot(c)
	if sig, ok := e.TakeSignal(); ok {
		return exit(128 + int(sig)) // nothing reserved, nothing ran
	}
	if err != nil {
		return &guardrun.ExitError{Code: exitRefused, Err: fmt.Errorf("%v; not running %s", err, circuit.CommandKey(argv))}
	}
	if cd.unreachable != nil && cd.failClosed() {
		fmt.Fprintf(e.Stderr, "guard: %s; not running %s\n", view.Printable(view.ErrorLine(cd.unreachable)), view.Printable(circuit.CommandKey(argv)))
		fmt.Fprintln(e.Stderr, cd.hint())
		return exit(exitRefused)
	}
	a, err := cd.action(name)
	if err != nil {
		return err
	}
	// Every action CMD takes counts, the one named first: guard cooldown
	// run web restart -- sh -c 'docker restart web; docker restart db'
	// takes a restart of each.
	rd := cd.ReadArgv(argv)
	takes := declare(rd.Takes, cooldown.Take{Match: cooldown.Match{Service: service, Action: a}, N: 1, Where: circuit.CommandKey(argv)})
	rd.Takes = nil
	now := e.Now()
	if refusals, _ := e.refusals(cd, cooldown.Reading{Unsure: rd.Unsure, Takes: repeating(takes)}, now, "; not running it"); len(refusals) > 0 {
		for _, line := range refusals {
			fmt.Fprintln(e.Stderr, line)
		}
		return exit(exitRefused)
	}
	for _, u := range rd.Unsure {
		e.Warnf("cooldown run: cannot read %s (%s); it names no budgeted command or known service", quoteCmd(u.Text), u.Reason)
	}
	pid := os.Getpid()
	refused, v, err := cd.ReserveAll(takes, now, pid)
	if err != nil && e.Signalled() {
		sig, _ := e.TakeSignal()
		return exit(128 + int(sig)) // the wait for the lock was cut short: nothing reserved
	}
	reserved := err == nil
	switch {
	case err != nil && cd.failClosed():
		fmt.Fprintf(e.Stderr, "guard: cannot check the %s budget: %s; not running it\n", view.Printable(cooldown.Describe(takes)), view.Printable(view.ErrorLine(err)))
		fmt.Fprintln(e.Stderr, cd.hint())
		return exit(exitRefused)
	case err != nil:
		e.Warnf("cannot check the %s budget: %v; running it unchecked (cooldown.failure_mode is open)", cooldown.Describe(takes), view.ErrorLine(err))
	}
	if refused != nil {
		fmt.Fprintf(e.Stderr, "guard: cooldown: %s %s not allowed: %s; needs human attention\n", view.Printable(refused.Service), refused.Action.Name, budgetReason(*refused, v, now))
		return exit(exitRefused)
	}

	var res supervise.Result
	if sig, ok := e.TakeSignal(); ok {
		// A signal while guard checked and reserved: CMD never starts, and
		// its reservation is given back as for a CMD that could not start.
		res = supervise.Result{ExitCode: 128 + int(sig), Interrupted: sig,
			StartErr: fmt.Errorf("signal %v came before it started; not running it", sig)}
	} else {
		res = supervise.Run(supervise.Spec{
			Argv: argv, Stdin: e.Stdin, Stdout: e.Stdout, Stderr: e.Stderr,
			Timeout: c.Duration("timeout"), KillGrace: 5 * time.Second, Signals: sigs,
		})
	}
	if !res.Ran() {
		fmt.Fprintf(e.Stderr, "guard: %s\n", view.Printable(res.StartErr.Error()))
	}
	switch {
	case reserved:
		if err := cd.FinishAll(takes, now, e.Now(), pid, &res, c.Duration("timeout")); err != nil {
			e.Warnf("could not record the outcome of %s: %v (its reservation still counts)", cooldown.Describe(takes), view.ErrorLine(err))
		}
	case res.Ran():
		// Run unchecked: count it now if the budgets can be reached again.
		success, msg := res.ExitCode == 0 && res.Interrupted == nil, res.Describe(c.Duration("timeout"))
		if err := cd.RecordAll(takes, e.Now(), success, msg); err != nil {
			e.Warnf("could not record %s: %v", cooldown.Describe(takes), view.ErrorLine(err))
		}
	}
	return exit(res.ExitCode)
}

// declare returns the actions a cooldown run takes: those its command was
// read to take, and the one it names at least once.
func declare(takes []cooldown.Take, named cooldown.Take) []cooldown.Take {
	for i, t := range takes {
		if t.Match == named.Match {
			takes[i].N = max(t.N, 1)
			return append(append([]cooldown.Take{takes[i]}, takes[:i]...), takes[i+1:]...)
		}
	}
	return append([]cooldown.Take{named}, takes...)
}

// repeating returns the takes whose count guard cannot tell: the only
// ones refusals need to see before ReserveAll checks the rest.
func repeating(takes []cooldown.Take) []cooldown.Take {
	var out []cooldown.Take
	for _, t := range takes {
		if t.Repeats != "" {
			out = append(out, t)
		}
	}
	return out
}
