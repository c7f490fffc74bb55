// Package claude is guard's side of Claude Code's settings.json: it lists
// the hooks of a settings file and rewrites them so that each runs behind
// guard, and back (package claude/doctor checks a setup).
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
// back the very same bytes. Both are idempotent, and do no I/O:
// RewriteFile (file.go) applies them to a file on disk, and Binary
// (binary.go) finds the guard the hooks call.
package claude

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"guard/internal/shell"
)

// Options tune Install and Uninstall.
type Options struct {
	// Binary is the guard binary hooks call: an absolute path, or the bare
	// name "guard", found through PATH when the hook runs.
	Binary string
	// Skip, if set, reports commands to leave alone.
	Skip func(command string) bool
}

func (o *Options) skip(cmd string) bool { return o.Skip != nil && o.Skip(cmd) }

// A Change is one hook rewritten, or left alone (Why says why).
type Change struct {
	Event   string // PreToolUse, Stop, ...
	Matcher string
	Before  string // the command, or the args joined by spaces
	After   string
	Why     string // for a hook left alone
	// Moved is set for a hook moved off the Python wrapper.
	Moved *Moved
}

// Moved is a hook Install moved off the Python wrapper: the key the
// wrapper kept its state under, and the command guard runs, whose key the
// state moves to.
type Moved struct {
	PythonKey  string // normalised, as the wrapper keys it
	PythonJoin string // the wrapped words joined by spaces, as older wrappers keyed it
	Command    string // what guard runs with -c
}

// A BothWrappedError is a hook that runs behind guard and behind the
// Python wrapper at once.
type BothWrappedError struct{ Event, Command string }

func (e *BothWrappedError) Error() string {
	return fmt.Sprintf("the %s hook %q runs behind both guard and the Python wrapper (%s): two circuit breakers would each count its failures and skip it on their own; keep one by hand (for guard, make the hook the wrapped command alone and run guard install again)", e.Event, e.Command, PythonWrapper)
}

// A Result is what Install or Uninstall did.
type Result struct {
	Doc     []byte   // the new document
	Changes []Change // the hooks rewritten
	Left    []Change // the hooks left alone, and why
	Edits   []Edit   // what changed in the old document, in order
}

// An Edit replaces the bytes Old[Start:End] of the old document with Text.
type Edit struct {
	Start, End int
	Text       []byte
}

// ErrNotSettings is returned for a JSON document that is not an object.
var ErrNotSettings = errors.New("settings file is not a JSON object")

// apply makes edits (which do not overlap) to doc.
func apply(doc []byte, edits []Edit) []byte {
	sort.Slice(edits, func(i, j int) bool { return edits[i].Start < edits[j].Start })
	var out bytes.Buffer
	at := 0
	for _, e := range edits {
		out.Write(doc[at:e.Start])
		out.Write(e.Text)
		at = e.End
	}
	out.Write(doc[at:])
	return out.Bytes()
}

// hook is a command hook found in the document.
type hook struct {
	event, matcher string
	command        *node // the "command" string, or nil
	args           *node // the "args" array, or nil
	timeout        *node // the "timeout" value, or nil
	twice          bool  // the hook object has "command" (or "args") more than once
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
				hk := hook{event: ev.key, matcher: matcher, twice: h.count("command") > 1 || h.count("args") > 1, timeout: h.get("timeout")}
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

// Why a hook is left alone.
const (
	WhyWrapped  = "already runs behind guard"
	WhyGuard    = "calls guard itself"
	WhyExcluded = "excluded by --exclude"
	WhyTwice    = `the hook has two "command" members (Claude Code runs the last); fix it by hand`
	WhyEdited   = "a guard call that install did not write (edited by hand?); unwrap it by hand"
	WhyPyArgs   = "runs behind the Python wrapper in exec form (args); move it to guard by hand"
)

// Install wraps every command hook in doc that is not wrapped or excluded
// already, and re-points hooks wrapped with another guard binary at
// opts.Binary.
func Install(doc []byte, opts Options) (Result, error) {
	var r Result
	root, err := parse(doc)
	if err != nil {
		return r, err
	}
	hs, err := hooks(doc, root)
	if err != nil {
		return r, err
	}
	for _, h := range hs {
		switch {
		case h.command != nil:
			cmd, _ := h.command.str(doc)
			raw := doc[h.command.start+1 : h.command.end-1]
			if h.twice {
				r.leave(h, cmd, WhyTwice)
				continue
			}
			if bin, binLen, _, ok := fromPython(raw); ok {
				if bin == opts.Binary {
					r.leave(h, cmd, WhyWrapped)
					continue
				}
				text := jsonInner(quoteBinary(opts.Binary))
				r.Edits = append(r.Edits, Edit{h.command.start + 1, h.command.start + 1 + binLen, text})
				r.Changes = append(r.Changes, Change{Event: h.event, Matcher: h.matcher, Before: cmd,
					After: quoteBinary(opts.Binary) + cmd[len(quoteBinary(bin)):], Why: "re-pointed from " + bin})
				continue
			}
			if pw, ok := pythonWrapped(raw); ok {
				if isGuard(programOf(pw.argv)) {
					return Result{}, &BothWrappedError{Event: h.event, Command: cmd}
				}
				if opts.skip(cmd) {
					r.leave(h, cmd, WhyExcluded)
					continue
				}
				text := []byte{'"'}
				text = append(text, jsonInner(quoteBinary(opts.Binary)+" run "+FromPythonFlag+" '")...)
				text = append(text, quoteUnits(pw.prefix)...)
				text = append(text, '\'')
				for _, f := range pw.flags {
					text = append(append(text, ' '), f...)
				}
				text = append(text, " -c '"...)
				text = append(text, quoteUnits(pw.inner)...)
				text = append(text, '\'', '"')
				r.Edits = append(r.Edits, Edit{h.command.start, h.command.end, text})
				after := decode(text[1 : len(text)-1])
				inner := decode(pw.inner)
				r.Changes = append(r.Changes, Change{Event: h.event, Matcher: h.matcher, Before: cmd, After: after,
					Why: "moved from the Python wrapper", Moved: &Moved{PythonKey: PythonKey(pw.argv), PythonJoin: strings.Join(pw.argv, " "), Command: inner}})
				continue
			}
			if w, ok := installed(raw); ok {
				if _, ok := pythonWrapped(w.inner); ok {
					return Result{}, &BothWrappedError{Event: h.event, Command: cmd}
				}
				if w.binary == opts.Binary {
					r.leave(h, cmd, WhyWrapped)
					continue
				}
				text := jsonInner(quoteBinary(opts.Binary))
				r.Edits = append(r.Edits, Edit{h.command.start + 1, h.command.start + 1 + w.binaryLen, text})
				r.Changes = append(r.Changes, Change{Event: h.event, Matcher: h.matcher, Before: cmd,
					After: quoteBinary(opts.Binary) + cmd[len(quoteBinary(w.binary)):], Why: "re-pointed from " + w.binary})
				continue
			}
			if callsGuard(cmd) {
				r.leave(h, cmd, WhyGuard)
				continue
			}
			if opts.skip(cmd) {
				r.leave(h, cmd, WhyExcluded)
				continue
			}
			text := []byte{'"'}
			text = append(text, jsonInner(quoteBinary(opts.Binary)+" run -c '")...)
			text = append(text, quoteUnits(raw)...)
			text = append(text, '\'', '"')
			r.Edits = append(r.Edits, Edit{h.command.start, h.command.end, text})
			after := decode(text[1 : len(text)-1])
			r.Changes = append(r.Changes, Change{Event: h.event, Matcher: h.matcher, Before: cmd, After: after})
		case h.args != nil:
			args := strs(doc, h.args.elems)
			if args == nil {
				continue
			}
			joined := shell.Join(args)
			switch {
			case h.twice:
				r.leave(h, joined, WhyTwice)
				continue
			case wrappedArgs(args) && args[0] != opts.Binary:
				first := h.args.elems[0]
				r.Edits = append(r.Edits, Edit{first.start, first.end, jsonString(opts.Binary)})
				r.Changes = append(r.Changes, Change{Event: h.event, Matcher: h.matcher, Before: joined,
					After: shell.Join(append([]string{opts.Binary}, args[1:]...)), Why: "re-pointed from " + args[0]})
				continue
			case wrappedArgs(args):
				r.leave(h, joined, WhyWrapped)
				continue
			case pythonArgs(args):
				r.leave(h, joined, WhyPyArgs)
				continue
			case isGuard(args[0]):
				r.leave(h, joined, WhyGuard)
				continue
			case opts.skip(joined):
				r.leave(h, joined, WhyExcluded)
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
			r.Edits = append(r.Edits, Edit{first.start, first.start, text})
			r.Changes = append(r.Changes, Change{Event: h.event, Matcher: h.matcher, Before: joined,
				After: shell.Join(append([]string{opts.Binary, "run", "--"}, args...))})
		}
	}
	r.Doc = apply(doc, r.Edits)
	return r, nil
}

func (r *Result) leave(h hook, cmd, why string) {
	r.Left = append(r.Left, Change{Event: h.event, Matcher: h.matcher, Before: cmd, After: cmd, Why: why})
}

// Uninstall unwraps every hook that Install wrapped, and no other: a
// command of exactly the form Install writes, "GUARD run -c '...'", whose
// first word is a file named guard. Other calls of guard are reported in
// Left.
func Uninstall(doc []byte) (Result, error) {
	var r Result
	root, err := parse(doc)
	if err != nil {
		return r, err
	}
	hs, err := hooks(doc, root)
	if err != nil {
		return r, err
	}
	for _, h := range hs {
		switch {
		case h.command != nil:
			cmd, _ := h.command.str(doc)
			raw := doc[h.command.start+1 : h.command.end-1]
			if _, _, original, ok := fromPython(raw); ok && !h.twice {
				text := append(append([]byte{'"'}, original...), '"')
				r.Edits = append(r.Edits, Edit{h.command.start, h.command.end, text})
				before := decode(text[1 : len(text)-1])
				r.Changes = append(r.Changes, Change{Event: h.event, Matcher: h.matcher, Before: cmd, After: before, Why: "given back to the Python wrapper"})
				continue
			}
			w, ok := installed(raw)
			if !ok {
				if RunsGuard(cmd) {
					r.leave(h, cmd, WhyEdited)
				}
				continue
			}
			if h.twice {
				r.leave(h, cmd, WhyTwice)
				continue
			}
			text := append(append([]byte{'"'}, w.inner...), '"')
			r.Edits = append(r.Edits, Edit{h.command.start, h.command.end, text})
			before := decode(text[1 : len(text)-1])
			r.Changes = append(r.Changes, Change{Event: h.event, Matcher: h.matcher, Before: cmd, After: before})
		case h.args != nil:
			args := strs(doc, h.args.elems)
			if args == nil || !wrappedArgs(args) {
				if args != nil && isGuard(args[0]) && len(args) > 1 && args[1] == "run" {
					r.leave(h, shell.Join(args), WhyEdited)
				}
				continue
			}
			if h.twice {
				r.leave(h, shell.Join(args), WhyTwice)
				continue
			}
			r.Edits = append(r.Edits, Edit{h.args.elems[0].start, h.args.elems[3].start, nil})
			r.Changes = append(r.Changes, Change{Event: h.event, Matcher: h.matcher, Before: shell.Join(args), After: shell.Join(args[3:])})
		}
	}
	r.Doc = apply(doc, r.Edits)
	return r, nil
}

// A wrapping is a command hook as Install wrote it.
type wrapping struct {
	binary    string // the guard it calls
	binaryLen int    // the length of the binary's word in the raw JSON string
	inner     []byte // the raw JSON text of the wrapped command
}

// installed reads raw, the inside of a JSON string as written, as a command
// Install wrote: QUOTED-BINARY run -c 'QUOTED-COMMAND', where the binary is
// a file named guard.
func installed(raw []byte) (wrapping, bool) {
	s := string(raw)
	word, rest, ok := firstWord(s)
	if !ok || !isGuard(word) {
		return wrapping{}, false
	}
	if !strings.HasPrefix(rest, " run -c '") || !strings.HasSuffix(rest, "'") || len(rest) < len(" run -c ''") {
		return wrapping{}, false
	}
	inner, ok := unquoteUnits([]byte(rest[len(" run -c '") : len(rest)-1]))
	if !ok {
		return wrapping{}, false
	}
	return wrapping{binary: word, binaryLen: len(s) - len(rest), inner: inner}, true
}

// isGuard reports whether path names guard: a file whose name is guard.
// Others that merely start so (guardctl, guarddog, guard-secrets.sh) are
// not guard.
func isGuard(path string) bool {
	return filepath.Base(path) == "guard"
}

// quoteBinary quotes the binary as the first word of a hook.
func quoteBinary(bin string) string { return shell.Quote(bin) }

// callsGuard reports whether cmd runs guard as its first program, behind
// VAR=value prefixes and wrappers such as env or sudo included.
func callsGuard(cmd string) bool {
	cs, err := shell.Parse(cmd)
	if err != nil || len(cs) == 0 {
		word, _, ok := firstWord(cmd + " ")
		return ok && isGuard(word)
	}
	prog := cs[0].Program()
	return len(prog) > 0 && isGuard(prog[0])
}

// RunsGuard reports whether cmd is a guard run call of any form.
func RunsGuard(cmd string) bool {
	cs, err := shell.Parse(cmd)
	if err != nil || len(cs) == 0 {
		return false
	}
	prog := cs[0].Program()
	return len(prog) > 1 && isGuard(prog[0]) && prog[1] == "run"
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

func wrappedArgs(args []string) bool {
	return len(args) >= 4 && isGuard(args[0]) && args[1] == "run" && args[2] == "--"
}

// firstWord splits off the first shell word of s, as shell.Quote writes one:
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
