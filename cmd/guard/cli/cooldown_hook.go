package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/urfave/cli/v2"

	"guard/internal/cooldown"
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
docker compose up ... X --force-recreate is a redeploy only. Each pattern is a
regular expression with a (?P<service>...) group (or (?P<services>...), a
list separated by spaces) and names its action; the first that matches a
simple command decides.

The command is read as a shell reads it: each simple command it runs
(through ;, &&, pipelines, subshells, $(...), sudo, env, nice, timeout) is
matched on its own, in a normal form: docker-compose read as docker compose,
docker container X as docker X, docker's global options dropped, then the
positional words, then the options with their values (--time=5). A pattern
must match from the first word, so "echo docker restart web" is no restart,
and "docker restart -t 5 web" is a restart of web.

As a PreToolUse hook: if the budget of any matched action is spent, exit 2
with a one-line reason on stderr that ends in "needs human attention", which
blocks the tool call; otherwise exit 0.

With --record, as a PostToolUse (and PostToolUseFailure) hook: record each
matched action. It failed if the event is PostToolUseFailure, or the
tool_response says it was interrupted, is an error, or has a non-zero exit
code; otherwise it succeeded.

A payload that is not JSON, or has no command, exits 0 with a warning: a
broken payload never blocks the agent. So does a cooldown file that cannot
be read or written.

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
			e.warnf("cooldown hook: %v; allowing", err)
			return nil
		},
	}
}

func (e *env) cooldownHook(c *cli.Context) error {
	// The state first: a state in PostgreSQL hands the call over to
	// guard-pg, which must find the payload still unread on stdin.
	cd, err := e.openCooldown(c)
	if err != nil {
		e.warnf("cooldown hook: %v; allowing", view.ErrorLine(err))
		_, _ = io.Copy(io.Discard, e.stdin) // the caller may still be writing it
		return nil
	}
	data, err := io.ReadAll(e.stdin)
	if err != nil {
		e.warnf("cooldown hook: cannot read the payload: %v; allowing", err)
		return nil
	}
	var p cooldown.Payload
	if err := json.Unmarshal(data, &p); err != nil {
		e.warnf("cooldown hook: the payload is not JSON (%s); allowing", view.ErrorLine(err))
		return nil
	}
	if strings.TrimSpace(p.ToolInput.Command) == "" {
		e.warnf("cooldown hook: the payload has no tool_input.command; allowing")
		return nil
	}
	matches := cd.Match(p.ToolInput.Command)
	if len(matches) == 0 {
		return nil
	}
	now := e.now()

	if c.Bool("record") {
		failed, why := p.Failed()
		if err := cd.RecordAll(matches, now, !failed, why); err != nil {
			e.warnf("cooldown hook: could not record %s: %v", cooldown.Describe(matches), view.ErrorLine(err))
		}
		return nil
	}

	for _, m := range matches {
		v, err := cd.Decide(m.Service, m.Action, now)
		if err != nil {
			e.warnf("cooldown hook: %v; allowing", err)
			continue
		}
		if !v.Allowed {
			fmt.Fprintf(e.stderr, "guard: cooldown: %s %s blocked: %s; needs human attention\n", view.Printable(m.Service), m.Action.Name, view.BudgetLine(m.Action, v, now))
			return exit(2)
		}
	}
	return nil
}
