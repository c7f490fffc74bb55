package cli

import (
	"fmt"
	"os"
	"os/signal"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"guard/config"
	"guard/internal/circuit"
	"guard/internal/cooldown"
	"guard/internal/store"
	"guard/internal/supervise"
	"guard/internal/view"
)

// exitRefused is guard cooldown run's status when it did not run the
// command: the budget is spent, or its state could not be checked. It is
// EX_TEMPFAIL from sysexits.h: try again later.
const exitRefused = 75

func cooldownFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "config", Usage: "the config `FILE` (default: $GUARD_CONFIG, then ~/.claude/guardrails.yaml)"},
		&cli.StringFlag{Name: "state", Aliases: []string{"cooldown-state"}, Usage: "the cooldown state `FILE` or postgres:// URL (default: $GUARD_COOLDOWN_STATE, $CLAUDEOPS_STATE_DIR/cooldown.json, ~/.claude/cooldown.json)"},
	}
}

func (e *env) cooldownCommand() *cli.Command {
	jsonFlag := &cli.BoolFlag{Name: "json", Usage: "print JSON"}
	return &cli.Command{
		Name:  "cooldown",
		Usage: "action budgets for services: at most N actions per window",
		Description: `Keeps budgets such as "at most 2 restarts of a service in any 4 hours, and
1 redeploy in 24 hours, cleared after 2 healthy checks in a row", in the ops
agent's cooldown.json format, locked and replaced atomically so that
parallel callers lose nothing. Actions and their budgets come from the
cooldown section of guardrails.yaml (defaults: restart, 2 per 4h, recorded
in "restarts"; redeploy, 1 per 24h, in "redeployments"; "redeployment", Claude
Ops' name, is accepted for it). Where the file keeps Claude Ops' bare
restart_timestamps/redeployment_timestamps arrays, records go there too, and
an action in both counts once; cooldown: {preset: claude-ops} gives Claude
Ops' budgets and patterns exactly.

Examples:
   guard cooldown check nginx restart && docker restart nginx
   guard cooldown run nginx restart -- docker restart nginx
   guard cooldown record nginx restart --failed --error "exited 137"
   guard cooldown healthy nginx
   guard cooldown status --json
   guard cooldown due daily_digest --every 24h --mark && send-digest`,
		Subcommands: append([]*cli.Command{
			{
				Name:      "check",
				Usage:     "exit 0 if the action is allowed now; exit 1 with the reason and the next allowed time",
				ArgsUsage: "SERVICE ACTION",
				Description: `Says how many of ACTION's budget SERVICE has used in the window, the limit,
and when the next one is allowed, and exits 0 if one more is allowed now, 1
if not. It changes nothing (the decision is logged).

Example:
   guard cooldown check nginx restart && docker restart nginx`,
				Flags:        append([]cli.Flag{jsonFlag}, cooldownFlags()...),
				Action:       e.cooldownCheck,
				BashComplete: e.completeServices,
			},
			{
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
			},
			{
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
exits 75. Otherwise guard exits with CMD's status.

Examples:
   guard cooldown run nginx restart -- docker restart nginx
   guard cooldown run web restart -- sh -c 'docker restart web && docker restart web-worker'`,
				Flags: append([]cli.Flag{
					&cli.DurationFlag{Name: "timeout", Usage: "stop CMD after `DURATION` (SIGTERM, then SIGKILL 5s later)"},
				}, cooldownFlags()...),
				Action:       e.cooldownRun,
				BashComplete: e.completeServices,
			},
			{
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
			},
			{
				Name:      "unhealthy",
				Usage:     "end the service's healthy streak",
				ArgsUsage: "SERVICE",
				Description: `Sets SERVICE's consecutive_healthy back to 0.

Example:
   guard cooldown unhealthy nginx`,
				Flags:        cooldownFlags(),
				Action:       e.cooldownUnhealthy,
				BashComplete: e.completeServices,
			},
			{
				Name:      "status",
				Usage:     "budgets used, in_cooldown and next allowed time, per service",
				ArgsUsage: "[SERVICE]",
				Description: `--json prints {"services": {NAME: {"in_cooldown", "consecutive_healthy",
"actions": {ACTION: {"field", "used", "limit", "window", "window_ms",
"in_cooldown", "next_allowed"}}}}, "last": {NAME: time}}, where next_allowed
is when the next action is allowed (now if it is) and last holds the
last_NAME stamps.

Examples:
   guard cooldown status
   guard cooldown status nginx --json | jq .services.nginx.in_cooldown`,
				Flags:        append([]cli.Flag{jsonFlag}, cooldownFlags()...),
				Action:       e.cooldownStatus,
				BashComplete: e.completeServices,
			},
			{
				Name:      "mark",
				Usage:     "set last_NAME to now (run, daily_digest, ...)",
				ArgsUsage: "NAME",
				Description: `Sets the top-level last_NAME of the cooldown file to now, as the ops agent
stamps last_run and last_daily_digest.

Example:
   guard cooldown mark run`,
				Flags:  cooldownFlags(),
				Action: e.cooldownMark,
			},
			{
				Name:      "due",
				Usage:     "exit 0 when last_NAME is unset or older than --every; else exit 1",
				ArgsUsage: "NAME --every DURATION",
				Description: `With --mark, a due NAME is marked in the same locked update, so that of many
agents asking at once exactly one is told it is due.

Example:
   guard cooldown due daily_digest --every 24h --mark && send-daily-digest`,
				Flags: append([]cli.Flag{
					&cli.DurationFlag{Name: "every", Usage: "how often NAME is due"},
					&cli.BoolFlag{Name: "mark", Usage: "if due, set last_NAME to now"},
				}, cooldownFlags()...),
				Action: e.cooldownDue,
			},
			e.cooldownHookCommand(),
		}, e.cooldownCheckpointCommands()...),
	}
}

// budgets is what every cooldown command needs: the budget rules on the
// cooldown state.
type budgets struct {
	cfg *config.Config
	*cooldown.Rules
	state *store.Cooldown
}

func (e *env) openCooldown(c *cli.Context) (*budgets, error) {
	cfg, err := config.Load(config.Options{Path: c.String("config"), Getenv: e.getenv, Environ: e.environ})
	if err != nil {
		return nil, err
	}
	return e.openCooldownAt(cfg, c.String("state"))
}

// openCooldownAt opens the cooldown state at path (empty: the one cfg
// names) with cfg's actions.
func (e *env) openCooldownAt(cfg *config.Config, path string) (*budgets, error) {
	st, err := store.OpenCooldown(cfg, path, e.backendOptions())
	if err != nil {
		return nil, e.handoff(err)
	}
	st.Where = view.Printable(config.Redact(st.Where)) // for people: secrets hidden, escaped
	return &budgets{cfg: cfg, state: st, Rules: &cooldown.Rules{
		Budgets: st.Budgets, Actions: st.Actions, ResetAfterHealthy: cfg.Cooldown.ResetAfterHealthy,
		Patterns: cfg.Cooldown.Patterns, Warn: e.warnErrors,
	}}, nil
}

// action returns the configured action called name, or a usage error.
func (cd *budgets) action(name string) (store.Action, error) {
	a, err := cd.Action(name)
	if err != nil {
		return a, &usageError{err: err}
	}
	return a, nil
}

// checkService refuses a service name cooldown.CheckService refuses, as a
// usage error.
func checkService(name string) error {
	if err := cooldown.CheckService(name); err != nil {
		return &usageError{err: err}
	}
	return nil
}

// cooldownTarget reads the SERVICE ACTION arguments of check and record,
// and opens the cooldown state the action is counted in.
func (e *env) cooldownTarget(c *cli.Context) (string, *budgets, store.Action, error) {
	if c.NArg() != 2 {
		return "", nil, store.Action{}, usagef("want SERVICE ACTION, got %d arguments", c.NArg())
	}
	cd, err := e.openCooldown(c)
	if err != nil {
		return "", nil, store.Action{}, err
	}
	if err := checkService(c.Args().Get(0)); err != nil {
		return "", nil, store.Action{}, err
	}
	a, err := cd.action(c.Args().Get(1))
	return c.Args().Get(0), cd, a, err
}

func (e *env) cooldownCheck(c *cli.Context) error {
	service, cd, a, err := e.cooldownTarget(c)
	if err != nil {
		return err
	}
	now := e.now()
	v, err := cd.Decide(service, a, now)
	if err != nil {
		return err
	}
	if c.Bool("json") {
		if err := view.WriteJSON(e.stdout, view.VerdictOf(service, a, v)); err != nil {
			return err
		}
	} else if v.Allowed {
		fmt.Fprintf(e.stdout, "%s %s: allowed (%s)\n", view.Printable(service), a.Name, view.BudgetLine(a, v, now))
	} else {
		fmt.Fprintf(e.stdout, "%s %s: not allowed: %s\n", view.Printable(service), a.Name, view.BudgetLine(a, v, now))
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
	now := e.now()
	v, err := cd.Record(service, a, now, !failed, c.String("error"))
	if err != nil {
		return err
	}
	what := "recorded"
	if failed {
		what = "recorded a failed"
	}
	fmt.Fprintf(e.stdout, "%s %s %s: %s\n", what, view.Printable(service), a.Name, view.BudgetLine(a, v, now))
	return nil
}

func (e *env) cooldownRun(c *cli.Context) error {
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, supervise.Signals...)
	defer signal.Stop(sigs)

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
	cd, err := e.openCooldown(c)
	if err != nil {
		return &exitError{code: exitRefused, err: fmt.Errorf("%v; not running %s", err, circuit.CommandKey(argv))}
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
	now := e.now()
	if refusals := e.refusals(cd, cooldown.Reading{Unsure: rd.Unsure, Takes: repeating(takes)}, now, "; not running it"); len(refusals) > 0 {
		for _, line := range refusals {
			fmt.Fprintln(e.stderr, line)
		}
		return exit(exitRefused)
	}
	for _, u := range rd.Unsure {
		e.warnf("cooldown run: cannot read %s (%s); it names no budgeted command or known service", quoteCmd(u.Text), u.Reason)
	}
	pid := os.Getpid()
	refused, v, err := cd.ReserveAll(takes, now, pid)
	if err != nil {
		return &exitError{code: exitRefused, err: fmt.Errorf("cannot check the %s budget: %v; not running it", cooldown.Describe(takes), view.ErrorLine(err))}
	}
	if refused != nil {
		fmt.Fprintf(e.stderr, "guard: cooldown: %s %s not allowed: %s; needs human attention\n", view.Printable(refused.Service), refused.Action.Name, budgetReason(*refused, v, now))
		return exit(exitRefused)
	}

	res := supervise.Run(supervise.Spec{
		Argv: argv, Stdin: e.stdin, Stdout: e.stdout, Stderr: e.stderr,
		Timeout: c.Duration("timeout"), KillGrace: 5 * time.Second, Signals: sigs,
	})
	if !res.Ran() {
		fmt.Fprintf(e.stderr, "guard: %s\n", view.Printable(res.StartErr.Error()))
	}
	if err := cd.FinishAll(takes, now, e.now(), pid, &res, c.Duration("timeout")); err != nil {
		e.warnf("could not record the outcome of %s: %v (its reservation still counts)", cooldown.Describe(takes), view.ErrorLine(err))
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

func oneService(c *cli.Context) (string, error) {
	if c.NArg() != 1 {
		return "", usagef("want one SERVICE, got %d arguments", c.NArg())
	}
	return c.Args().First(), checkService(c.Args().First())
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
	streak, cleared, err := cd.Healthy(service, e.now())
	if err != nil {
		return err
	}
	if cleared {
		var fields []string
		for _, a := range cd.Actions {
			fields = append(fields, a.Field)
		}
		fmt.Fprintf(e.stdout, "%s: healthy %d in a row: cleared %s\n", view.Printable(service), reset, strings.Join(fields, ", "))
	} else {
		fmt.Fprintf(e.stdout, "%s: healthy %d in a row (budgets clear at %d)\n", view.Printable(service), streak, reset)
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
	if err := cd.Unhealthy(service, e.now()); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "%s: unhealthy; healthy streak reset to 0\n", view.Printable(service))
	return nil
}

func (e *env) cooldownStatus(c *cli.Context) error {
	if c.NArg() > 1 {
		return usagef("want at most one SERVICE")
	}
	cd, err := e.openCooldown(c)
	if err != nil {
		return err
	}
	doc, err := cd.Snapshot()
	if err != nil {
		return err
	}
	now := e.now()
	names := doc.ServiceNames()
	if c.NArg() == 1 {
		names = []string{c.Args().First()}
	}
	st, err := view.BudgetStatusOf(doc, cd.Actions, names, now)
	if err != nil {
		return err
	}
	if c.Bool("json") {
		return view.WriteJSON(e.stdout, st)
	}
	if len(names) == 0 {
		fmt.Fprintf(e.stdout, "no services yet in %s\n", cd.state.Where)
		return nil
	}
	view.WriteBudgetTable(e.stdout, st, names, cd.Actions, now)
	return nil
}

// oneStamp reads the NAME argument of mark and due.
func oneStamp(c *cli.Context) (string, error) {
	if c.NArg() != 1 {
		return "", usagef("want one NAME")
	}
	if err := store.CheckStamp(c.Args().First()); err != nil {
		return "", &usageError{err: err}
	}
	return c.Args().First(), nil
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
	now := e.now()
	if err := cd.Mark(name, now); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "last_%s = %s\n", name, now.UTC().Truncate(time.Second).Format(time.RFC3339))
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
	now := e.now()
	last, due, err := cd.Due(name, every, now, c.Bool("mark"))
	if err != nil {
		return err
	}
	switch {
	case last.IsZero():
		fmt.Fprintf(e.stdout, "due: last_%s was never set\n", name)
	case due:
		fmt.Fprintf(e.stdout, "due: last_%s was %s ago\n", name, now.Sub(last).Truncate(time.Second))
	default:
		fmt.Fprintf(e.stdout, "not due: last_%s was %s ago; due again in %s\n", name, now.Sub(last).Truncate(time.Second), view.Until(last.Add(every), now))
		return exit(1)
	}
	return nil
}

// warnErrors is warnf for a lower package's warnings: errors among args
// are shortened to their telling line (view.ErrorLine), as guard words
// every error for people.
func (e *env) warnErrors(format string, args ...any) {
	for i, a := range args {
		if err, ok := a.(error); ok {
			args[i] = view.ErrorLine(err)
		}
	}
	e.warnf(format, args...)
}
