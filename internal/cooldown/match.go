package cooldown

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"guard/internal/shell"
	"guard/internal/store"
	"guard/internal/view"
)

// A Match is one action a command takes on a service.
type Match struct {
	Service string
	Action  store.Action
}

// Match finds the budgeted actions in command. The command is read as a
// shell reads it (package shell): each simple command it runs, through
// pipelines, lists, subshells, sudo and env, is put in its normal form,
// and a pattern must match that from its first word, so that words that
// are only arguments (echo docker restart web) are no action. The first
// pattern that matches a simple command decides its action, on each
// service its "services" group lists (docker restart web db: two) or the
// one its "service" group names. A command that does not parse is matched
// whole, as one simple command.
func (r *Rules) Match(command string) []Match {
	var forms []string
	if cs, err := shell.Parse(command); err == nil {
		for _, c := range cs {
			if n := c.Normal(); n != "" {
				forms = append(forms, n)
			}
		}
	} else {
		forms = []string{strings.Join(strings.Fields(command), " ")}
	}
	var out []Match
	seen := map[Match]bool{}
	for _, form := range forms {
		for i := range r.Patterns {
			p := &r.Patterns[i]
			services := matchServices(p.Regexp(), form)
			if services == nil {
				continue
			}
			a, err := r.Action(p.Action)
			if err != nil {
				continue
			}
			for _, service := range services {
				hm := Match{Service: service, Action: a}
				if CheckService(service) == nil && !seen[hm] {
					seen[hm] = true
					out = append(out, hm)
				}
			}
			break
		}
	}
	return out
}

// matchServices returns the services re finds at the start of form, nil
// if it does not match there.
func matchServices(re *regexp.Regexp, form string) []string {
	m := re.FindStringSubmatchIndex(form)
	if m == nil || m[0] != 0 {
		return nil
	}
	if si := re.SubexpIndex("services"); si >= 0 && m[2*si] >= 0 {
		return strings.Fields(form[m[2*si]:m[2*si+1]])
	}
	if si := re.SubexpIndex("service"); si >= 0 && m[2*si] >= 0 {
		return []string{form[m[2*si]:m[2*si+1]]}
	}
	return nil
}

// Describe lists matches for a message: "web restart, db redeploy".
func Describe(ms []Match) string {
	parts := make([]string, len(ms))
	for i, m := range ms {
		parts[i] = m.Service + " " + m.Action.Name
	}
	return strings.Join(parts, ", ")
}

// A Payload is the part of a Claude Code hook payload guard reads.
type Payload struct {
	HookEventName string `json:"hook_event_name"`
	ToolInput     struct {
		Command string `json:"command"`
	} `json:"tool_input"`
	ToolResponse json.RawMessage `json:"tool_response"`
	Error        any             `json:"error"`
}

// Failed reports whether the tool call the payload describes failed, and
// why: a PostToolUseFailure event, or a tool_response that was interrupted,
// is an error, or has a non-zero exit code.
func (p *Payload) Failed() (bool, string) {
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
			return view.LastError(s, 500)
		}
	case nil:
	default:
		if b, err := json.Marshal(x); err == nil && string(b) != "false" {
			return string(b)
		}
	}
	return fallback
}
