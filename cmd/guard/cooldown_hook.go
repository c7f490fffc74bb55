package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/urfave/cli/v2"

	"guard/cooldownstate"
	"guard/shellcmd"
)

func (e *env) cooldownHookCommand() *cli.Command {
	return &cli.Command{
		Name:  "hook",
		Usage: "enforce action budgets as a Claude Code PreToolUse (and record them as a PostToolUse) hook",
		Description: `Reads a Claude Code hook payload on stdin and matches tool_input.command
against the configured patterns (cooldown.patterns: by default docker restart
X, docker compose restart X, and docker compose up -d --force-recreate X as a
redeploy). Each pattern is a regular expression with a (?P<service>...) group,
and names its action.

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

// hookPayload is the part of a Claude Code hook payload guard reads.
type hookPayload struct {
	HookEventName string `json:"hook_event_name"`
	ToolInput     struct {
		Command string `json:"command"`
	} `json:"tool_input"`
	ToolResponse json.RawMessage `json:"tool_response"`
	Error        any             `json:"error"`
}

// failed reports whether the tool call the payload describes failed, and
// why.
func (p *hookPayload) failed() (bool, string) {
	if p.HookEventName == "PostToolUseFailure" {
		return true, errorText(p.Error, "the tool call failed")
	}
	if msg := errorText(p.Error, ""); msg != "" {
		return true, msg
	}
	var resp map[string]any
	if json.Unmarshal(p.ToolResponse, &resp) != nil {
		return false, ""
	}
	if resp["interrupted"] == true {
		return true, "interrupted"
	}
	if resp["is_error"] == true || resp["isError"] == true {
		return true, errorText(resp["stderr"], "the tool reported an error")
	}
	for _, k := range []string{"exit_code", "exitCode", "returnCode", "return_code"} {
		if n, ok := resp[k].(float64); ok && n != 0 {
			return true, fmt.Sprintf("exit %d: %s", int(n), errorText(resp["stderr"], ""))
		}
	}
	return false, ""
}

func errorText(v any, fallback string) string {
	switch x := v.(type) {
	case string:
		if s := strings.TrimSpace(x); s != "" {
			return lastError(s, 500)
		}
	case nil:
	default:
		if b, err := json.Marshal(x); err == nil && string(b) != "false" {
			return string(b)
		}
	}
	return fallback
}

// hookMatch is one action a command takes on a service.
type hookMatch struct {
	service string
	action  cooldownstate.Action
}

// matchActions finds the budgeted actions in command. The command is read
// as a shell reads it (shellcmd): each simple command it runs, through
// pipelines, lists, subshells, sudo and env, is put in its normal form, and
// a pattern must match that from its first word, so that words that are
// only arguments (echo docker restart web) are no action. A command that
// does not parse is matched whole, as one simple command.
func (cd *cooldown) matchActions(command string) []hookMatch {
	var forms []string
	if cs, err := shellcmd.Parse(command); err == nil {
		for _, c := range cs {
			if n := c.Normal(); n != "" {
				forms = append(forms, n)
			}
		}
	} else {
		forms = []string{strings.Join(strings.Fields(command), " ")}
	}
	var out []hookMatch
	seen := map[hookMatch]bool{}
	for _, form := range forms {
		for i := range cd.cfg.Cooldown.Patterns {
			p := &cd.cfg.Cooldown.Patterns[i]
			re := p.Regexp()
			m := re.FindStringSubmatchIndex(form)
			si := re.SubexpIndex("service")
			if m == nil || m[0] != 0 || si < 0 || m[2*si] < 0 {
				continue
			}
			service := form[m[2*si]:m[2*si+1]]
			a, err := cd.action(p.Action)
			if err != nil || checkService(service) != nil {
				continue
			}
			hm := hookMatch{service: service, action: a}
			if !seen[hm] {
				seen[hm] = true
				out = append(out, hm)
			}
		}
	}
	return out
}

func (e *env) cooldownHook(c *cli.Context) error {
	data, err := io.ReadAll(e.stdin)
	if err != nil {
		e.warnf("cooldown hook: cannot read the payload: %v; allowing", err)
		return nil
	}
	var p hookPayload
	if err := json.Unmarshal(data, &p); err != nil {
		e.warnf("cooldown hook: the payload is not JSON (%s); allowing", shortErr(err))
		return nil
	}
	if strings.TrimSpace(p.ToolInput.Command) == "" {
		e.warnf("cooldown hook: the payload has no tool_input.command; allowing")
		return nil
	}
	cd, err := e.openCooldown(c)
	if err != nil {
		e.warnf("cooldown hook: %v; allowing", oneLine(err))
		return nil
	}
	matches := cd.matchActions(p.ToolInput.Command)
	if len(matches) == 0 {
		return nil
	}
	now := e.now()

	if c.Bool("record") {
		failed, why := p.failed()
		err := cd.store.Update(now, func(d *cooldownstate.Document) (bool, error) {
			for _, m := range matches {
				if err := d.Record(m.service, m.action, cd.actions, now, !failed, why); err != nil {
					return false, err
				}
			}
			return true, nil
		})
		if err != nil {
			e.warnf("cooldown hook: could not record %s: %v", describeMatches(matches), oneLine(err))
		}
		return nil
	}

	for _, m := range matches {
		v, err := e.decide(cd, m.service, m.action, now)
		if err != nil {
			e.warnf("cooldown hook: %v; allowing", err)
			continue
		}
		if !v.Allowed {
			fmt.Fprintf(e.stderr, "guard: cooldown: %s %s blocked: %s; needs human attention\n", m.service, m.action.Name, budgetLine(m.action, v, now))
			return exit(2)
		}
	}
	return nil
}

func describeMatches(ms []hookMatch) string {
	parts := make([]string, len(ms))
	for i, m := range ms {
		parts[i] = m.service + " " + m.action.Name
	}
	return strings.Join(parts, ", ")
}
