package claude

import (
	"strconv"
	"strings"

	"guard/internal/shell"
)

// A Hook is one command hook of a settings file, as guard doctor reads it.
type Hook struct {
	Event, Matcher string
	Command        string   // the command, or "" for a hook in exec form
	Args           []string // the exec form's args
	Timeout        float64  // seconds, as Claude Code reads it; 0 if not set
	HasTimeout     bool

	// Guard is set when the hook runs behind guard: the guard it calls and
	// the command guard runs for it (a shell string).
	Guard, Inner string
	// Python is set when the hook runs behind the Python wrapper: the
	// command the wrapper runs.
	Python string
}

// List returns the command hooks of doc.
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
		l := Hook{Event: h.event, Matcher: h.matcher}
		switch {
		case h.command != nil:
			l.Command, _ = h.command.str(doc)
			raw := doc[h.command.start+1 : h.command.end-1]
			if w, ok := installed(raw); ok {
				l.Guard, l.Inner = w.binary, decode(w.inner)
			} else if bin, _, original, ok := fromPython(raw); ok {
				l.Guard = bin
				if pw, ok := pythonWrapped(original); ok {
					l.Inner = decode(pw.inner)
				}
			} else if pw, ok := pythonWrapped(raw); ok {
				l.Python = decode(pw.inner)
			}
		case h.args != nil:
			l.Args = strs(doc, h.args.elems)
			if wrappedArgs(l.Args) {
				l.Guard, l.Inner = l.Args[0], shell.Join(l.Args[3:])
			}
		}
		if t := h.timeout; t != nil && t.kind == 'v' {
			if v, err := strconv.ParseFloat(strings.TrimSpace(string(doc[t.start:t.end])), 64); err == nil {
				l.Timeout, l.HasTimeout = v, true
			}
		}
		out = append(out, l)
	}
	return out, nil
}

// decode reads the inside of a JSON string as written (without its
// quotes).
func decode(raw []byte) string {
	s, _ := (&node{kind: '"', start: 0, end: len(raw) + 2}).str(append(append([]byte{'"'}, raw...), '"'))
	return s
}
