package claude

import (
	"fmt"
	"strconv"
	"strings"

	"guard/config"
)

// Events are the hook events Claude Code knows (2.1, 2026); a settings
// file with another one under "hooks" fails Claude Code's validation.
var Events = []string{
	"PreToolUse", "PostToolUse", "PostToolUseFailure", "PermissionRequest", "PermissionDenied",
	"Notification", "UserPromptSubmit", "SessionStart", "SessionEnd", "Stop", "StopFailure",
	"SubagentStart", "SubagentStop", "PreCompact", "PostCompact", "Setup", "TeammateIdle",
	"TaskCreated", "TaskCompleted", "Elicitation", "ElicitationResult", "ConfigChange",
	"WorktreeCreate", "WorktreeRemove", "InstructionsLoaded", "CwdChanged", "FileChanged",
}

// hookTypes are the types of hook Claude Code knows.
var hookTypes = map[string]bool{"command": true, "http": true, "prompt": true, "agent": true, "mcp_tool": true}

// An Invalid is a part of the "hooks" of a settings file that Claude Code
// does not accept: where it is (a path such as hooks.Stop[0].hooks[1]),
// its event, and what is wrong.
type Invalid struct {
	Path, Event, Problem string
}

// Validate checks the "hooks" of doc against the shape Claude Code reads:
// an object of known events, each an array of groups, each with an
// optional string "matcher" and a "hooks" array of hook objects with a
// known "type"; a command hook has a "command" string, and, if set,
// "args" of strings, a positive number "timeout", a "shell" of bash or
// powershell, and booleans and strings where Claude Code wants them.
// A syntax error, or a document that is not an object, is the error.
func Validate(doc []byte) ([]Invalid, error) {
	root, err := parse(doc)
	if err != nil {
		return nil, err
	}
	if root.kind != '{' {
		return nil, ErrNotSettings
	}
	var out []Invalid
	bad := func(path, event, format string, args ...any) {
		out = append(out, Invalid{Path: path, Event: event, Problem: fmt.Sprintf(format, args...)})
	}
	events := root.get("hooks")
	if events == nil {
		return nil, nil
	}
	if events.kind != '{' {
		bad("hooks", "", `"hooks" is %s, not an object of events`, kindName(doc, events))
		return out, nil
	}
	known := map[string]bool{}
	for _, e := range Events {
		known[e] = true
	}
	for _, ev := range events.members {
		path := "hooks." + ev.key
		if !known[ev.key] {
			bad(path, ev.key, "%q is not a hook event Claude Code knows%s", ev.key, didYouMean(ev.key))
		}
		if ev.value.kind != '[' {
			bad(path, ev.key, "is %s, not an array of {\"matcher\", \"hooks\"} groups", kindName(doc, ev.value))
			continue
		}
		for i, group := range ev.value.elems {
			gpath := fmt.Sprintf("%s[%d]", path, i)
			if group.kind != '{' {
				bad(gpath, ev.key, "is %s, not a {\"matcher\", \"hooks\"} object", kindName(doc, group))
				continue
			}
			if m := group.get("matcher"); m != nil && m.kind != '"' {
				bad(gpath+".matcher", ev.key, "is %s, not a string", kindName(doc, m))
			}
			list := group.get("hooks")
			switch {
			case list == nil:
				bad(gpath, ev.key, `has no "hooks" array`)
				continue
			case list.kind != '[':
				bad(gpath+".hooks", ev.key, "is %s, not an array of hooks", kindName(doc, list))
				continue
			}
			for j, h := range list.elems {
				hpath := fmt.Sprintf("%s.hooks[%d]", gpath, j)
				for _, p := range invalidHook(doc, h) {
					bad(hpath, ev.key, "%s", p)
				}
			}
		}
	}
	return out, nil
}

// invalidHook says what is wrong with one hook object.
func invalidHook(doc []byte, h *node) []string {
	if h.kind != '{' {
		return []string{"is " + kindName(doc, h) + ", not a hook object"}
	}
	var out []string
	t := h.get("type")
	typ, _ := t.str(doc)
	switch {
	case t == nil:
		return []string{`has no "type" (for a command hook, "type": "command")`}
	case t.kind != '"':
		return []string{`its "type" is ` + kindName(doc, t) + ", not a string"}
	case !hookTypes[typ]:
		return []string{fmt.Sprintf(`its "type" %q is not one Claude Code knows (command, http, prompt, agent, mcp_tool)`, typ)}
	case typ != "command":
		return nil
	}
	switch c := h.get("command"); {
	case c == nil:
		out = append(out, `has no "command"`)
	case c.kind != '"':
		out = append(out, `its "command" is `+kindName(doc, c)+", not a string")
	default:
		if s, _ := c.str(doc); strings.TrimSpace(s) == "" {
			out = append(out, `its "command" is empty`)
		}
	}
	if a := h.get("args"); a != nil {
		if a.kind != '[' || strs(doc, a.elems) == nil {
			out = append(out, `its "args" is not an array of strings`)
		}
	}
	if t := h.get("timeout"); t != nil {
		v, err := strconv.ParseFloat(strings.TrimSpace(string(doc[t.start:t.end])), 64)
		switch {
		case t.kind != 'v' || err != nil:
			out = append(out, fmt.Sprintf(`its "timeout" is %s, not a number of seconds`, kindName(doc, t)))
		case v <= 0:
			out = append(out, fmt.Sprintf(`its "timeout" %s is not a positive number of seconds`, strings.TrimSpace(string(doc[t.start:t.end]))))
		}
	}
	if s := h.get("shell"); s != nil {
		if v, _ := s.str(doc); v != "bash" && v != "powershell" {
			out = append(out, `its "shell" is `+kindName(doc, s)+`, not "bash" or "powershell"`)
		}
	}
	for _, name := range []string{"async", "asyncRewake", "once"} {
		if b := h.get(name); b != nil {
			if v := string(doc[b.start:b.end]); v != "true" && v != "false" {
				out = append(out, fmt.Sprintf("its %q is %s, not true or false", name, kindName(doc, b)))
			}
		}
	}
	for _, name := range []string{"if", "statusMessage", "onFailure"} {
		if s := h.get(name); s != nil && s.kind != '"' {
			out = append(out, fmt.Sprintf("its %q is %s, not a string", name, kindName(doc, s)))
		}
	}
	return out
}

// kindName names the kind of a JSON value, for a message: a string is
// shown.
func kindName(doc []byte, n *node) string {
	switch n.kind {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "the string " + string(doc[n.start:n.end])
	}
	switch v := string(doc[n.start:n.end]); v {
	case "true", "false":
		return v
	case "null":
		return "null"
	default:
		return "the number " + v
	}
}

// didYouMean suggests the known event closest to name, if one is close.
func didYouMean(name string) string {
	best, dist := "", 3
	for _, e := range Events {
		if strings.EqualFold(e, name) {
			return fmt.Sprintf(" (did you mean %s?)", e)
		}
		if d := config.EditDistance(strings.ToLower(e), strings.ToLower(name)); d < dist {
			best, dist = e, d
		}
	}
	if best != "" {
		return fmt.Sprintf(" (did you mean %s?)", best)
	}
	return ""
}
