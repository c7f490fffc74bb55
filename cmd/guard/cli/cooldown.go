package cli

import (
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"guard/cmd/guard/guardrun"
	"guard/config"
	"guard/internal/cooldown"
	"guard/internal/store"
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
			e.cooldownCheckCommand(),
			e.cooldownRecordCommand(),
			e.cooldownRunCommand(),
			e.cooldownHealthyCommand(),
			e.cooldownUnhealthyCommand(),
			e.cooldownStatusCommand(),
			e.cooldownMarkCommand(),
			e.cooldownDueCommand(),
			e.cooldownHookCommand(),
		}, e.cooldownCheckpointCommands()...),
	}
}

// jsonFlag is the --json flag of the cooldown commands that print.
func jsonFlag() cli.Flag { return &cli.BoolFlag{Name: "json", Usage: "print JSON"} }

// budgets is what every cooldown command needs: the budget rules on the
// cooldown state.
type budgets struct {
	cfg *config.Config
	*cooldown.Rules
	state *store.Cooldown
	// unreachable, if not nil, is why the state could not be opened: the
	// rules' every read and write of it fails with it (see
	// openCooldownOrNot).
	unreachable error
	// badConfig says unreachable is a configuration that does not load:
	// cfg is then the built-in one.
	badConfig bool
}

func (e *env) openCooldown(c *cli.Context) (*budgets, error) {
	cfg, err := config.Load(config.Options{Path: c.String("config"), Getenv: e.Getenv, Environ: e.Environ})
	if err != nil {
		return nil, err
	}
	return e.openCooldownAt(cfg, c.String("state"))
}

// openCooldownOrNot is openCooldown for the commands that decide on an
// action even when the state cannot be opened (a database away): it fails
// only if the configuration cannot be read, and otherwise returns budgets
// whose every read and write fails with the reason, so that what the
// command does decides (cooldown.failure_mode, see failClosed).
//
// A configuration that does not load is budgets that cannot be checked too:
// the built-in actions and patterns say what is budgeted, and
// cooldown.failure_mode is its default, closed, so that a typo in
// guardrails.yaml never switches the budgets off for cooldown hook while
// cooldown run refuses to run (TC's variant of faults #6). It returns an
// error only if the built-in configuration cannot be had.
func (e *env) openCooldownOrNot(c *cli.Context) (*budgets, error) {
	cfg, err := config.Load(config.Options{Path: c.String("config"), Getenv: e.Getenv, Environ: e.Environ})
	if err != nil {
		return e.unreachableBudgets(config.Default(e.Getenv("HOME")), err, true), nil
	}
	cd, err := e.openCooldownAt(cfg, c.String("state"))
	if err == nil {
		return cd, nil
	}
	return e.unreachableBudgets(cfg, err, false), nil
}

// unreachableBudgets returns budgets of cfg whose every read and write
// fails with err.
func (e *env) unreachableBudgets(cfg *config.Config, err error, badConfig bool) *budgets {
	actions := store.ActionList(cfg)
	return &budgets{cfg: cfg, unreachable: err, badConfig: badConfig, state: &store.Cooldown{Actions: actions}, Rules: &cooldown.Rules{
		Budgets: unreachable{err}, Actions: actions, ResetAfterHealthy: cfg.Cooldown.ResetAfterHealthy, Retention: cfg.Cooldown.Retention,
		Patterns: cfg.Cooldown.Patterns, Warn: e.warnErrors,
	}}
}

// unreachable is the budgets of a state that could not be opened.
type unreachable struct{ err error }

func (u unreachable) Update(time.Time, func(store.BudgetTx) (bool, error)) error { return u.err }
func (u unreachable) Snapshot() (store.BudgetView, error)                        { return nil, u.err }

// failClosed reports whether a budgeted action is refused when its budget
// cannot be read or written (cooldown.failure_mode: closed, the default)
// rather than let through with a warning (open): faults #6, where cooldown
// hook let a third restart through while the database was away and
// cooldown run refused it.
func (cd *budgets) failClosed() bool { return cd.cfg.Cooldown.FailureMode != "open" }

// failModeHint is the hint printed after a refusal for want of the budgets.
const failModeHint = "guard: hint: the budgets could not be read, and cooldown.failure_mode is closed; set it to open to let budgeted actions run unchecked while they cannot be"

// badConfigHint is the hint printed after a refusal for want of a
// configuration that loads.
const badConfigHint = "guard: hint: the configuration does not load, so guard cannot check the budgets (cooldown.failure_mode is closed until it does); fix it, and guard config check says whether it loads"

// hint returns the hint for a refusal for want of the budgets.
func (cd *budgets) hint() string {
	if cd.badConfig {
		return badConfigHint
	}
	return failModeHint
}

// openCooldownAt opens the cooldown state at path (empty: the one cfg
// names) with cfg's actions.
func (e *env) openCooldownAt(cfg *config.Config, path string) (*budgets, error) {
	st, err := store.OpenCooldown(cfg, path, e.BackendOptions())
	if err != nil {
		return nil, e.Handoff(err)
	}
	st.Where = view.Printable(config.Redact(st.Where)) // for people: secrets hidden, escaped
	return &budgets{cfg: cfg, state: st, Rules: &cooldown.Rules{
		Budgets: st.Budgets, Actions: st.Actions, ResetAfterHealthy: cfg.Cooldown.ResetAfterHealthy, Retention: cfg.Cooldown.Retention,
		Patterns: cfg.Cooldown.Patterns, Warn: e.warnErrors,
	}}, nil
}

// action returns the configured action called name, or a usage error.
func (cd *budgets) action(name string) (store.Action, error) {
	a, err := cd.Action(name)
	if err != nil {
		return a, &guardrun.UsageError{Err: err}
	}
	return a, nil
}

// checkService refuses a service name cooldown.CheckService refuses, as a
// usage error.
func checkService(name string) error {
	if err := cooldown.CheckService(name); err != nil {
		return &guardrun.UsageError{Err: err}
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

func oneService(c *cli.Context) (string, error) {
	if c.NArg() != 1 {
		return "", usagef("want one SERVICE, got %d arguments", c.NArg())
	}
	return c.Args().First(), checkService(c.Args().First())
}

// oneStamp reads the NAME argument of mark and due. NAME may be written
// as the file's member is, last_run for run (newcomer-and-mission #16:
// last_run was stored as last_last_run).
func oneStamp(c *cli.Context) (string, error) {
	if c.NArg() != 1 {
		return "", usagef("want one NAME")
	}
	name := strings.TrimPrefix(c.Args().First(), "last_")
	if err := store.CheckStamp(name); err != nil {
		return "", &guardrun.UsageError{Err: err}
	}
	return name, nil
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
	e.Warnf(format, args...)
}
