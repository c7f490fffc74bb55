package cooldown

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"

	"guard/internal/store"
	"guard/internal/supervise"
)

// A Match is one action a command takes on a service.
type Match struct {
	Service string
	Action  store.Action
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

// Describe lists takes for a message: "web restart x2, db redeploy".
func Describe(takes []Take) string {
	parts := make([]string, len(takes))
	for i, t := range takes {
		parts[i] = t.Service + " " + t.Action.Name
		if t.N > 1 {
			parts[i] += fmt.Sprintf(" x%d", t.N)
		}
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
			return truncate(supervise.Telling(s), 500)
		}
	case nil:
	default:
		if b, err := json.Marshal(x); err == nil && string(b) != "false" {
			return string(b)
		}
	}
	return fallback
}

// truncate shortens s to at most max bytes, without splitting a character.
func truncate(s string, max int) string {
	if len(s) <= max {
		return s
	}
	for max > 0 && !utf8.RuneStart(s[max]) {
		max--
	}
	return s[:max]
}
