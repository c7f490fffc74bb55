package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"guard/breaker"
	"guard/config"
	"guard/internal/cooldown"
	"guard/internal/jsonx"
	"guard/internal/view"
)

func (e *env) cooldownHookCommand() *cli.Command {
	return &cli.Command{
		Name:  "hook",
		Usage: "enforce action budgets as a Claude Code PreToolUse (and record them as a PostToolUse) hook",
		Description: `Reads a Claude Code hook payload on stdin and matches tool_input.command
against the configured patterns (cooldown.patterns). By default they are
Claude Ops' commands, for every service named: docker restart|stop|start X,
docker compose restart X and docker compose up ... X are restarts;
ansible-playbook ... redeploy-X.yml and helm upgrade X are redeploys; and
docker compose up ... X --force-recreate is a redeploy only; guard adds
docker compose stop|start X and systemctl restart|stop|start X (restarts).
Each pattern is a regular expression with a (?P<service>...) group (or
(?P<services>...), a list separated by spaces) and names its action; the
first that matches a simple command decides.

The command is read as bash would run it, and every action counts, each
time it is taken: docker restart web; docker restart web is two restarts,
and so is docker restart web web. guard follows what runs other commands:
;, &&, ||, pipelines, subshells, $(...), if and case (the branch that takes
the most), for loops over words it can read (each round), functions and
aliases defined in the command, eval, sh -c, bash -lc and the other shells,
a shell reading a here-document or a literal pipe, sudo, su -c, env, nice,
nohup, timeout, exec, command, time, xargs (with its input's words when the
input is literal: echo web | xargs docker restart), find -exec, watch,
parallel, ssh HOST CMD, trap, git bisect run and guard run. Words are
expanded as bash does ($'...', quotes, backslashes, {a,b}, variables set
earlier in the command). Each simple command is matched in a normal form:
docker-compose read as docker compose, docker container X as docker X,
docker's global options dropped, then the positional words, then the options
with their values (--time=5). A pattern must match from the first word, so
"echo docker restart web" is no restart. A program guard does not know
(strace, chronic, docker exec, a script) may run a command among its words:
strace -f docker restart web is a restart of web. Programs known to take
their words as data (echo, printf, grep, jq, sed, git commit, ...) run none.

"docker compose restart" (up, stop, start) with no service named acts on
every service of the project: each service the state knows takes the
action. If the state knows none, it is refused (name the services).

As a PreToolUse hook: if the budget of a matched action has no room for all
the times the command takes it, exit 2 with a one-line reason on stderr
that ends in "needs human attention", which blocks the tool call. The same
when guard cannot count how many times it runs (a while loop, find -exec,
watch, xargs over input guard cannot see); when it runs commands guard
cannot see at all (eval "$CMD", curl ... | bash, bash -c "$(curl ...)",
$CMD), which may be anything; or when it cannot read a part of the command
(a variable set outside it, a command's output, a line that does not parse,
a command nested or longer than guard reads) that may take a budgeted
action: a pattern would match it for some value of what guard cannot read,
or it names a budgeted program or a service the state knows. Any other part
guard cannot read is allowed, with a warning on stderr. Otherwise exit 0.

With --record, as a PostToolUse (and PostToolUseFailure) hook: record each
matched action, as many times as it was taken. It failed if the event is
PostToolUseFailure, or the tool_response says it was interrupted, is an
error, or has a non-zero exit code; otherwise it succeeded.

A payload that is not JSON, or has no command, exits 0 with a warning: a
broken payload never blocks the agent. So does a mistyped flag, and any
other error of guard's own, with one exception: when the budgets cannot be
read (a database away, a cooldown file that cannot be read), a command that
takes a budgeted action is refused as a spent budget would be, since the
budget exists to stop it, and cooldown run refuses it too;
cooldown.failure_mode: open lets it through with a warning instead. A
configuration that does not load is such a case, judged by the built-in
actions and patterns with failure_mode closed (a typo must not switch the
budgets off). A command that takes no budgeted action is allowed either way.

Example settings.json:
   "PreToolUse":  [{"matcher": "Bash", "hooks": [{"type": "command", "command": "guard cooldown hook"}]}],
   "PostToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "guard cooldown hook --record"}]}],
   "PostToolUseFailure": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "guard cooldown hook --record"}]}]`,
		Flags: append([]cli.Flag{
			&cli.BoolFlag{Name: "record", Usage: "record the matched actions (PostToolUse) instead of checking them"},
		}, cooldownFlags()...),
		Action: e.cooldownHook,
		// A hook must never block the agent on guard's own account, a
		// mistyped flag included.
		OnUsageError: func(_ *cli.Context, err error, _ bool) error {
			e.Warnf("cooldown hook: %v; allowing", err)
			return nil
		},
	}
}

func (e *env) cooldownHook(c *cli.Context) (err error) {
	// A hook must never block the agent on guard's own account, and Go
	// exits 2 on a panic: a bug of guard's allows, with a warning.
	defer func() {
		if v := recover(); v != nil {
			e.Warnf("cooldown hook: internal error: %v; allowing", v)
			err = nil
		}
	}()
	// The state first: a state in PostgreSQL hands the call over to
	// guard-pg, which must find the payload still unread on stdin. A state
	// that cannot be opened (a database away) is a budget that cannot be
	// checked (cd.unreachable): what the command does decides.
	cd, err := e.openCooldownOrNot(c)
	if err != nil {
		e.Warnf("cooldown hook: %v; allowing", view.ErrorLine(err))
		_, _ = io.Copy(io.Discard, e.Stdin) // the caller may still be writing it
		return nil
	}
	data, err := io.ReadAll(e.Stdin)
	if err != nil {
		e.Warnf("cooldown hook: cannot read the payload: %v; allowing", err)
		return nil
	}
	var p cooldown.Payload
	if err := json.Unmarshal(data, &p); err != nil {
		e.Warnf("cooldown hook: the payload is not JSON (%s); allowing", view.ErrorLine(err))
		return nil
	}
	if strings.TrimSpace(p.ToolInput.Command) == "" {
		e.Warnf("cooldown hook: the payload has no tool_input.command; allowing")
		return nil
	}
	rd := cd.Read(p.ToolInput.Command)
	now := e.Now()

	if c.Bool("record") {
		e.recordReading(cd, rd, p, now)
		return nil
	}
	refusals, unchecked := e.refusals(cd, rd, now, "")
	if len(refusals) == 0 {
		if cd.unreachable != nil && len(rd.Takes) == 0 {
			e.Warnf("cooldown hook: %v; allowing", view.ErrorLine(cd.unreachable))
		}
		for _, u := range rd.Unsure {
			e.Warnf("cooldown hook: cannot read %s (%s); it names no budgeted command or known service, so allowing it", quoteCmd(u.Text), u.Reason)
		}
		return nil
	}
	const most = 10
	for i, line := range refusals {
		if i == most {
			fmt.Fprintf(e.Stderr, "guard: cooldown: and %d more; needs human attention\n", len(refusals)-most)
			break
		}
		fmt.Fprintln(e.Stderr, line)
	}
	if unchecked {
		fmt.Fprintln(e.Stderr, cd.hint())
	}
	return exit(2)
}

// recordReading records what a PostToolUse payload's command did: each
// action as many times as it was taken. What guard could not read is not
// recorded, with a warning.
func (e *env) recordReading(cd *budgets, rd cooldown.Reading, p cooldown.Payload, now time.Time) {
	for _, u := range rd.Unsure {
		if u.Risky {
			e.Warnf("cooldown hook: cannot read %s (%s); nothing recorded for it", quoteCmd(u.Text), u.Reason)
		}
	}
	for _, t := range rd.Takes {
		if t.Repeats != "" {
			e.Warnf("cooldown hook: %s %s ran %s, a number of times guard cannot count; recorded %d", t.Service, t.Action.Name, t.Repeats, t.N)
		}
	}
	if len(rd.Takes) == 0 {
		return
	}
	failed, why := p.Failed()
	if err := cd.RecordAll(rd.Takes, now, !failed, why); err != nil {
		e.Warnf("cooldown hook: could not record %s: %v", cooldown.Describe(rd.Takes), view.ErrorLine(err))
	}
}

// refusals returns a line for each reason to refuse what rd reads, each
// ending in "needs human attention"; none if it may run. suffix ends each
// reason before that ("; not running it"). A budget that cannot be checked
// (its state unreadable, a database away) is refused if cooldown.failure_mode
// is closed, and unchecked says so; if it is open, the action is allowed,
// with a warning.
func (e *env) refusals(cd *budgets, rd cooldown.Reading, now time.Time, suffix string) (out []string, unchecked bool) {
	for _, u := range rd.Unsure {
		if u.Risky {
			out = append(out, fmt.Sprintf("guard: cooldown: cannot tell what %s does to the budgets: %s; it may take a budgeted action (%s); %s%s; needs human attention",
				quoteCmd(u.Text), u.Reason, actionNames(cd), u.Hint, suffix))
		}
	}
	for _, t := range rd.Takes {
		if t.Repeats != "" {
			out = append(out, fmt.Sprintf("guard: cooldown: %s %s blocked: %s takes it %s, a number of times guard cannot count; take the action a known number of times%s; needs human attention",
				t.Service, t.Action.Name, quoteCmd(t.Where), t.Repeats, suffix))
			continue
		}
		v, err := cd.DecideN(t.Service, t.Action, t.N, now)
		if err != nil && cd.failClosed() {
			out = append(out, fmt.Sprintf("guard: cooldown: %s %s blocked: cannot check its budget: %s%s; needs human attention",
				view.Printable(t.Service), t.Action.Name, view.ErrorLine(err), suffix))
			unchecked = true
			continue
		}
		if err != nil {
			e.Warnf("cooldown hook: %v; allowing %s %s unchecked (cooldown.failure_mode is open)", view.ErrorLine(err), view.Printable(t.Service), t.Action.Name)
			continue
		}
		if !v.Allowed {
			out = append(out, fmt.Sprintf("guard: cooldown: %s %s blocked: %s%s; needs human attention", view.Printable(t.Service), t.Action.Name, budgetReason(t, v, now), suffix))
		}
	}
	return out, unchecked
}

// budgetReason says why a budget refused t's actions.
func budgetReason(t cooldown.Take, v breaker.Verdict, now time.Time) string {
	if t.N <= 1 {
		return view.BudgetLine(t.Action, v, now)
	}
	a := t.Action
	if t.N > v.Limit {
		return fmt.Sprintf("the command takes %d, more than the limit of %d %s in %s", t.N, v.Limit, a.Field, config.FormatDuration(a.Window))
	}
	s := fmt.Sprintf("the command takes %d, and %d of %d %s in the last %s are used", t.N, v.Used, v.Limit, a.Field, config.FormatDuration(a.Window))
	if !v.NextAllowed.IsZero() {
		s += fmt.Sprintf("; room for %d at %s (in %s)", t.N, v.NextAllowed.UTC().Format(jsonx.TimeLayout), view.Until(v.NextAllowed, now))
	}
	return s
}

// actionNames lists the configured actions: "redeploy, restart".
func actionNames(cd *budgets) string {
	var names []string
	for _, a := range cd.Actions {
		names = append(names, a.Name)
	}
	return strings.Join(names, ", ")
}

// quoteCmd shows a command in a one-line message.
func quoteCmd(s string) string {
	return "'" + view.Printable(view.Truncate(strings.TrimSpace(s), 120)) + "'"
}
