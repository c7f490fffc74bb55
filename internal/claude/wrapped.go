package claude

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"guard/internal/shell"
	"guard/internal/shell/sh"
)

// The forms of a shell-form hook that Install writes, and Uninstall reads
// back (BINARY is quoted for sh, COMMAND and PREFIX as quoteUnits does):
//
//	BINARY run FLAGS [--shell bash] -c 'COMMAND'
//	BINARY run FLAGS --from-python 'PREFIX' [--failure-threshold N] [--cooldown-seconds N] -c 'COMMAND'
//
// where FLAGS are [--on-skip block] [--hook-timeout N], in that order.
// --shell bash runs COMMAND as Claude Code runs a hook's command, with
// bash; a hook moved off the Python wrapper, which ran its command itself,
// keeps sh. --hook-timeout N is the hook's "timeout" (or Claude Code's
// default for its event), so that guard ends a hook that hangs before
// Claude Code does, and counts it. With the bare name guard as BINARY
// (found through PATH, for settings files a team commits), the form is
// preceded by a fallback that runs the command itself where guard is not
// installed, so that a policy keeps blocking on such a machine:
//
//	command -v guard >/dev/null 2>&1 || exec SHELL -c 'COMMAND'; exec guard run ...
//
// SHELL being bash, or sh for a hook moved off the Python wrapper.
//
// An exec-form hook, {"command": BINARY, "args": ARGS}, is
//
//	ARGS = ["run", EXECFLAGS, "--", PROGRAM, ARG...]
//
// where PROGRAM is the hook's "command" as it was written, and EXECFLAGS
// are ["--name", NAME,] ["--on-skip", "block",] ["--hook-timeout", N].
// A shell-form hook written in exec form instead (a plugin's hooks, whose
// placeholders Claude Code substitutes element by element there, and a
// PowerShell hook, which then needs no quoting) is
//
//	ARGS = ["run", EXECFLAGS, "--shell", SHELL, "-c", COMMAND]
//
// with COMMAND written as it was, and "args" right after "command".
// --name NAME keys a plugin's hook by the plugin and its own command, not
// by the path of the plugin's version (see PluginKey).
const (
	onSkipFlag      = " --on-skip block"
	timeoutFlag     = " --hook-timeout "
	shellFlag       = " --shell bash"
	fromPyHead      = " " + FromPythonFlag + " '"
	commandHead     = " -c '"
	fallbackHead    = "command -v guard >/dev/null 2>&1 || exec "
	fallbackTail    = "; exec "
	HookTimeoutFlag = "--hook-timeout"
)

// A wrapping is a shell-form hook as Install wrote it.
type wrapping struct {
	binary   string // the guard it calls
	fallback bool   // it runs the command itself where guard is not installed
	// flagsEnd is where, in the raw JSON string, the flags end: the
	// --from-python or -c that follows them.
	flagsEnd int
	onSkip   bool   // it has --on-skip block
	timeout  string // the value of its --hook-timeout, or ""
	bash     bool   // it has --shell bash
	// python is the raw JSON text of the Python-wrapped hook's text up to
	// the wrapped command, for a hook moved off the Python wrapper; nil
	// for others.
	python []byte
	inner  []byte // the raw JSON text of the wrapped command
}

// original returns the raw JSON text of the hook before Install.
func (w wrapping) original() []byte {
	return append(append([]byte(nil), w.python...), w.inner...)
}

// installed reads raw, the inside of a JSON string as written, as a
// command Install wrote, where the binary is a file named guard.
func installed(raw []byte) (wrapping, bool) {
	if !bytes.HasPrefix(raw, []byte(fallbackHead)) {
		return plainInstalled(raw, 0)
	}
	rest := string(raw[len(fallbackHead):])
	sh := "sh"
	if strings.HasPrefix(rest, "bash") {
		sh = "bash"
	}
	if !strings.HasPrefix(rest, sh+commandHead) {
		return wrapping{}, false
	}
	q, after, ok := quotedUnits(rest[len(sh+commandHead):])
	if !ok || !strings.HasPrefix(after, fallbackTail) {
		return wrapping{}, false
	}
	at := len(raw) - len(after) + len(fallbackTail)
	w, ok := plainInstalled(raw, at)
	if !ok || w.binary != "guard" || !bytes.Equal(q, w.inner) || w.bash != (sh == "bash") {
		return wrapping{}, false
	}
	w.fallback = true
	return w, true
}

// plainInstalled reads raw[at:] as a command Install wrote, without the
// fallback.
func plainInstalled(raw []byte, at int) (wrapping, bool) {
	decoded := decode(raw[at:])
	word, rest, ok := firstWord(decoded)
	if !ok || !isGuard(word) {
		return wrapping{}, false
	}
	n, ok := rawPrefixLen(raw[at:], len(decoded)-len(rest))
	if !ok {
		return wrapping{}, false
	}
	w := wrapping{binary: word}
	s := string(raw[at+n:])
	if !strings.HasPrefix(s, " run") {
		return wrapping{}, false
	}
	s = s[len(" run"):]
	if strings.HasPrefix(s, onSkipFlag) {
		w.onSkip = true
		s = s[len(onSkipFlag):]
	}
	if strings.HasPrefix(s, timeoutFlag) {
		v, _, _ := strings.Cut(s[len(timeoutFlag):], " ")
		if !validTimeout(v) {
			return wrapping{}, false
		}
		w.timeout = v
		s = s[len(timeoutFlag)+len(v):]
	}
	if strings.HasPrefix(s, shellFlag) {
		w.bash = true
		s = s[len(shellFlag):]
	}
	w.flagsEnd = len(raw) - len(s)
	if strings.HasPrefix(s, fromPyHead) {
		prefix, rest, ok := quotedUnits(s[len(fromPyHead):])
		if !ok {
			return wrapping{}, false
		}
		i := strings.Index(rest, commandHead)
		if i < 0 || !pythonFlags(rest[:i]) {
			return wrapping{}, false
		}
		w.python = append([]byte{}, prefix...)
		s = rest[i:]
	}
	if !strings.HasPrefix(s, commandHead) || !strings.HasSuffix(s, "'") || len(s) < len(commandHead)+1 {
		return wrapping{}, false
	}
	inner, ok := unquoteUnits([]byte(s[len(commandHead) : len(s)-1]))
	if !ok {
		return wrapping{}, false
	}
	w.inner = inner
	return w, true
}

// validTimeout reports whether s is a --hook-timeout install writes: a
// positive number of seconds, in plain decimal.
func validTimeout(s string) bool {
	if s == "" || strings.Trim(s, "0123456789.") != "" || strings.Count(s, ".") > 1 {
		return false
	}
	v, err := strconv.ParseFloat(s, 64)
	return err == nil && v > 0
}

// pythonFlags reports whether s is what Install writes between a moved
// hook's prefix and -c: the wrapper's own flags, each with a number.
func pythonFlags(s string) bool {
	f := strings.Fields(s)
	if len(f)%2 != 0 {
		return false
	}
	for i := 0; i < len(f); i += 2 {
		if (f[i] != "--failure-threshold" && f[i] != "--cooldown-seconds") || !isDigits(f[i+1]) {
			return false
		}
	}
	return s == "" || strings.HasPrefix(s, " ") && strings.Join(f, " ") == s[1:]
}

// A shellSpec is what Install writes in front of a shell-form hook's
// command: the guard, and guard run's flags.
type shellSpec struct {
	binary   string
	fallback bool
	onSkip   bool
	timeout  string
	bash     bool
}

// head writes the raw JSON text of the spec's guard call up to its flags'
// end, for a command whose raw JSON text is inner.
func (sp shellSpec) head(inner []byte) []byte {
	var text []byte
	if sp.fallback {
		sh := "sh"
		if sp.bash {
			sh = "bash"
		}
		text = append(text, fallbackHead+sh+commandHead...)
		text = append(text, quoteUnits(inner)...)
		text = append(text, "'"+fallbackTail...)
	}
	text = append(text, jsonInner(quoteBinary(sp.binary)+" run")...)
	if sp.onSkip {
		text = append(text, onSkipFlag...)
	}
	if sp.timeout != "" {
		text = append(text, timeoutFlag+sp.timeout...)
	}
	if sp.bash {
		text = append(text, shellFlag...)
	}
	return text
}

// spec is the shellSpec of a wrapping.
func (w wrapping) spec() shellSpec {
	return shellSpec{binary: w.binary, fallback: w.fallback, onSkip: w.onSkip, timeout: w.timeout, bash: w.bash}
}

// shellWrapping writes the JSON string (with its quotes) of a shell-form
// hook that runs inner (raw JSON text) behind sp, moved off the Python
// wrapper when python is not nil (flags are the wrapper's own).
func shellWrapping(sp shellSpec, python []byte, flags []string, inner []byte) []byte {
	text := []byte{'"'}
	text = append(text, sp.head(inner)...)
	if python != nil {
		text = append(text, fromPyHead...)
		text = append(text, quoteUnits(python)...)
		text = append(text, '\'')
		for _, f := range flags {
			text = append(append(text, ' '), f...)
		}
	}
	text = append(text, commandHead...)
	text = append(text, quoteUnits(inner)...)
	return append(text, '\'', '"')
}

// An execSpec is what Install writes in an exec-form hook's args before
// the hook's own program (or before --shell SHELL -c COMMAND).
type execSpec struct {
	name    string // --name; "" for none
	onSkip  bool
	timeout string
}

// args returns the spec's args.
func (sp execSpec) args() []string {
	a := []string{"run"}
	if sp.name != "" {
		a = append(a, "--name", sp.name)
	}
	if sp.onSkip {
		a = append(a, "--on-skip", "block")
	}
	if sp.timeout != "" {
		a = append(a, HookTimeoutFlag, sp.timeout)
	}
	return a
}

// An execWrapping is an exec-form hook as Install wrote it.
type execWrapping struct {
	execSpec
	// at is the index in args of the hook's own program, after "--"; for a
	// shell command (shell set), the index of the command after -c.
	at    int
	shell string // the --shell of a shell-form hook written in exec form; "" otherwise
}

// execWrapped reads an exec-form hook as Install wrote it: command names a
// file called guard, and args run the original program, or a shell
// command with --shell SHELL -c COMMAND.
func execWrapped(command string, args []string) (execWrapping, bool) {
	if !isGuard(command) || len(args) < 3 || args[0] != "run" {
		return execWrapping{}, false
	}
	var w execWrapping
	i := 1
	if args[i] == "--name" && i+1 < len(args) {
		w.name = args[i+1]
		i += 2
	}
	if i+1 < len(args) && args[i] == "--on-skip" && args[i+1] == "block" {
		w.onSkip = true
		i += 2
	}
	if i+1 < len(args) && args[i] == HookTimeoutFlag && validTimeout(args[i+1]) {
		w.timeout = args[i+1]
		i += 2
	}
	switch {
	case i+1 < len(args) && args[i] == "--":
		w.at = i + 1
		return w, true
	case i+4 == len(args) && args[i] == "--shell" && args[i+2] == "-c" && (args[i+1] == "bash" || isPowerShell(args[i+1])):
		w.at, w.shell = i+3, args[i+1]
		return w, true
	}
	return execWrapping{}, false
}

// isPowerShell reports whether sh names PowerShell, as install writes it
// for a "shell": "powershell" hook: pwsh, or powershell on Windows.
func isPowerShell(sh string) bool { return sh == "pwsh" || sh == "powershell" }

// isGuard reports whether path names guard: a file whose name is guard
// (guard.exe on Windows). Others that merely start so (guardctl,
// guarddog, guard-secrets.sh) are not guard. Install writes only such a
// path, and Uninstall unwraps only hooks that call one.
func isGuard(path string) bool {
	base := fileName(path)
	return base == "guard" || base == "guard.exe"
}

// IsGuardPath reports whether path names guard, as install writes it: a
// file called guard (guard.exe).
func IsGuardPath(path string) bool { return isGuard(path) }

// fileName is the last element of a path written with / or, on Windows,
// \.
func fileName(path string) string {
	if i := strings.LastIndexAny(path, `/\`); i >= 0 {
		return path[i+1:]
	}
	return path
}

// guardNames are guard's programs: guard, guard's other commands
// (guard-cli), and those with the database driver and with the dashboard.
// Each runs a hook as guard does.
var guardNames = map[string]bool{"guard": true, "guard-cli": true, "guard-pg": true, "guard-web": true,
	"guard.exe": true, "guard-cli.exe": true, "guard-pg.exe": true, "guard-web.exe": true}

// isGuardProgram reports whether a shell word, as written, runs guard:
// a file named guard, guard-cli, guard-pg or guard-web, through any path, $HOME/...
// and "$HOME/..." included, or a parameter expansion whose default is
// one (${GUARD:-guard}).
func isGuardProgram(word string) bool {
	if m := defaultValue().FindStringSubmatch(strings.Trim(word, `"`)); m != nil && strings.Contains(word, "{") {
		word = m[1]
	}
	return guardNames[baseOf(word)]
}

// defaultValue matches ${VAR:-WORD} and ${VAR-WORD}.
var defaultValue = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^\$\{[A-Za-z_][A-Za-z0-9_]*:?-(.+)\}$`)
})

// baseOf returns the file name of a word as written, quotes taken off:
// "$HOME/.local/bin/guard" is guard.
func baseOf(word string) string {
	if i := strings.LastIndexByte(word, '/'); i >= 0 {
		word = word[i+1:]
	}
	if strings.ContainsAny(word, `"'`) {
		word = unquote.Replace(word)
	}
	return word
}

var unquote = strings.NewReplacer(`"`, "", `'`, "")

// quoteBinary quotes the binary as the first word of a hook.
func quoteBinary(bin string) string { return shell.Quote(bin) }

// callsGuard reports whether cmd runs guard itself anywhere: as one of
// its commands, behind VAR=value prefixes and wrappers such as env or sudo
// included, and inside the string of sh -c or bash -c.
func callsGuard(cmd string) bool { return callsGuardWith(cmd, nil) }

// callsGuardWith is callsGuard, where copy, if set, also reports a program
// that is guard under another name.
func callsGuardWith(cmd string, copy func(string) bool) bool {
	is := func(prog []string) bool { return isGuardProgram(prog[0]) || copy != nil && copy(prog[0]) }
	cs, err := sh.Commands(cmd)
	if err != nil || len(cs) == 0 {
		word, _, ok := firstWord(cmd + " ")
		return ok && is([]string{word})
	}
	return guardIn(cs, is, 0)
}

// RunsGuard reports whether cmd is a guard run call of any form, inside
// the string of sh -c or bash -c included.
func RunsGuard(cmd string) bool { return RunsGuardWith(cmd, nil) }

// RunsGuardWith is RunsGuard, where copy, if set, also reports a program
// that is guard under another name.
func RunsGuardWith(cmd string, copy func(string) bool) bool {
	cs, err := sh.Commands(cmd)
	if err != nil {
		return false
	}
	return guardIn(cs, func(prog []string) bool {
		return len(prog) > 1 && (isGuardProgram(prog[0]) || copy != nil && copy(prog[0])) && prog[1] == "run"
	}, 0)
}

// guardIn reports whether is holds for the program of one of cs, or of a
// command in the string a shell among them runs with -c.
func guardIn(cs []shell.Command, is func(prog []string) bool, depth int) bool {
	for _, c := range cs {
		if prog := c.Program(); len(prog) > 0 && is(prog) {
			return true
		}
		if depth >= maxShellDepth {
			continue
		}
		for _, s := range shellStrings(c) {
			if inner, err := sh.Commands(s); err == nil && guardIn(inner, is, depth+1) {
				return true
			}
		}
	}
	return false
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

// oldWrappedArgs reports whether args (of a hook with no "command") are as
// guard install wrote exec-form hooks before it knew Claude Code's exec
// form: ["GUARD", "run", "--", ARG...].
func oldWrappedArgs(args []string) bool {
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

// rawPrefixLen returns how many bytes of raw, the inside of a JSON string
// as written, decode to the first n bytes of the string.
func rawPrefixLen(raw []byte, n int) (int, bool) {
	off, got := 0, 0
	for _, u := range units(raw) {
		if got >= n {
			break
		}
		switch {
		case u[0] != '\\':
			got++
		case len(u) == 12: // a surrogate pair
			got += 4
		case len(u) == 6:
			r := rune(0)
			for _, c := range u[2:] {
				r = r<<4 | rune(hexDigit(c))
			}
			l := utf8.RuneLen(r)
			if l < 0 {
				l = 3 // a lone surrogate decodes to U+FFFD
			}
			got += l
		default:
			got++
		}
		off += len(u)
	}
	if got != n {
		return 0, false
	}
	d := decode(raw)
	return off, n <= len(d) && decode(raw[:off]) == d[:n]
}

func hexDigit(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'F':
		return int(c-'A') + 10
	}
	return 0
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
// byte, a two-byte escape such as \n, a \uXXXX escape, or a surrogate
// pair of them.
func units(raw []byte) [][]byte {
	var out [][]byte
	for i := 0; i < len(raw); {
		n := 1
		if raw[i] == '\\' {
			n = 2
			if i+1 < len(raw) && raw[i+1] == 'u' {
				n = 6
				if i+12 <= len(raw) && highSurrogate(raw[i+2:i+6]) && raw[i+6] == '\\' && raw[i+7] == 'u' && lowSurrogate(raw[i+8:i+12]) {
					n = 12
				}
			}
		}
		n = min(n, len(raw)-i)
		out = append(out, raw[i:i+n])
		i += n
	}
	return out
}

func highSurrogate(h []byte) bool {
	return (h[0] == 'd' || h[0] == 'D') && strings.ContainsRune("89abAB", rune(h[1]))
}

func lowSurrogate(h []byte) bool {
	return (h[0] == 'd' || h[0] == 'D') && strings.ContainsRune("cdefCDEF", rune(h[1]))
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
