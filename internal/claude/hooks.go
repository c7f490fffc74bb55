package claude

import "fmt"

// A hook is one hook object of the document, hooks.EVENT[i].hooks[j], of
// any type.
type hook struct {
	event, matcher string
	path           string // where it is: hooks.Stop[0].hooks[1]
	obj            *node
	typ            string // its "type" string; "" when it has none
	command        *node  // the "command" value, of any kind, or nil
	args           *node  // the "args" value, of any kind, or nil
	twice          bool   // the object has "command" or "args" more than once
}

// hooks finds every hook object of the document. A document that is not
// an object is ErrNotSettings; parts that are not shaped as Claude Code
// reads them (Validate says how) are passed over.
func hooks(doc []byte, root *node) ([]hook, error) {
	if root.kind != '{' {
		return nil, ErrNotSettings
	}
	var out []hook
	events := root.get("hooks")
	if events == nil || events.kind != '{' {
		return nil, nil
	}
	for _, ev := range events.members {
		if ev.value.kind != '[' {
			continue
		}
		for i, group := range ev.value.elems {
			matcher, _ := group.get("matcher").str(doc)
			list := group.get("hooks")
			if list == nil || list.kind != '[' {
				continue
			}
			for j, h := range list.elems {
				if h.kind != '{' {
					continue
				}
				typ, _ := h.get("type").str(doc)
				out = append(out, hook{
					event: ev.key, matcher: matcher, obj: h, typ: typ,
					path:    fmt.Sprintf("hooks.%s[%d].hooks[%d]", ev.key, i, j),
					command: h.get("command"), args: h.get("args"),
					twice: h.count("command") > 1 || h.count("args") > 1,
				})
			}
		}
	}
	return out, nil
}

// isCommand reports whether h is a command hook: of type "command", or of
// no type (which Claude Code rejects, but which older guards wrapped).
func (h hook) isCommand() bool {
	return h.typ == "command" || h.obj.get("type") == nil
}

// commandString returns the "command" string and its raw JSON text
// (without the quotes).
func (h hook) commandString(doc []byte) (cmd string, raw []byte, ok bool) {
	if h.command == nil || h.command.kind != '"' {
		return "", nil, false
	}
	cmd, ok = h.command.str(doc)
	return cmd, doc[h.command.start+1 : h.command.end-1], ok
}

// argStrings returns the "args" strings, and whether "args" is an array
// of strings.
func (h hook) argStrings(doc []byte) ([]string, bool) {
	if h.args == nil || h.args.kind != '[' {
		return nil, false
	}
	out := strs(doc, h.args.elems)
	return out, out != nil || len(h.args.elems) == 0
}

// execForm reports whether h is in Claude Code's exec form: a "command"
// (the program) with "args" (its arguments, run without a shell).
func (h hook) execForm() bool { return h.command != nil && h.args != nil }

// str returns the string member name of the hook, and whether it is set
// (to anything).
func (h hook) str(doc []byte, name string) (string, bool) {
	n := h.obj.get(name)
	s, _ := n.str(doc)
	return s, n != nil
}

// failClosed reports whether the hook blocks when it fails
// ("onFailure": "block").
func (h hook) failClosed(doc []byte) bool {
	v, _ := h.str(doc, "onFailure")
	return v == "block"
}
