// Package settings rewrites the hooks of a Claude Code settings.json so that
// each runs behind guard, and back.
//
// A command hook {"type": "command", "command": X} becomes
// {"type": "command", "command": "/path/to/guard run -c 'X'"}, with X quoted
// so that /bin/sh -c, as Claude runs it, hands guard exactly X whatever it
// holds (single quotes, $, backticks, newlines). A hook in exec form,
// {"args": [A, B]}, becomes {"args": ["/path/to/guard", "run", "--", A, B]}.
//
// The rewrite edits the file's bytes in place: keys keep their order, the
// indentation and the final newline stay as they were, and even the way
// each string was escaped is kept, so that Uninstall after Install gives
// back the very same bytes. Both are idempotent. The package does no I/O.
package settings

import (
	"bytes"
	"encoding/json"
	"errors"
	"path/filepath"
	"sort"
	"strings"

	"guard/shquote"
)

// Options tune Install.
type Options struct {
	// Binary is the guard binary hooks call: an absolute path.
	Binary string
	// Skip, if set, reports commands to leave alone.
	Skip func(command string) bool
}

func (o *Options) skip(cmd string) bool { return o.Skip != nil && o.Skip(cmd) }

// A Change is one hook rewritten.
type Change struct {
	Event   string // PreToolUse, Stop, ...
	Matcher string
	Before  string // the command, or the args joined by spaces
	After   string
}

// ErrNotSettings is returned for a JSON document that is not an object.
var ErrNotSettings = errors.New("settings file is not a JSON object")

type edit struct {
	start, end int
	text       []byte
}

// apply makes edits (which do not overlap) to doc.
func apply(doc []byte, edits []edit) []byte {
	sort.Slice(edits, func(i, j int) bool { return edits[i].start < edits[j].start })
	var out bytes.Buffer
	at := 0
	for _, e := range edits {
		out.Write(doc[at:e.start])
		out.Write(e.text)
		at = e.end
	}
	out.Write(doc[at:])
	return out.Bytes()
}

// hook is a command hook found in the document.
type hook struct {
	event, matcher string
	command        *node // the "command" string, or nil
	args           *node // the "args" array, or nil
}

// hooks finds every command hook: hooks.EVENT[i].hooks[j] with type
// "command".
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
		for _, group := range ev.value.elems {
			matcher, _ := group.get("matcher").str(doc)
			list := group.get("hooks")
			if list == nil || list.kind != '[' {
				continue
			}
			for _, h := range list.elems {
				if t, _ := h.get("type").str(doc); h.kind != '{' || (t != "command" && h.get("type") != nil) {
					continue
				}
				hk := hook{event: ev.key, matcher: matcher}
				if c := h.get("command"); c != nil && c.kind == '"' {
					hk.command = c
				} else if a := h.get("args"); a != nil && a.kind == '[' && len(a.elems) > 0 {
					hk.args = a
				} else {
					continue
				}
				out = append(out, hk)
			}
		}
	}
	return out, nil
}

// Install wraps every command hook in doc that is not wrapped or excluded
// already. It returns the new document and what changed.
func Install(doc []byte, opts Options) ([]byte, []Change, error) {
	root, err := parse(doc)
	if err != nil {
		return nil, nil, err
	}
	hs, err := hooks(doc, root)
	if err != nil {
		return nil, nil, err
	}
	var edits []edit
	var changes []Change
	for _, h := range hs {
		switch {
		case h.command != nil:
			cmd, _ := h.command.str(doc)
			if guardCommand(cmd, opts.Binary) || opts.skip(cmd) {
				continue
			}
			raw := doc[h.command.start+1 : h.command.end-1]
			text := []byte{'"'}
			text = append(text, jsonInner(shquote.Quote(opts.Binary)+" run -c '")...)
			text = append(text, quoteUnits(raw)...)
			text = append(text, '\'', '"')
			edits = append(edits, edit{h.command.start, h.command.end, text})
			after, _ := (&node{kind: '"', start: 0, end: len(text)}).str(text)
			changes = append(changes, Change{h.event, h.matcher, cmd, after})
		case h.args != nil:
			args := strs(doc, h.args.elems)
			if args == nil || isGuard(args[0], opts.Binary) || opts.skip(strings.Join(args, " ")) {
				continue
			}
			first := h.args.elems[0]
			sep := []byte(",")
			if len(h.args.elems) > 1 {
				sep = doc[first.end:h.args.elems[1].start]
			} else {
				sep = append(sep, doc[h.args.start+1:first.start]...)
			}
			var text []byte
			for _, s := range []string{opts.Binary, "run", "--"} {
				text = append(append(text, jsonString(s)...), sep...)
			}
			edits = append(edits, edit{first.start, first.start, text})
			changes = append(changes, Change{h.event, h.matcher, strings.Join(args, " "),
				strings.Join(append([]string{opts.Binary, "run", "--"}, args...), " ")})
		}
	}
	return apply(doc, edits), changes, nil
}

// Uninstall unwraps every hook that Install wrapped (with any guard
// binary whose name starts with "guard").
func Uninstall(doc []byte) ([]byte, []Change, error) {
	root, err := parse(doc)
	if err != nil {
		return nil, nil, err
	}
	hs, err := hooks(doc, root)
	if err != nil {
		return nil, nil, err
	}
	var edits []edit
	var changes []Change
	for _, h := range hs {
		switch {
		case h.command != nil:
			cmd, _ := h.command.str(doc)
			if !wrapped(cmd, "") {
				continue
			}
			raw := doc[h.command.start+1 : h.command.end-1]
			i := bytes.Index(raw, []byte(" run -c '"))
			if i < 0 || !bytes.HasSuffix(raw, []byte("'")) {
				continue
			}
			inner, ok := unquoteUnits(raw[i+len(" run -c '") : len(raw)-1])
			if !ok {
				continue // not the quoting Install writes: leave it be
			}
			text := append(append([]byte{'"'}, inner...), '"')
			edits = append(edits, edit{h.command.start, h.command.end, text})
			before, _ := (&node{kind: '"', start: 0, end: len(text)}).str(text)
			changes = append(changes, Change{h.event, h.matcher, cmd, before})
		case h.args != nil:
			args := strs(doc, h.args.elems)
			if args == nil || !wrappedArgs(args, "") || len(args) < 4 {
				continue
			}
			edits = append(edits, edit{h.args.elems[0].start, h.args.elems[3].start, nil})
			changes = append(changes, Change{h.event, h.matcher, strings.Join(args, " "), strings.Join(args[3:], " ")})
		}
	}
	return apply(doc, edits), changes, nil
}

// strs decodes string nodes, or returns nil if one is not a string.
func strs(doc []byte, ns []*node) []string {
	out := make([]string, len(ns))
	for i, n := range ns {
		s, ok := n.str(doc)
		if !ok {
			return nil
		}
		out[i] = s
	}
	return out
}

// isGuard reports whether path names guard: binary itself, or a file whose
// name starts with "guard".
func isGuard(path, binary string) bool {
	return (binary != "" && path == binary) || strings.HasPrefix(filepath.Base(path), "guard")
}

// wrapped reports whether cmd already runs behind guard: "GUARD run ...".
func wrapped(cmd, binary string) bool {
	word, rest, ok := firstWord(cmd)
	return ok && isGuard(word, binary) && strings.HasPrefix(rest, " run ")
}

// guardCommand reports whether cmd is guard itself (guard run ..., or a
// hook such as guard cooldown hook), which install leaves alone.
func guardCommand(cmd, binary string) bool {
	word, _, ok := firstWord(cmd + " ")
	return ok && isGuard(word, binary)
}

func wrappedArgs(args []string, binary string) bool {
	return len(args) >= 3 && isGuard(args[0], binary) && args[1] == "run" && args[2] == "--"
}

// firstWord splits off the first shell word of s, as shquote.Quote writes one:
// bare, or in single quotes.
func firstWord(s string) (word, rest string, ok bool) {
	if !strings.HasPrefix(s, "'") {
		i := strings.IndexByte(s, ' ')
		if i <= 0 {
			return "", "", false
		}
		return s[:i], s[i:], true
	}
	var b strings.Builder
	for i := 1; i < len(s); {
		j := strings.IndexByte(s[i:], '\'')
		if j < 0 {
			return "", "", false
		}
		b.WriteString(s[i : i+j])
		i += j + 1
		if strings.HasPrefix(s[i:], `\''`) {
			b.WriteByte('\'')
			i += 3
			continue
		}
		return b.String(), s[i:], true
	}
	return "", "", false
}

// jsonString encodes s as a JSON string, escaping no more than it must.
func jsonString(s string) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

// jsonInner is jsonString without its quotes.
func jsonInner(s string) []byte {
	b := jsonString(s)
	return b[1 : len(b)-1]
}

// units splits the inside of a JSON string as written into its units: a
// character, a two-byte escape such as \n, or a \uXXXX escape.
func units(raw []byte) [][]byte {
	var out [][]byte
	for i := 0; i < len(raw); {
		n := 1
		if raw[i] == '\\' {
			n = 2
			if i+1 < len(raw) && raw[i+1] == 'u' {
				n = 6
			}
		}
		n = min(n, len(raw)-i)
		out = append(out, raw[i:i+n])
		i += n
	}
	return out
}

// isQuote reports whether a unit stands for a single quote: ' or \u0027.
func isQuote(u []byte) bool {
	return string(u) == "'" || strings.EqualFold(string(u), `\u0027`)
}

var backslash = []byte(`\\`)

// quoteUnits makes the inside of a JSON string safe between single quotes
// in sh: each quote Q becomes Q\Q Q (close, an escaped quote, reopen),
// written in the same escape as Q so that unquoteUnits can restore it.
func quoteUnits(raw []byte) []byte {
	var out []byte
	for _, u := range units(raw) {
		out = append(out, u...)
		if isQuote(u) {
			out = append(append(append(out, backslash...), u...), u...)
		}
	}
	return out
}

// unquoteUnits undoes quoteUnits, reporting false for text quoteUnits
// could not have written.
func unquoteUnits(raw []byte) ([]byte, bool) {
	us := units(raw)
	var out []byte
	for i := 0; i < len(us); i++ {
		u := us[i]
		out = append(out, u...)
		if !isQuote(u) {
			continue
		}
		if i+3 >= len(us) || !bytes.Equal(us[i+1], backslash) || !bytes.Equal(us[i+2], u) || !bytes.Equal(us[i+3], u) {
			return nil, false
		}
		i += 3
	}
	return out, true
}
