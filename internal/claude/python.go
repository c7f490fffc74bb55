package claude

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"guard/internal/shell"
	"guard/internal/shell/sh"
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
// command that runs the Python wrapper in a form guard can take over
// exactly: the command is one simple command, with no VAR=value prefix or
// wrapper such as env in front (they would apply to the wrapped command
// too), that runs the wrapper script by path, with python or python3, or
// with uv run, their options (with their values) and the wrapper's own
// flags, then "--" and the wrapped command, which must be the rest of the
// command. The split is made in raw itself, so that prefix and inner put
// together are raw.
func pythonWrapped(raw []byte) (pyWrapping, bool) {
	var cmd string
	if json.Unmarshal(append(append([]byte{'"'}, raw...), '"'), &cmd) != nil {
		return pyWrapping{}, false
	}
	cs, err := sh.Commands(cmd)
	if err != nil || len(cs) != 1 || len(cs[0].Assigns) > 0 {
		return pyWrapping{}, false
	}
	words := cs[0].Words
	at := -1
	for i, w := range words {
		if baseOf(w) == PythonWrapper {
			at = i
			break
		}
	}
	if at < 0 {
		return pyWrapping{}, false
	}
	if ok, _ := launchedBy(words[:at]); !ok {
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
	ics, err := sh.Commands(inner)
	if err != nil || len(ics) != 1 || strings.Join(ics[0].Words, "\x00") != strings.Join(w.argv, "\x00") || len(ics[0].Assigns) > 0 {
		return pyWrapping{}, false
	}
	return w, true
}

// The options of uv run and of python that take a value as the next word,
// and those of uv run that change the directory or the environment the
// wrapper, and so the command it wraps, runs in: a hook with one of those
// cannot be moved to guard as it is.
var (
	uvValued = set("--with", "--with-editable", "--with-requirements", "--python", "-p", "--project", "--package",
		"--extra", "--group", "--only-group", "--no-group", "--index", "--default-index", "--index-url", "-i",
		"--extra-index-url", "--find-links", "-f", "--cache-dir", "--config-file", "--color", "--python-preference",
		"--resolution", "--prerelease", "--exclude-newer", "--link-mode", "--index-strategy", "--keyring-provider",
		"--refresh-package", "--reinstall-package", "--upgrade-package", "-P", "--no-binary-package",
		"--no-build-package", "--python-platform", "--allow-insecure-host")
	uvMoves      = set("--directory", "--env-file", "--env")
	pythonValued = set("-X", "-W")
)

func set(names ...string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}

// launchedBy reports whether words, those before the wrapper script, run
// it: none (the script by path), python3 and its options, or uv run and
// its options, with their values. Otherwise it may say why not.
func launchedBy(words []string) (bool, string) {
	if len(words) == 0 {
		return true, ""
	}
	base := baseOf(words[0])
	if !launchers().MatchString(base) {
		return false, ""
	}
	rest := words[1:]
	valued := pythonValued
	if base == "uv" {
		if len(rest) == 0 || rest[0] != "run" {
			return false, ""
		}
		rest, valued = rest[1:], uvValued
	}
	for i := 0; i < len(rest); i++ {
		name, _, hasValue := strings.Cut(rest[i], "=")
		switch {
		case !strings.HasPrefix(name, "-"):
			return false, "" // a script, or the value of an option guard does not know
		case base == "uv" && uvMoves[name]:
			return false, "uv run " + name + " changes where or with what environment the wrapped command runs"
		case base != "uv" && (name == "-c" || name == "-m"):
			return false, ""
		case valued[name] && !hasValue:
			i++
		}
	}
	return true, ""
}

// pythonManual returns "" for a command that does not mention the Python
// wrapper's script, and for one that does, which pythonWrapped does not
// take, why it cannot be moved to guard as it is: such a hook is left
// alone, never wrapped a second time (poetry run python ...wrapper.py,
// pipx run, uvx: a launcher install does not take apart). Commands run by
// sh -c or bash -c inside it count too.
func pythonManual(cmd string) string {
	if !strings.Contains(cmd, PythonWrapper) && !strings.Contains(cmd, pythonModule) && !strings.Contains(cmd, "circuit-breaker-wrapper") {
		return ""
	}
	if why := pythonManualIn(cmd, 0); why != "" {
		return why
	}
	return "guard cannot tell how the command runs it"
}

func pythonManualIn(cmd string, depth int) string {
	cs, err := sh.Commands(cmd)
	if err != nil {
		return "guard cannot read the command as a shell would"
	}
	for _, c := range cs {
		words := c.Program()
		if len(words) == 0 {
			continue
		}
		if depth < maxShellDepth {
			for _, inner := range shellStrings(c) {
				if !strings.Contains(inner, PythonWrapper) {
					continue
				}
				if why := pythonManualIn(inner, depth+1); why != "" {
					return why
				}
			}
		}
		if why := pythonModuleForm(words); why != "" {
			return why
		}
		at := -1
		for i, w := range words {
			if baseOf(w) == PythonWrapper {
				at = i
				break
			}
		}
		if at < 0 {
			continue
		}
		ok, why := launchedBy(words[:at])
		if !ok && why == "" && !launchers().MatchString(baseOf(words[0])) {
			why = "it starts with " + baseOf(words[0]) + ", not a launcher guard install takes apart (uv run, python)"
		}
		switch {
		case why != "":
			return why
		case len(cs) > 1:
			return "it is one of several commands in the hook, and guard would run the wrapped one on its own"
		case len(c.Assigns) > 0 || len(c.Words) != len(words):
			return "the wrapper runs behind VAR=value or a program such as env, which apply to the wrapped command too"
		default:
			return "guard cannot tell the wrapped command from the wrapper's options"
		}
	}
	return ""
}

// MentionsPythonWrapper reports whether cmd names the Python wrapper: its
// script, its module or its command.
func MentionsPythonWrapper(cmd string) bool {
	return strings.Contains(cmd, PythonWrapper) || pythonManual(cmd) != ""
}

// pythonModule is the Python wrapper's module, which python -m runs.
const pythonModule = "circuit_breaker_wrapper"

// pythonModuleForm says why words, a program and its arguments, run the
// Python wrapper in a form install does not take apart: as a module
// (python3 -m circuit_breaker_wrapper), or as an installed command
// (circuit-breaker-wrapper); else "".
func pythonModuleForm(words []string) string {
	base := baseOf(words[0])
	if base == "circuit-breaker-wrapper" || base == pythonModule {
		return "it runs the wrapper as the command " + base
	}
	if !launchers().MatchString(base) && base != "uvx" && base != "pipx" {
		return ""
	}
	for i, w := range words[1:] {
		if (w == "-m" || w == "--module") && i+2 < len(words) && words[i+2] == pythonModule {
			return "it runs the wrapper as a module (" + base + " -m " + pythonModule + ")"
		}
	}
	return ""
}

// shells run the command string after their -c.
var shells = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(sh|bash|dash|zsh|ksh|mksh|ash)$`) })

// maxShellDepth bounds how deep shellStrings are followed.
const maxShellDepth = 8

// shellStrings returns the strings the simple command c runs as commands:
// the literal string after -c (or a cluster such as -lc, -ec) of a shell
// (sh, bash, ...), behind wrappers such as env or sudo.
func shellStrings(c shell.Command) []string {
	words := c.Program()
	if len(words) == 0 || !shells().MatchString(baseOf(words[0])) {
		return nil
	}
	lit := c.Literal[len(c.Words)-len(words):]
	for i := 1; i < len(words); i++ {
		w := words[i]
		if !lit[i] || !strings.HasPrefix(w, "-") || w == "-" || w == "--" {
			return nil
		}
		if !strings.HasPrefix(w, "--") && strings.Contains(w, "c") {
			if i+1 < len(words) && lit[i+1] {
				return []string{words[i+1]}
			}
			return nil
		}
		if w == "-o" || w == "+o" || w == "--rcfile" || w == "--init-file" {
			i++
		}
	}
	return nil
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

// pythonArgs reports whether an exec-form hook (its program and its
// arguments) runs the Python wrapper.
func pythonArgs(argv []string) bool {
	for _, a := range argv {
		if a == "--" {
			return false
		}
		if strings.Contains(a, PythonWrapper) {
			return true
		}
	}
	return false
}
