package claude

import (
	"strconv"
	"strings"

	"guard/internal/shell"
)

// A Hook is one command hook of a settings file, as guard doctor reads it.
type Hook struct {
	Event, Matcher string
	Path           string   // where it is in the file: hooks.Stop[0].hooks[1]
	Command        string   // the "command" string: a shell line, or the program in exec form
	Args           []string // the "args" strings
	// Exec is set for Claude Code's exec form: "command" is a program,
	// started without a shell, with "args" (placeholders such as
	// ${CLAUDE_PROJECT_DIR} replaced).
	Exec       bool
	Shell      string  // the "shell" member; "" if not set
	If         string  // the "if" member; "" if not set
	FailClosed bool    // "onFailure": "block"
	Timeout    float64 // seconds, as Claude Code reads it; 0 if not set
	HasTimeout bool

	// Guard is set when the hook runs behind guard: the guard it calls,
	// and the command guard runs for it, a shell string (Inner, run by
	// InnerShell: bash, sh or pwsh) or, in exec form, a program and its
	// arguments (InnerArgv).
	Guard      string
	Inner      string
	InnerShell string
	InnerArgv  []string
	OnSkip     bool   // guard run --on-skip block
	Name       string // guard run --name: the key, for a plugin's hook
	// HookTimeout is the hook's guard run --hook-timeout, as written; ""
	// if it has none.
	HookTimeout string
	// Fallback is set for a hook that runs its command itself where guard
	// is not installed (install --binary guard).
	Fallback bool
	// Broken is set for an exec-form hook whose "command" an older guard
	// install made a shell line: Claude Code cannot start it.
	Broken bool
	// Python is set when the hook runs behind the Python wrapper in a form
	// guard install moves: the command the wrapper runs. PythonManual is
	// set, instead, when install cannot move it, and says why.
	Python, PythonManual string
}

// Own returns the hook's own command, behind whatever wraps it, as a shell
// would read it.
func (h Hook) Own() string {
	switch {
	case h.Guard != "" && h.InnerArgv != nil:
		return shell.Join(h.InnerArgv)
	case h.Guard != "":
		return h.Inner
	case h.Python != "":
		return h.Python
	}
	return h.text()
}

// text returns the hook's command, or its program and args, as a shell
// would read them.
func (h Hook) text() string {
	if h.Exec || h.Command == "" && h.Args != nil {
		argv := h.Args
		if h.Command != "" {
			argv = append([]string{h.Command}, argv...)
		}
		return shell.Join(argv)
	}
	return h.Command
}

// List returns the command hooks of doc: those of type "command" (or of no
// type) with a "command" string, or with "args" alone.
func List(doc []byte) ([]Hook, error) {
	root, err := parse(doc)
	if err != nil {
		return nil, err
	}
	hs, err := hooks(doc, root)
	if err != nil {
		return nil, err
	}
	var out []Hook
	for _, h := range hs {
		if !h.isCommand() {
			continue
		}
		if _, _, ok := h.commandString(doc); !ok {
			if _, ok := h.argStrings(doc); !ok || h.command != nil {
				continue
			}
		}
		out = append(out, describe(doc, h))
	}
	return out, nil
}

// describe reads a command hook.
func describe(doc []byte, h hook) Hook {
	l := Hook{Event: h.event, Matcher: h.matcher, Path: h.path, Exec: h.execForm(), FailClosed: h.failClosed(doc)}
	l.Shell, _ = h.str(doc, "shell")
	l.If, _ = h.str(doc, "if")
	l.Args, _ = h.argStrings(doc)
	if t := h.obj.get("timeout"); t != nil && t.kind == 'v' {
		if v, err := strconv.ParseFloat(strings.TrimSpace(string(doc[t.start:t.end])), 64); err == nil {
			l.Timeout, l.HasTimeout = v, true
		}
	}
	cmd, raw, isString := h.commandString(doc)
	l.Command = cmd
	switch {
	case isString && l.Exec:
		if w, ok := installed(raw); ok {
			l.Guard, l.Broken = w.binary, true
			l.Inner = decode(w.original())
			l.InnerArgv = append([]string{l.Inner}, l.Args...)
		} else if w, ok := execWrapped(cmd, l.Args); ok {
			l.Guard, l.OnSkip, l.Name, l.HookTimeout = cmd, w.onSkip, w.name, w.timeout
			if w.shell != "" {
				l.Inner, l.InnerShell = l.Args[w.at], w.shell
				if w.shell == "bash" {
					l.Inner = showPlaceholders(l.Inner)
				}
			} else {
				l.InnerArgv = l.Args[w.at:]
			}
		} else if pythonArgs(append([]string{cmd}, l.Args...)) {
			l.PythonManual = "exec form"
		}
	case isString:
		if w, ok := installed(raw); ok {
			l.Guard, l.OnSkip, l.HookTimeout, l.Fallback = w.binary, w.onSkip, w.timeout, w.fallback
			l.Inner, l.InnerShell = decode(w.inner), "sh"
			if w.bash {
				l.InnerShell = "bash"
			}
		} else if pw, ok := pythonWrapped(raw); ok {
			l.Python = decode(pw.inner)
		} else {
			l.PythonManual = pythonManual(cmd)
		}
	case oldWrappedArgs(l.Args):
		l.Guard, l.InnerArgv, l.Inner = l.Args[0], l.Args[3:], shell.Join(l.Args[3:])
	}
	return l
}

// wrappedExec reports whether the hook is in exec form behind guard.
func (h Hook) wrappedExec() bool { return h.Exec && h.Guard != "" && !h.Broken }

// decode reads the inside of a JSON string as written (without its
// quotes).
func decode(raw []byte) string {
	s, _ := (&node{kind: '"', start: 0, end: len(raw) + 2}).str(append(append([]byte{'"'}, raw...), '"'))
	return s
}
