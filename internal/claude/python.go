package claude

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"guard/internal/shell"
)

// PythonWrapper is the Python guardrails' wrapper script, which guard
// replaces: a hook "uv run .../circuit_breaker_wrapper.py [--failure-threshold N]
// [--cooldown-seconds N] -- CMD" runs CMD behind the Python circuit breaker.
const PythonWrapper = "circuit_breaker_wrapper.py"

// FromPythonFlag is the guard run flag that keeps, in a hook Install moved
// off the Python wrapper, the hook's text up to the wrapped command, so
// that Uninstall gives the Python-wrapped hook back byte for byte. guard
// run ignores it.
const FromPythonFlag = "--from-python"

// A pyWrapping is a command hook that runs behind the Python wrapper.
type pyWrapping struct {
	prefix []byte   // the raw JSON text up to the wrapped command: "uv run .../circuit_breaker_wrapper.py -- "
	inner  []byte   // the raw JSON text of the wrapped command
	argv   []string // the wrapped command's words, as the wrapper receives them
	flags  []string // the wrapper's own flags, as guard run takes them
}

// launchers are the programs that run the wrapper script, before it.
var launchers = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(uv|python|python3(\.\d+)?|pypy3?)$`) })

// pythonWrapped reads raw, the inside of a JSON string as written, as a
// command that runs the Python wrapper: by path, with python or python3,
// or with uv run, its options and the wrapper's own flags, then "--" and
// the wrapped command, which must be the rest of the command. The split is
// made in raw itself, so that prefix and inner put together are raw.
func pythonWrapped(raw []byte) (pyWrapping, bool) {
	var cmd string
	if json.Unmarshal(append(append([]byte{'"'}, raw...), '"'), &cmd) != nil {
		return pyWrapping{}, false
	}
	cs, err := shell.Parse(cmd)
	if err != nil || len(cs) != 1 {
		return pyWrapping{}, false
	}
	words := cs[0].Program()
	at := -1
	for i, w := range words {
		if filepath.Base(w) == PythonWrapper {
			at = i
			break
		}
	}
	if at < 0 || !launchedBy(words[:at]) {
		return pyWrapping{}, false
	}
	var w pyWrapping
	rest := words[at+1:]
	for len(rest) > 0 && rest[0] != "--" {
		if (rest[0] == "--failure-threshold" || rest[0] == "--cooldown-seconds") && len(rest) > 1 && isDigits(rest[1]) {
			w.flags = append(w.flags, rest[0], rest[1])
			rest = rest[2:]
			continue
		}
		rest = rest[1:] // the wrapper skips what it does not know
	}
	if len(rest) < 2 {
		return pyWrapping{}, false
	}
	w.argv = rest[1:]
	// Split raw after the " -- " that follows the wrapper's name.
	i := bytes.Index(raw, []byte(PythonWrapper))
	if i < 0 {
		return pyWrapping{}, false
	}
	j := bytes.Index(raw[i:], []byte(" -- "))
	if j < 0 {
		return pyWrapping{}, false
	}
	split := i + j + len(" -- ")
	for split < len(raw) && raw[split] == ' ' {
		split++
	}
	w.prefix, w.inner = raw[:split], raw[split:]
	// The wrapped command, run by a shell on its own, must be the words the
	// wrapper ran.
	var inner string
	if json.Unmarshal(append(append([]byte{'"'}, w.inner...), '"'), &inner) != nil {
		return pyWrapping{}, false
	}
	ics, err := shell.Parse(inner)
	if err != nil || len(ics) != 1 || strings.Join(ics[0].Words, "\x00") != strings.Join(w.argv, "\x00") || len(ics[0].Assigns) > 0 {
		return pyWrapping{}, false
	}
	return w, true
}

// launchedBy reports whether words, those before the wrapper script, run
// it: none (the script by path), python3 and its options, or uv run and
// its options.
func launchedBy(words []string) bool {
	if len(words) == 0 {
		return true
	}
	if !launchers().MatchString(filepath.Base(words[0])) {
		return false
	}
	rest := words[1:]
	if filepath.Base(words[0]) == "uv" {
		if len(rest) == 0 || rest[0] != "run" {
			return false
		}
		rest = rest[1:]
	}
	for _, w := range rest {
		if !strings.HasPrefix(w, "-") {
			return false
		}
	}
	return true
}

func isDigits(s string) bool {
	return s != "" && strings.Trim(s, "0123456789") == ""
}

// PythonKey is the key the Python wrapper keeps a wrapped command's state
// under, given the command's words: the name of the last .py script in
// it, without .py, with _ as - and in lower case, or else the last word
// that is not an option, a path or a launcher (uv, run, python3, ...).
func PythonKey(argv []string) string {
	skip := map[string]bool{"uv": true, "run": true, "--no-project": true, "python": true, "python3": true,
		"--": true, PythonWrapper: true, "circuit-breaker-wrapper": true}
	clean := func(s string) string { return strings.ToLower(strings.ReplaceAll(s, "_", "-")) }
	for i := len(argv) - 1; i >= 0; i-- {
		// A word guard could not read as the shell would ("$DIR/x.py") is
		// taken without its quotes: the wrapper saw it expanded.
		part := unquoteDouble(argv[i])
		if strings.HasSuffix(part, ".py") && !strings.Contains(part, "circuit_breaker_wrapper") {
			return clean(strings.TrimSuffix(filepath.Base(part), ".py"))
		}
		if part != "" && !strings.HasPrefix(part, "-") && !strings.Contains(part, "/") && !skip[part] && !strings.HasSuffix(part, ".py") {
			if c := clean(part); !skip[c] {
				return c
			}
		}
	}
	if len(argv) == 0 {
		return ""
	}
	last := filepath.Base(unquoteDouble(argv[len(argv)-1]))
	return clean(strings.TrimSuffix(last, filepath.Ext(last)))
}

// unquoteDouble takes the double quotes off a word package shell kept as
// written: "$DIR/x.py" is $DIR/x.py.
func unquoteDouble(w string) string {
	if len(w) >= 2 && w[0] == '"' && w[len(w)-1] == '"' {
		return w[1 : len(w)-1]
	}
	return w
}

// fromPython reads raw as a hook Install moved off the Python wrapper:
// QUOTED-BINARY run --from-python 'PREFIX' [--failure-threshold N]
// [--cooldown-seconds N] -c 'COMMAND'. It returns the raw JSON text of the
// Python-wrapped hook it was.
func fromPython(raw []byte) (binary string, binaryLen int, original []byte, ok bool) {
	s := string(raw)
	word, rest, ok := firstWord(s)
	if !ok || !isGuard(word) {
		return "", 0, nil, false
	}
	binaryLen = len(s) - len(rest)
	head := " run " + FromPythonFlag + " '"
	if !strings.HasPrefix(rest, head) {
		return "", 0, nil, false
	}
	prefix, rest, ok := quotedUnits(rest[len(head):])
	if !ok {
		return "", 0, nil, false
	}
	i := strings.Index(rest, " -c '")
	if i < 0 || !strings.HasSuffix(rest, "'") || strings.Trim(rest[:i], " -abcdefghijklmnopqrstuvwxyz0123456789") != "" {
		return "", 0, nil, false
	}
	inner, ok := unquoteUnits([]byte(rest[i+len(" -c '") : len(rest)-1]))
	if !ok {
		return "", 0, nil, false
	}
	return word, binaryLen, append(prefix, inner...), true
}

// quotedUnits reads the units of a single-quoted word as quoteUnits wrote
// it, up to its closing quote, and returns them unquoted with what follows.
func quotedUnits(s string) ([]byte, string, bool) {
	us := units([]byte(s))
	n := 0
	for i := 0; i < len(us); i++ {
		if !isQuote(us[i]) {
			n += len(us[i])
			continue
		}
		if i+3 < len(us) && bytes.Equal(us[i+1], backslash) && bytes.Equal(us[i+2], us[i]) && bytes.Equal(us[i+3], us[i]) {
			for _, u := range us[i : i+4] {
				n += len(u)
			}
			i += 3
			continue
		}
		out, ok := unquoteUnits([]byte(s[:n]))
		return out, s[n+len(us[i]):], ok
	}
	return nil, "", false
}

// programOf returns the program argv runs, behind wrappers such as env.
func programOf(argv []string) string {
	prog := shell.Command{Words: argv}.Program()
	if len(prog) == 0 {
		return ""
	}
	return prog[0]
}

// pythonArgs reports whether an exec-form hook runs the Python wrapper.
func pythonArgs(args []string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		if filepath.Base(a) == PythonWrapper {
			return true
		}
	}
	return false
}
