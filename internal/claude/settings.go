package claude

import (
	"bytes"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"guard/internal/shell"
)

// Options tune Install and Uninstall.
type Options struct {
	// Binary is the guard binary hooks call: an absolute path, or the bare
	// name "guard", found through PATH when the hook runs (then each
	// shell-form hook runs its command itself where there is no guard).
	Binary string
	// Skip, if set, reports commands to leave alone: the command of a
	// shell-form hook, the program and arguments of an exec-form one
	// joined as a shell would read them.
	Skip func(command string) bool
	// HookTimeout, if set, gives every hook guard run --hook-timeout N:
	// its "timeout", or Claude Code's default for its event (HookTimeout),
	// so that guard ends a hook that hangs just before Claude Code would,
	// and counts it as a failure.
	HookTimeout bool
	// Exec is set when the Claude Code that runs the hooks runs hooks in
	// exec form ("args", Claude Code 2.1.139 and later): a "shell":
	// "powershell" hook is then wrapped in it (otherwise it is left
	// alone), and so is every hook of a plugin.
	Exec bool
	// Plugin, if set, is the plugin (NAME@MARKET) whose hooks file this
	// is: each of its command hooks is written in exec form, whose args
	// Claude Code substitutes its placeholders into one by one (so a plugin
	// path with ', $ or spaces in it cannot break the quoting), and is
	// keyed by PluginKey, which survives an update of the plugin. Without
	// Exec, the plugin's hooks are left alone.
	Plugin string
	// Windows is set when the hooks run on Windows: PowerShell is
	// powershell there, pwsh elsewhere.
	Windows bool
	// IsGuard, if set, reports whether a program a hook runs (a path, or
	// a name to find on PATH) is guard under another name: a hook that
	// runs one is not wrapped again.
	IsGuard func(program string) bool
}

func (o *Options) skip(cmd string) bool { return o.Skip != nil && o.Skip(cmd) }

// callsGuard reports whether cmd runs guard, or a copy of it (IsGuard).
func (o *Options) callsGuard(cmd string) bool { return callsGuardWith(cmd, o.IsGuard) }

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
	// Exec is set for a hook Install wrote in exec form ("args").
	Exec bool
	// Name is the key Install gave the hook (guard run --name), if any.
	Name string
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
	sh, shellSet := h.str(doc, "shell")
	switch {
	case h.execForm():
		if shellSet && sh != "bash" && !desc.wrappedExec() {
			r.leave(h, desc.text(), WhyShell(sh))
			return nil
		}
		return r.installExec(doc, h, desc, opts)
	case shellSet && sh == "powershell" && opts.Exec && h.command != nil:
		return r.installConverted(doc, h, desc, opts, powerShell(opts.Windows))
	case shellSet && sh != "bash":
		r.leave(h, desc.text(), WhyShell(sh))
		return nil
	case h.command != nil && opts.Plugin != "":
		if !opts.Exec {
			r.leave(h, desc.text(), WhyNoExec)
			return nil
		}
		return r.installConverted(doc, h, desc, opts, "bash")
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

// Why a shell-form hook is not written in exec form.
const (
	WhyPowerShellPlaceholder = "a PowerShell command with ${CLAUDE_...} in it, which Claude Code would fill in once guard wraps it in exec form; write $env:CLAUDE_PROJECT_DIR instead"
	WhyUserConfig            = "a shell-form command with ${user_config.*} in it, which Claude Code refuses (make it exec form: \"command\" and \"args\")"
	WhyPlaceholders          = "its placeholders are written in a way guard cannot keep Claude Code from filling in (${VAR:-} already, or with escapes)"
)

// WhyNoExec says why a plugin's hook is left alone by a Claude Code that
// does not run the exec form.
const WhyNoExec = `a plugin's hook, which guard wraps in exec form ("args"), and the Claude Code here is older than 2.1.139, which runs it: update Claude Code`

// powerShell is the PowerShell that runs a "shell": "powershell" hook.
func powerShell(windows bool) string {
	if windows {
		return "powershell"
	}
	return "pwsh"
}

// hookTimeout is the --hook-timeout install gives h: its "timeout", or
// Claude Code's default for its event; old is what the hook has now.
func (o *Options) hookTimeout(doc []byte, h hook, old string) string {
	if !o.HookTimeout {
		return old
	}
	if t := h.obj.get("timeout"); t != nil && t.kind == 'v' {
		if v, err := strconv.ParseFloat(strings.TrimSpace(string(doc[t.start:t.end])), 64); err == nil && v > 0 {
			v = HookLimit(h.event, v)
			if v > MaxHookTimeout {
				return "" // no limit
			}
			return Seconds(v)
		}
	}
	return Seconds(HookTimeout(h.event))
}

// shellWhys says what changes from old to sp, for the summary.
func shellWhys(old, sp shellSpec) []string {
	var whys []string
	if old.binary != sp.binary {
		whys = append(whys, "re-pointed from "+old.binary)
	}
	if sp.onSkip && !old.onSkip {
		whys = append(whys, `--on-skip block added: its "onFailure" is "block"`)
	}
	switch {
	case old.timeout == sp.timeout:
	case old.timeout == "":
		whys = append(whys, "--hook-timeout "+sp.timeout+" added: guard ends the hook before Claude Code would, and counts it")
	case sp.timeout == "":
		whys = append(whys, "--hook-timeout "+old.timeout+" taken away: its timeout is no limit")
	default:
		whys = append(whys, "--hook-timeout "+old.timeout+" made "+sp.timeout+", the time Claude Code gives it")
	}
	if sp.bash && !old.bash {
		whys = append(whys, "--shell bash added: Claude Code runs a hook's command with bash")
	}
	if sp.fallback && !old.fallback {
		whys = append(whys, "where guard is not installed it now runs as it did before install")
	}
	return whys
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
		sp := shellSpec{binary: opts.Binary, fallback: opts.Binary == "guard", onSkip: w.onSkip || block,
			timeout: opts.hookTimeout(doc, h, w.timeout), bash: w.python == nil}
		whys := shellWhys(w.spec(), sp)
		if len(whys) == 0 {
			r.leave(h, cmd, WhyWrapped)
			return nil
		}
		newRaw := append(sp.head(w.inner), raw[w.flagsEnd:]...)
		r.Edits = append(r.Edits, Edit{h.command.start + 1, h.command.end - 1, newRaw})
		change.After = decode(newRaw)
		change.Why = strings.Join(whys, "; ")
		r.Changes = append(r.Changes, change)
		return nil
	}
	sp := shellSpec{binary: opts.Binary, fallback: opts.Binary == "guard", onSkip: block, timeout: opts.hookTimeout(doc, h, ""), bash: true}
	if pw, ok := pythonWrapped(raw); ok {
		if opts.callsGuard(decode(pw.inner)) {
			return &BothWrappedError{Event: h.event, Command: cmd}
		}
		if opts.skip(cmd) {
			r.leave(h, cmd, WhyExcluded)
			return nil
		}
		sp.bash = false
		text := shellWrapping(sp, pw.prefix, pw.flags, pw.inner)
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
	if opts.callsGuard(cmd) {
		r.leave(h, cmd, WhyGuard)
		return nil
	}
	if opts.skip(cmd) {
		r.leave(h, cmd, WhyExcluded)
		return nil
	}
	text := shellWrapping(sp, nil, nil, raw)
	r.Edits = append(r.Edits, Edit{h.command.start, h.command.end, text})
	change.After = decode(text[1 : len(text)-1])
	r.Changes = append(r.Changes, change)
	return nil
}

// installConverted wraps a shell-form hook in exec form, run by guard
// with sh (bash, or PowerShell): {"command": BINARY, "args": ["run", ...,
// "--shell", sh, "-c", COMMAND]}, COMMAND written as it was. A hook an
// older install wrapped in shell form (a plugin's) is written so too.
func (r *Result) installConverted(doc []byte, h hook, desc Hook, opts Options, sh string) error {
	cmd, raw, ok := h.commandString(doc)
	if !ok {
		r.leave(h, "", WhyNoCmd)
		return nil
	}
	change := Change{Event: h.event, Matcher: h.matcher, Before: cmd, Hook: desc}
	token := doc[h.command.start:h.command.end] // the command, as written
	block := h.failClosed(doc)
	timeout := opts.hookTimeout(doc, h, "")
	if w, ok := installed(raw); ok {
		if w.python != nil {
			r.leave(h, cmd, WhyEdited)
			return nil
		}
		token = append(append([]byte{'"'}, w.inner...), '"')
		cmd = decode(w.inner)
		block = block || w.onSkip
		if timeout == "" {
			timeout = w.timeout
		}
		change.Why = "written in exec form, whose args Claude Code fills in without a shell"
	} else {
		switch {
		case pythonManual(cmd) != "":
			r.leave(h, cmd, WhyPython(pythonManual(cmd)))
			return nil
		case opts.callsGuard(cmd):
			r.leave(h, cmd, WhyGuard)
			return nil
		case opts.skip(cmd):
			r.leave(h, cmd, WhyExcluded)
			return nil
		}
	}
	if isPowerShell(sh) && strings.Contains(cmd, "${CLAUDE_") {
		r.leave(h, cmd, WhyPowerShellPlaceholder)
		return nil
	}
	if strings.Contains(cmd, "${user_config.") {
		r.leave(h, cmd, WhyUserConfig)
		return nil
	}
	if sh == "bash" {
		hidden, ok := hidePlaceholders(token)
		if !ok {
			r.leave(h, cmd, WhyPlaceholders)
			return nil
		}
		token = hidden
	}
	sp := execSpec{onSkip: block, timeout: timeout}
	if opts.Plugin != "" {
		sp.name = PluginKey(opts.Plugin, cmd)
	}
	var text []byte
	text = append(text, jsonString(opts.Binary)...)
	text = append(text, memberSep(doc, h)...)
	text = append(text, `"args": [`...)
	for _, a := range append(sp.args(), "--shell", sh, "-c") {
		text = append(append(text, jsonString(a)...), ", "...)
	}
	text = append(append(text, token...), ']')
	r.Edits = append(r.Edits, Edit{h.command.start, h.command.end, text})
	change.After = shell.Join(append(append([]string{opts.Binary}, sp.args()...), "--shell", sh, "-c", cmd))
	change.Exec, change.Name = true, sp.name
	r.Changes = append(r.Changes, change)
	return nil
}

// memberSep is what separates two members of the hook object h: ", " in
// an object on one line, else a comma, a newline and the indentation of
// its "command" member.
func memberSep(doc []byte, h hook) []byte {
	line := bytes.LastIndexByte(doc[:h.command.start], '\n')
	if line < h.obj.start {
		return []byte(", ")
	}
	indent := doc[line+1:]
	indent = indent[:len(indent)-len(bytes.TrimLeft(indent, " \t"))]
	return append([]byte(",\n"), indent...)
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
	} else if w, ok := execWrapped(prog, args); ok {
		own := args[w.at:]
		if w.shell != "" {
			own = args[w.at-3:]
		}
		sp := execSpec{onSkip: w.onSkip || block, timeout: opts.hookTimeout(doc, h, w.timeout)}
		if opts.Plugin != "" {
			ownCmd := shell.Join(own)
			if w.shell != "" {
				ownCmd = showPlaceholders(args[w.at])
			}
			sp.name = PluginKey(opts.Plugin, ownCmd)
		} else {
			sp.name = w.name
		}
		var whys []string
		if prog != opts.Binary {
			r.Edits = append(r.Edits, Edit{h.command.start, h.command.end, jsonString(opts.Binary)})
			whys = append(whys, "re-pointed from "+prog)
		}
		if sp.name != w.name {
			whys = append(whys, "keyed by the plugin and its command: "+sp.name)
		}
		whys = append(whys, shellWhys(shellSpec{binary: opts.Binary, onSkip: w.onSkip, timeout: w.timeout},
			shellSpec{binary: opts.Binary, onSkip: sp.onSkip, timeout: sp.timeout})...)
		if len(whys) == 0 {
			r.leave(h, shell.Join(argv), WhyWrapped)
			return nil
		}
		head := len(args) - len(own) // the elements before the hook's own
		if w.shell == "" {
			head-- // and before "--"
		}
		elems := h.args.elems
		sep := doc[elems[0].end:elems[1].start]
		var text []byte
		for _, a := range sp.args() {
			text = append(append(text, jsonString(a)...), sep...)
		}
		r.Edits = append(r.Edits, Edit{elems[0].start, elems[head].start, text})
		change.Why = strings.Join(whys, "; ")
		change.After = shell.Join(append(append([]string{opts.Binary}, sp.args()...), args[head:]...))
		change.Exec, change.Name = true, sp.name
		r.Changes = append(r.Changes, change)
		return nil
	} else if why := r.leaveExec(h, argv, opts); why != "" {
		r.leave(h, shell.Join(argv), why)
		return nil
	}

	// {"command": BINARY, "args": ["run", ..., "--", PROGRAM, ARG...]},
	// the new words written as the array's own are separated.
	sp := execSpec{onSkip: block, timeout: opts.hookTimeout(doc, h, "")}
	if opts.Plugin != "" {
		sp.name = PluginKey(opts.Plugin, shell.Join(argv))
	}
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
	for _, s := range append(sp.args(), "--") {
		text = append(append(text, jsonString(s)...), sep...)
	}
	text = append(text, progText...)
	at := h.args.end - 1 // before the "]" of an empty array
	if len(elems) > 0 {
		text = append(text, sep...)
		at = elems[0].start
	}
	r.Edits = append(r.Edits, Edit{h.command.start, h.command.end, jsonString(opts.Binary)}, Edit{at, at, text})
	change.After = shell.Join(append(append(append([]string{opts.Binary}, sp.args()...), "--"), argv...))
	change.Exec, change.Name = true, sp.name
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
	case opts.callsGuard(shell.Join(argv)):
		return WhyGuard
	case opts.skip(shell.Join(argv)):
		return WhyExcluded
	}
	return ""
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

// dropArgs gives a hook Install wrote in exec form for a shell-form one
// its "command" back (token, the JSON text of the command as it was) and
// takes its "args" away, with what separates it from the member before: as
// Install wrote it, "args" right after "command", that is the very bytes
// Install replaced. It reports false if "args" is the object's first
// member (moved there by hand).
func dropArgs(h hook, token []byte) ([]Edit, bool) {
	ci, ai := -1, -1
	for i, m := range h.obj.members {
		switch m.key {
		case "command":
			ci = i
		case "args":
			ai = i
		}
	}
	switch {
	case ai == ci+1:
		return []Edit{{h.command.start, h.args.end, token}}, true
	case ai <= 0:
		return nil, false
	}
	return []Edit{{h.command.start, h.command.end, token}, {h.obj.members[ai-1].value.end, h.args.end, nil}}, true
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
			w, ok := execWrapped(cmd, args)
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
			orig := elems[w.at]
			token := doc[orig.start:orig.end]
			if w.shell != "" {
				// A shell-form hook install wrote in exec form: its
				// command back, and no "args".
				if w.shell == "bash" {
					token = []byte(showPlaceholders(string(token)))
				}
				edits, ok := dropArgs(h, token)
				if !ok {
					r.leave(h, shell.Join(append([]string{cmd}, args...)), WhyEdited)
					return
				}
				r.Edits = append(r.Edits, edits...)
				r.Changes = append(r.Changes, Change{Event: h.event, Matcher: h.matcher,
					Before: shell.Join(append([]string{cmd}, args...)), After: showPlaceholders(args[w.at])})
				return
			}
			end := orig.end
			if w.at+1 < len(elems) {
				end = elems[w.at+1].start
			}
			r.Edits = append(r.Edits, Edit{h.command.start, h.command.end, token}, Edit{elems[0].start, end, nil})
			r.Changes = append(r.Changes, Change{Event: h.event, Matcher: h.matcher,
				Before: shell.Join(append([]string{cmd}, args...)), After: shell.Join(args[w.at:])})
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
