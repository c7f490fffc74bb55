// Package claude is guard's side of Claude Code's settings.json: it lists
// the hooks of a settings file and rewrites them so that each runs behind
// guard, and back (package claude/doctor checks a setup).
//
// A command hook in shell form, {"type": "command", "command": X}, becomes
// {"type": "command", "command": "/path/to/guard run -c 'X'"}, with X
// quoted so that the shell Claude runs it with hands guard exactly X
// whatever it holds (single quotes, $, backticks, newlines). A hook in
// Claude Code's exec form, {"command": PROGRAM, "args": [A, B]}, which
// Claude Code starts without a shell, becomes {"command": "/path/to/guard",
// "args": ["run", "--", PROGRAM, A, B]}. A hook that blocks when it fails
// ("onFailure": "block") gets guard run --on-skip block, so that guard
// skipping it blocks too. wrapped.go has the exact forms.
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
	"errors"
	"fmt"
	"sort"
	"strings"

	"guard/internal/shell"
)

// Options tune Install and Uninstall.
type Options struct {
	// Binary is the guard binary hooks call: an absolute path, or the bare
	// name "guard", found through PATH when the hook runs.
	Binary string
	// Skip, if set, reports commands to leave alone: the command of a
	// shell-form hook, the program and arguments of an exec-form one
	// joined as a shell would read them.
	Skip func(command string) bool
}

func (o *Options) skip(cmd string) bool { return o.Skip != nil && o.Skip(cmd) }

// A Change is one hook rewritten, or left alone (Why says why).
type Change struct {
	Event   string // PreToolUse, Stop, ...
	Matcher string
	Before  string // the command, or the program and args joined by spaces
	After   string
	Why     string // for a hook left alone, or rewritten other than by wrapping
	// Moved is set for a hook moved off the Python wrapper, or given back
	// to it.
	Moved *Moved
	// Hook is the hook as it was, before Install (for a change Install
	// made) or after Uninstall (for one Uninstall made).
	Hook Hook
}

// Moved is a hook Install moved off the Python wrapper: the key the
// wrapper kept its state under, and the command guard runs, whose key the
// state moves to (and back, for Uninstall).
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

// Why a hook is left alone.
const (
	WhyWrapped  = "already runs behind guard"
	WhyGuard    = "calls guard itself"
	WhyExcluded = "excluded by --exclude"
	WhyTwice    = `the hook has two "command" (or "args") members (Claude Code reads the last); fix it by hand`
	WhyEdited   = "a guard call that install did not write (edited by hand?); unwrap it by hand"
	WhyPyArgs   = "runs behind the Python wrapper in exec form (args); move it to guard by hand"
	WhyOldExec  = `written by an older guard install as {"args": [guard, ...]} with no "command", which Claude Code does not run; guard uninstall gives it back`
	WhyNoCmd    = `has no "command" string, so Claude Code does not run it`
	WhyBadArgs  = `its "args" is not a list of strings, so Claude Code does not run it`
	WhyArgsOnly = `has "args" but no "command" (Claude Code's exec form is {"command": PROGRAM, "args": [...]}), so Claude Code does not run it`
)

// WhyShell says why a hook run by another shell is left alone.
func WhyShell(sh string) string {
	if sh == "powershell" {
		return `runs in PowerShell ("shell": "powershell"), and guard runs hooks with sh`
	}
	return fmt.Sprintf(`runs with "shell": %q, which guard cannot run`, sh)
}

// WhyType says why a hook of another type is left alone.
func WhyType(typ string) string {
	return fmt.Sprintf("a %q hook: guard wraps command hooks only", typ)
}

// WhyPython says why a hook that runs the Python wrapper in a form install
// cannot move exactly is left alone.
func WhyPython(why string) string {
	return "runs behind the Python wrapper, but " + why + ": move it to guard by hand (make the hook the wrapped command alone, then run guard install)"
}

// Install wraps every command hook in doc that is not wrapped or excluded
// already, re-points hooks wrapped with another guard binary at
// opts.Binary, and gives each wrapped hook whose "onFailure" is "block"
// guard run --on-skip block.
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
		if err := r.install(doc, h, opts); err != nil {
			return Result{}, err
		}
	}
	r.Doc = apply(doc, r.Edits)
	return r, nil
}

// install wraps the hook h, or says why not.
func (r *Result) install(doc []byte, h hook, opts Options) error {
	desc := describe(doc, h)
	if !h.isCommand() {
		r.leave(h, typeText(doc, h), WhyType(h.typ))
		return nil
	}
	if h.twice {
		r.leave(h, desc.text(), WhyTwice)
		return nil
	}
	if sh, set := h.str(doc, "shell"); set && sh != "bash" {
		r.leave(h, desc.text(), WhyShell(sh))
		return nil
	}
	switch {
	case h.execForm():
		return r.installExec(doc, h, desc, opts)
	case h.command != nil:
		return r.installShell(doc, h, desc, opts)
	case h.args != nil:
		args, ok := h.argStrings(doc)
		switch {
		case !ok:
			r.leave(h, "", WhyBadArgs)
		case oldWrappedArgs(args):
			r.leave(h, shell.Join(args), WhyOldExec)
		default:
			r.leave(h, shell.Join(args), WhyArgsOnly)
		}
	default:
		r.leave(h, "", WhyNoCmd)
	}
	return nil
}

// installShell wraps a shell-form hook.
func (r *Result) installShell(doc []byte, h hook, desc Hook, opts Options) error {
	cmd, raw, ok := h.commandString(doc)
	if !ok {
		r.leave(h, "", WhyNoCmd)
		return nil
	}
	block := h.failClosed(doc)
	change := Change{Event: h.event, Matcher: h.matcher, Before: cmd, Hook: desc}
	if w, ok := installed(raw); ok {
		inner := decode(w.inner)
		if w.python == nil && pythonManual(inner) != "" {
			return &BothWrappedError{Event: h.event, Command: cmd}
		}
		newRaw := append([]byte{}, jsonInner(quoteBinary(opts.Binary))...)
		rest := raw[w.binaryLen:]
		var whys []string
		if w.binary != opts.Binary {
			whys = append(whys, "re-pointed from "+w.binary)
		}
		if block && !w.onSkip || w.python == nil && !w.bash {
			// The flags guard run takes, in the order install writes them.
			flags := " run"
			rest = rest[len(" run"):]
			if w.onSkip || block {
				flags += onSkipFlag
				rest = bytes.TrimPrefix(rest, []byte(onSkipFlag))
				if !w.onSkip {
					whys = append(whys, `--on-skip block added: its "onFailure" is "block"`)
				}
			}
			if w.python == nil {
				flags += shellFlag
				rest = bytes.TrimPrefix(rest, []byte(shellFlag))
				if !w.bash {
					whys = append(whys, "--shell bash added: Claude Code runs a hook's command with bash")
				}
			}
			newRaw = append(newRaw, flags...)
		}
		if len(whys) == 0 {
			r.leave(h, cmd, WhyWrapped)
			return nil
		}
		newRaw = append(newRaw, rest...)
		r.Edits = append(r.Edits, Edit{h.command.start + 1, h.command.end - 1, newRaw})
		change.After = decode(newRaw)
		change.Why = strings.Join(whys, "; ")
		r.Changes = append(r.Changes, change)
		return nil
	}
	if pw, ok := pythonWrapped(raw); ok {
		if callsGuard(decode(pw.inner)) {
			return &BothWrappedError{Event: h.event, Command: cmd}
		}
		if opts.skip(cmd) {
			r.leave(h, cmd, WhyExcluded)
			return nil
		}
		text := shellWrapping(opts.Binary, block, pw.prefix, pw.flags, pw.inner)
		r.Edits = append(r.Edits, Edit{h.command.start, h.command.end, text})
		change.After = decode(text[1 : len(text)-1])
		change.Why = "moved from the Python wrapper"
		change.Moved = &Moved{PythonKey: PythonKey(pw.argv), PythonJoin: strings.Join(pw.argv, " "), Command: decode(pw.inner)}
		r.Changes = append(r.Changes, change)
		return nil
	}
	if why := pythonManual(cmd); why != "" {
		r.leave(h, cmd, WhyPython(why))
		return nil
	}
	if callsGuard(cmd) {
		r.leave(h, cmd, WhyGuard)
		return nil
	}
	if opts.skip(cmd) {
		r.leave(h, cmd, WhyExcluded)
		return nil
	}
	text := shellWrapping(opts.Binary, block, nil, nil, raw)
	r.Edits = append(r.Edits, Edit{h.command.start, h.command.end, text})
	change.After = decode(text[1 : len(text)-1])
	r.Changes = append(r.Changes, change)
	return nil
}

// installExec wraps a hook in Claude Code's exec form.
func (r *Result) installExec(doc []byte, h hook, desc Hook, opts Options) error {
	prog, praw, ok := h.commandString(doc)
	if !ok {
		r.leave(h, "", WhyNoCmd)
		return nil
	}
	args, ok := h.argStrings(doc)
	if !ok {
		r.leave(h, prog, WhyBadArgs)
		return nil
	}
	argv := append([]string{prog}, args...)
	block := h.failClosed(doc)
	change := Change{Event: h.event, Matcher: h.matcher, Before: shell.Join(argv), Hook: desc}
	progText := doc[h.command.start:h.command.end] // the program, as written
	if w, ok := installed(praw); ok {
		// An older guard install took the program of this hook for a shell
		// command line: Claude Code cannot start what it wrote. Start from
		// the hook as it was.
		progText = append(append([]byte{'"'}, w.original()...), '"')
		argv[0] = decode(w.original())
		change.Why = `repaired: an older guard install had made its "command" a shell line, which Claude Code cannot start`
		if why := r.leaveExec(h, argv, opts); why != "" {
			r.Edits = append(r.Edits, Edit{h.command.start, h.command.end, progText})
			change.After = shell.Join(argv)
			change.Why += "; not wrapped: " + why
			r.Changes = append(r.Changes, change)
			return nil
		}
	} else if at, onSkip, ok := execWrapped(prog, args); ok {
		var whys []string
		if prog != opts.Binary {
			r.Edits = append(r.Edits, Edit{h.command.start, h.command.end, jsonString(opts.Binary)})
			whys = append(whys, "re-pointed from "+prog)
		}
		if block && !onSkip {
			elems := h.args.elems
			sep := doc[elems[0].end:elems[1].start]
			text := append(append(append(jsonString("--on-skip"), sep...), jsonString("block")...), sep...)
			r.Edits = append(r.Edits, Edit{elems[1].start, elems[1].start, text})
			whys = append(whys, `--on-skip block added: its "onFailure" is "block"`)
		}
		if len(whys) == 0 {
			r.leave(h, shell.Join(argv), WhyWrapped)
			return nil
		}
		change.Why = strings.Join(whys, "; ")
		change.After = shell.Join(append(append([]string{opts.Binary}, execHead(block || onSkip)...), args[at:]...))
		r.Changes = append(r.Changes, change)
		return nil
	} else if why := r.leaveExec(h, argv, opts); why != "" {
		r.leave(h, shell.Join(argv), why)
		return nil
	}

	// {"command": BINARY, "args": ["run", "--", PROGRAM, ARG...]}, the
	// new words written as the array's own are separated.
	elems := h.args.elems
	var sep []byte
	switch {
	case len(elems) > 1:
		sep = doc[elems[0].end:elems[1].start]
	case len(elems) == 1:
		sep = append([]byte(","), doc[h.args.start+1:elems[0].start]...)
	default:
		sep = []byte(", ")
	}
	var text []byte
	for _, s := range execHead(block) {
		text = append(append(text, jsonString(s)...), sep...)
	}
	text = append(text, progText...)
	at := h.args.end - 1 // before the "]" of an empty array
	if len(elems) > 0 {
		text = append(text, sep...)
		at = elems[0].start
	}
	r.Edits = append(r.Edits, Edit{h.command.start, h.command.end, jsonString(opts.Binary)}, Edit{at, at, text})
	change.After = shell.Join(append(append([]string{opts.Binary}, execHead(block)...), argv...))
	r.Changes = append(r.Changes, change)
	return nil
}

// leaveExec says why an exec-form hook that runs argv is not wrapped, or
// returns "". Whether it calls guard is asked of the shell line that runs
// argv (shell.Join), as of a shell-form hook's command: guard behind env,
// or in the script of bash -c, is guard as much as guard itself.
func (r *Result) leaveExec(h hook, argv []string, opts Options) string {
	switch {
	case pythonArgs(argv):
		return WhyPyArgs
	case callsGuard(shell.Join(argv)):
		return WhyGuard
	case opts.skip(shell.Join(argv)):
		return WhyExcluded
	}
	return ""
}

// execHead is what Install puts in an exec-form hook's args before its
// program.
func execHead(block bool) []string {
	if block {
		return []string{"run", "--on-skip", "block", "--"}
	}
	return []string{"run", "--"}
}

func (r *Result) leave(h hook, cmd, why string) {
	r.Left = append(r.Left, Change{Event: h.event, Matcher: h.matcher, Before: cmd, After: cmd, Why: why})
}

// typeText says what a hook of another type does, for the summary.
func typeText(doc []byte, h hook) string {
	for _, name := range []string{"url", "prompt", "tool", "server"} {
		if s, _ := h.str(doc, name); s != "" {
			return s
		}
	}
	return h.path
}

// Uninstall unwraps every hook that Install wrapped, and no other: a
// command of exactly a form Install writes (wrapped.go), whose guard is a
// file named guard. Other calls of guard are reported in Left.
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
		if h.isCommand() {
			r.uninstall(doc, h)
		}
	}
	r.Doc = apply(doc, r.Edits)
	return r, nil
}

// uninstall unwraps the hook h, if Install wrapped it.
func (r *Result) uninstall(doc []byte, h hook) {
	cmd, raw, isString := h.commandString(doc)
	args, argsOK := h.argStrings(doc)
	switch {
	case isString:
		if w, ok := installed(raw); ok {
			if h.twice {
				r.leave(h, cmd, WhyTwice)
				return
			}
			original := w.original()
			r.Edits = append(r.Edits, Edit{h.command.start + 1, h.command.end - 1, original})
			ch := Change{Event: h.event, Matcher: h.matcher, Before: cmd, After: decode(original)}
			if w.python != nil {
				ch.Why = "given back to the Python wrapper"
				if pw, ok := pythonWrapped(original); ok {
					ch.Moved = &Moved{PythonKey: PythonKey(pw.argv), PythonJoin: strings.Join(pw.argv, " "), Command: decode(pw.inner)}
				}
			}
			r.Changes = append(r.Changes, ch)
			return
		}
		if h.execForm() && argsOK {
			at, _, ok := execWrapped(cmd, args)
			if !ok {
				if RunsGuard(shell.Join(append([]string{cmd}, args...))) {
					r.leave(h, shell.Join(append([]string{cmd}, args...)), WhyEdited)
				}
				return
			}
			if h.twice {
				r.leave(h, shell.Join(append([]string{cmd}, args...)), WhyTwice)
				return
			}
			elems := h.args.elems
			orig := elems[at]
			end := orig.end
			if at+1 < len(elems) {
				end = elems[at+1].start
			}
			r.Edits = append(r.Edits, Edit{h.command.start, h.command.end, doc[orig.start:orig.end]}, Edit{elems[0].start, end, nil})
			r.Changes = append(r.Changes, Change{Event: h.event, Matcher: h.matcher,
				Before: shell.Join(append([]string{cmd}, args...)), After: shell.Join(args[at:])})
			return
		}
		if RunsGuard(cmd) {
			r.leave(h, cmd, WhyEdited)
		}
	case h.command == nil && argsOK && len(args) > 0:
		// What an older guard install wrote for {"args": [...]}.
		if !oldWrappedArgs(args) {
			if isGuardProgram(args[0]) && len(args) > 1 && args[1] == "run" {
				r.leave(h, shell.Join(args), WhyEdited)
			}
			return
		}
		if h.twice {
			r.leave(h, shell.Join(args), WhyTwice)
			return
		}
		r.Edits = append(r.Edits, Edit{h.args.elems[0].start, h.args.elems[3].start, nil})
		r.Changes = append(r.Changes, Change{Event: h.event, Matcher: h.matcher, Before: shell.Join(args), After: shell.Join(args[3:])})
	}
}
