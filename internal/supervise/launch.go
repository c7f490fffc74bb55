package supervise

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"guard/internal/safeopen"
	"guard/internal/shell"
)

// LaunchFailure returns the line of the child's stderr that shows that the
// command guard ran never started: its interpreter could not open the
// script guard named, or the #! interpreter of the script guard ran is not
// there. It returns "" unless that is certain, which takes all of:
//
//   - the command is an interpreter and its script (python3 x.py, node
//     x.js, uv run x.py, perl, sh, bash, zsh, bun, deno), or a script by
//     path; for a -c string, one simple command of that shape, its
//     variables and ~ expanded as sh would (anything more, a list, a
//     pipeline, a redirection, a command substitution, and guard cannot be
//     sure who printed what, so it is not);
//   - the interpreter's own launch error names exactly that script;
//   - that error is the last thing on stderr (a hook that started and
//     printed anything after it did start);
//   - the status is the one the interpreter exits with then (python3 2,
//     node 1, ...): a hook that quotes such a line and exits 2 on purpose
//     keeps its 2;
//   - what the error says is missing really is: the script, resolved
//     against the run's working directory, cannot be opened (a script that
//     is there started, whatever its stderr says), the #! interpreter is
//     not an executable file, env's program is not on the run's PATH.
//
// A hook that started and ran a helper that could not start is not a
// launch failure: the helper is not the command guard ran.
func (r *Result) LaunchFailure() string {
	if !r.Ran() || r.ExitCode == 0 || r.Signal != 0 || r.TimedOut || r.Interrupted != nil || r.Stopped || len(r.Argv) == 0 {
		return ""
	}
	lines := stderrLines(r.Tail)
	if len(lines) == 0 {
		return ""
	}
	env := r.Env
	if env == nil {
		env = os.Environ()
	}
	argv := r.Argv
	if len(argv) == 3 && argv[1] == "-c" && isShell(argv[0]) {
		// guard run -c STRING: what the string runs, if it is one simple
		// command.
		if argv = shell.SimpleCommand(argv[2], env); argv == nil {
			return ""
		}
	}
	dir := r.Dir
	if dir == "" {
		dir, _ = os.Getwd()
	}
	return launchFailure(argv, lines, r.ExitCode, dir, getenv(env, "PATH"))
}

// getenv returns the value of name in env, the last one given.
func getenv(env []string, name string) string {
	v := ""
	for _, kv := range env {
		if k, val, ok := strings.Cut(kv, "="); ok && k == name {
			v = val
		}
	}
	return v
}

// missing reports whether script, resolved against dir, cannot be opened
// for reading: what an interpreter that says it cannot open it must have
// found. A script that is there, a regular file guard can open, started
// (the run's user is guard's), so a launch error naming it was printed by
// something else: the script itself, quoting one, or faking one.
func missing(script, dir string) bool {
	p := script
	if !filepath.IsAbs(p) {
		p = filepath.Join(dir, p)
	}
	f, err := safeopen.Open(p) // never waits on a file, whatever it turns into
	if errors.Is(err, safeopen.ErrNotRegular) {
		return false // a directory or a device: not "cannot open" for want of a file
	}
	if err != nil {
		return true // not there, or there but unreadable: Errno 13 is a launch failure too
	}
	f.Close()
	return false
}

// executable reports whether path is an executable regular file.
func executable(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0
}

// onPath reports whether prog is an executable file on path (a PATH
// value), or, if it names a directory, at that path.
func onPath(prog, path string) bool {
	if strings.Contains(prog, "/") {
		return executable(prog)
	}
	for _, d := range filepath.SplitList(path) {
		if d == "" {
			d = "."
		}
		if executable(filepath.Join(d, prog)) {
			return true
		}
	}
	return false
}

// stderrLines splits a stderr tail into lines, without the line ends and
// the blank lines at its end. The first line of a full tail may have been
// cut, but only the last lines matter here.
func stderrLines(tail []byte) []string {
	s := strings.ReplaceAll(string(tail), "\r\n", "\n")
	s = strings.TrimRight(s, " \t\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

// launchPatterns are the launch errors of each interpreter, compiled on
// first use: most runs exit 0 and never need them.
var launchPatterns = sync.OnceValue(func() map[string]*regexp.Regexp {
	return map[string]*regexp.Regexp{
		// /usr/bin/python3: can't open file '/cwd/x.py': [Errno 2] No such file or directory
		"python": regexp.MustCompile(`^(?:\S*/)?(?:python|pypy)[0-9.]*: can't open file '(.*)': \[Errno \d+\] .+$`),
		// Can't open perl script "x.pl": No such file or directory
		"perl": regexp.MustCompile(`^Can't open perl script "(.*)": .+$`),
		// dash: sh: 0: cannot open x.sh: No such file
		"dash": regexp.MustCompile(`^(\S+): \d+: cannot open (.*): [^:]+$`),
		// bash: bash: x.sh: No such file or directory
		"bash": regexp.MustCompile(`^(\S+): (.*): No such file or directory$`),
		// zsh: can't open input file: x.sh
		"zsh": regexp.MustCompile(`^(\S+): can't open input file: (.*)$`),
		// node x.js (the main module, resolved against the cwd)
		"node": regexp.MustCompile(`^Error: Cannot find module '(.*)'$`),
		// bun x.ts; deno run x.ts (deno names a file:// URL, with a full stop)
		"module": regexp.MustCompile(`^error: Module not found "(.*)"\.?$`),
		// uv run x.py: "error: Failed to spawn: `x.py`", then "  Caused by: ..." lines
		"uv": regexp.MustCompile("^error: Failed to spawn: `(.*)`$"),
		// bash running a script whose #! interpreter is not there
		"interpreter": regexp.MustCompile(`^(\S+): (?:line \d+: )?(.*?): (.*): bad interpreter: .+$`),
		// env, named by a #! line, not finding its program
		"env": regexp.MustCompile(`^(?:\S*/)?env: '?(.*?)'?: No such file or directory$`),
	}
})

// nodeReportLine matches the lines Node prints after "Error: Cannot find
// module": the stack, the error's fields, and its version.
var nodeReportLine = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(?:\s+at .*|\s+code: 'MODULE_NOT_FOUND',?|\s+requireStack: \[\]|\}|\s*|Node\.js v\S+|Bun v.*)$`)
})

// launchFailure is LaunchFailure for the command argv, which exited with
// code and left lines on stderr, run in dir with PATH path.
func launchFailure(argv []string, lines []string, code int, dir, path string) string {
	// The program behind env VAR=value, nice, timeout 5, sudo, setsid...:
	// shell's one table of the programs that run a command in their
	// arguments, as install and the budgets read them.
	argv = shell.Command{Words: argv}.Program()
	if len(argv) == 0 {
		return ""
	}
	last := lines[len(lines)-1]
	re := launchPatterns()
	name := filepath.Base(argv[0])
	switch {
	case isPython(name):
		script := scriptArg(argv[1:], pythonValued, "-c", "-m")
		if m := re["python"].FindStringSubmatch(last); m != nil && code == 2 && script != "" && samePath(m[1], script, dir) && missing(script, dir) {
			return last
		}
	case name == "perl":
		script := scriptArg(argv[1:], nil, "-e", "-E")
		if m := re["perl"].FindStringSubmatch(last); m != nil && code == 2 && script != "" && m[1] == script && missing(script, dir) {
			return last
		}
	case isShell(name):
		script := scriptArg(argv[1:], shellValued, "-c", "-s")
		if script == "" || !missing(script, dir) {
			return ""
		}
		if m := re["dash"].FindStringSubmatch(last); m != nil && code == 2 && filepath.Base(m[1]) == name && m[2] == script {
			return last
		}
		if m := re["zsh"].FindStringSubmatch(last); m != nil && code == 127 && filepath.Base(m[1]) == name && m[2] == script {
			return last
		}
		if m := re["bash"].FindStringSubmatch(last); m != nil && code == 127 && filepath.Base(m[1]) == name && m[2] == script {
			return last
		}
	case name == "node" || name == "nodejs":
		script := scriptArg(argv[1:], nodeValued, "-e", "--eval", "-p", "--print")
		if script != "" && code == 1 && nodeMissing(script, dir) {
			return nodeFailure(lines, script, dir)
		}
	case name == "bun" || name == "deno":
		args := argv[1:]
		if len(args) > 0 && args[0] == "run" {
			args = args[1:]
		}
		script := scriptArg(args, nil, "-e", "--eval")
		if script == "" || code != 1 || !missing(script, dir) {
			return ""
		}
		// Bun may end its report with its version.
		end := len(lines) - 1
		if strings.HasPrefix(lines[end], "Bun v") {
			for end--; end > 0 && strings.TrimSpace(lines[end]) == ""; end-- {
			}
		}
		if end < 0 {
			return ""
		}
		if m := re["module"].FindStringSubmatch(lines[end]); m != nil && samePath(strings.TrimPrefix(m[1], "file://"), script, dir) {
			return lines[end]
		}
	case name == "uv" && len(argv) > 1 && argv[1] == "run":
		return uvFailure(argv[2:], lines, code, dir, path)
	case strings.Contains(argv[0], "/"):
		return shebangFailure(argv[0], last, code, path)
	}
	return ""
}

// nodeMissing is missing for Node's main module, which Node also looks
// for with its extensions: node hook finds hook.js.
func nodeMissing(script, dir string) bool {
	for _, ext := range []string{"", ".js", ".mjs", ".cjs"} {
		if !missing(script+ext, dir) {
			return false
		}
	}
	return true
}

// nodeFailure finds Node's report that it could not find its main module,
// script: "Error: Cannot find module '/abs/script'", then only the lines
// Node prints after it, requireStack: [] among them (a module that a
// started script required has a stack).
func nodeFailure(lines []string, script, dir string) string {
	re := launchPatterns()["node"]
	for i := len(lines) - 1; i >= 0; i-- {
		m := re.FindStringSubmatch(lines[i])
		if m == nil {
			if !nodeReportLine().MatchString(lines[i]) {
				return ""
			}
			continue
		}
		if !samePath(m[1], script, dir) {
			return ""
		}
		for _, l := range lines[i+1:] {
			if strings.TrimSpace(l) == "requireStack: []" {
				return lines[i]
			}
		}
		return ""
	}
	return ""
}

// uvFailure is launchFailure for uv run ARGS: uv could not spawn the
// command it was to run, named by one of args, or uv ran an interpreter
// that could not open its script.
func uvFailure(args []string, lines []string, code int, dir, path string) string {
	// The command uv runs is its first word that is not an option (or an
	// option's value).
	for i := 0; i < len(args); i++ {
		a := args[i]
		if strings.HasPrefix(a, "-") {
			if a == "--" {
				args = args[i+1:]
				break
			}
			if uvValued[a] {
				i++
			}
			continue
		}
		if name := filepath.Base(a); isPython(name) || name == "node" || isShell(name) {
			// uv runs the interpreter, which reports as it would alone.
			return launchFailure(args[i:], lines, code, dir, path)
		}
		break
	}
	if code != 2 {
		return ""
	}
	// "error: Failed to spawn: `x.py`" and its "Caused by" lines, last.
	for i := len(lines) - 1; i >= 0; i-- {
		l := lines[i]
		if strings.HasPrefix(l, " ") || strings.HasPrefix(l, "\t") {
			continue
		}
		m := launchPatterns()["uv"].FindStringSubmatch(l)
		if m == nil {
			return ""
		}
		for _, a := range args {
			if a == m[1] && !strings.HasPrefix(a, "-") {
				// uv runs a file it is given (x.py, ./tool) that is
				// there: it did not fail to spawn it. (A bare name is
				// looked for in the environment, not in dir.)
				if (strings.Contains(a, "/") || strings.HasSuffix(a, ".py")) && !missing(a, dir) {
					return ""
				}
				return l
			}
		}
		return ""
	}
	return ""
}

// shebangFailure is launchFailure for a script run by path whose #!
// interpreter is not there: bash says "bad interpreter" (126), or the
// env(1) of its #! line says it cannot find the program (127).
func shebangFailure(script, last string, code int, path string) string {
	re := launchPatterns()
	if m := re["interpreter"].FindStringSubmatch(last); m != nil && code == 126 && m[2] == script && !executable(m[3]) {
		return last
	}
	if m := re["env"].FindStringSubmatch(last); m != nil && code == 127 {
		if prog := shebangEnvProgram(script); prog != "" && prog == m[1] && !onPath(prog, path) {
			return last
		}
	}
	return ""
}

// interpreter returns the program a script's "#!" line names, or "" if
// path is not a regular file that starts with one.
func interpreter(path string) string {
	line := firstLine(path)
	rest, ok := bytes.CutPrefix(line, []byte("#!"))
	if !ok {
		return ""
	}
	words := strings.Fields(string(rest))
	if len(words) == 0 {
		return ""
	}
	return words[0]
}

// firstLine returns the first line of the file at path, up to 256 bytes,
// or nothing if it cannot be read.
func firstLine(path string) []byte {
	f, err := safeopen.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	buf := make([]byte, 256)
	n, _ := f.Read(buf)
	line, _, _ := bytes.Cut(buf[:n], []byte("\n"))
	return line
}

// shebangEnvProgram returns the program a script's "#!/usr/bin/env PROG"
// line names, or "".
func shebangEnvProgram(path string) string {
	rest, ok := bytes.CutPrefix(firstLine(path), []byte("#!"))
	if !ok {
		return ""
	}
	words := strings.Fields(string(rest))
	if len(words) < 2 || filepath.Base(words[0]) != "env" {
		return ""
	}
	for _, w := range words[1:] {
		if !strings.HasPrefix(w, "-") {
			return w
		}
	}
	return ""
}

// scriptArg returns the script an interpreter runs given args: its first
// argument that is not an option or an option's value (valued lists the
// options that take the next word), or "" if it runs no script file (one
// of noScript, such as -c CODE, or nothing, or - for stdin).
func scriptArg(args []string, valued map[string]bool, noScript ...string) string {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			if i+1 < len(args) && args[i+1] != "-" {
				return args[i+1]
			}
			return ""
		}
		if a == "-" || a == "" {
			return ""
		}
		if !strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "+") {
			return a
		}
		for _, n := range noScript {
			// -c CODE, and -c joined to other one-letter flags (-uc)
			if a == n || strings.HasPrefix(a, n+"=") || (len(n) == 2 && letters(a[1:]) && strings.Contains(a[1:], n[1:])) {
				return ""
			}
		}
		if valued[a] {
			i++
		}
	}
	return ""
}

// letters reports whether s is all ASCII letters: one-letter flags joined.
func letters(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i] | 0x20; c < 'a' || c > 'z' {
			return false
		}
	}
	return s != ""
}

// The options of each interpreter that take the next word as their value.
var (
	pythonValued = map[string]bool{"-W": true, "-X": true, "--check-hash-based-pycs": true}
	shellValued  = map[string]bool{"-o": true, "+o": true, "-O": true, "+O": true}
	nodeValued   = map[string]bool{"-r": true, "--require": true, "--import": true, "--loader": true,
		"--experimental-loader": true, "-C": true, "--conditions": true, "--input-type": true, "--title": true,
		"--env-file": true, "--inspect-port": true}
	uvValued = map[string]bool{"--with": true, "-w": true, "--with-editable": true, "--with-requirements": true,
		"--python": true, "-p": true, "--directory": true, "--project": true, "--package": true, "--extra": true,
		"--group": true, "--only-group": true, "--no-group": true, "--index": true, "--default-index": true,
		"--index-url": true, "-i": true, "--extra-index-url": true, "--find-links": true, "-f": true,
		"--env-file": true, "--config-file": true, "--cache-dir": true, "--color": true, "--refresh-package": true,
		"--reinstall-package": true, "--upgrade-package": true, "-P": true, "--exclude-newer": true,
		"--index-strategy": true, "--keyring-provider": true, "--resolution": true, "--prerelease": true,
		"--link-mode": true, "--python-platform": true, "--config-setting": true, "-C": true}
)

// isPython reports whether name is a Python interpreter's: python,
// python3, python3.11, pypy3.
func isPython(name string) bool {
	for _, p := range []string{"python", "pypy"} {
		if rest, ok := strings.CutPrefix(name, p); ok {
			return strings.Trim(rest, "0123456789.") == ""
		}
	}
	return false
}

// isShell reports whether name (or a path) is a POSIX shell's.
func isShell(name string) bool {
	switch filepath.Base(name) {
	case "sh", "bash", "dash", "zsh", "ksh", "ash":
		return true
	}
	return false
}

// samePath reports whether path, as an interpreter printed it, is script,
// the argument it was given, resolved against dir if it is relative.
func samePath(path, script, dir string) bool {
	if path == script {
		return true
	}
	if !filepath.IsAbs(script) {
		script = filepath.Join(dir, script)
	}
	return filepath.Clean(path) == filepath.Clean(script)
}
