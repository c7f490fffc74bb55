// Package doctor checks a Claude Code setup that guard is part of: the
// settings files Claude Code reads and each of their command hooks (the
// guard it calls, the script and interpreter it runs, a second wrapper, a
// timeout in the wrong unit). Each problem comes with what to do about it.
// guard doctor (package cli) adds the checks of guard's own config, state,
// circuits and budgets.
package doctor

import (
	"bufio"
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"

	"guard/internal/claude"
	"guard/internal/shell"
)

// A Finding is one problem, where it is, and what to do about it.
type Finding struct {
	Where   string `json:"where"`
	Problem string `json:"problem"`
	Fix     string `json:"fix"`
}

// A Checked is one thing that was checked, with what was found.
type Checked struct {
	What   string `json:"what"`
	Detail string `json:"detail"`
}

// Env is what the checks read from the machine.
type Env struct {
	Home       string // ~
	ProjectDir string // $CLAUDE_PROJECT_DIR of the hooks, for their paths
	LookPath   func(string) (string, error)
	Stat       func(string) (fs.FileInfo, error)
	ReadFile   func(string) ([]byte, error)
}

// SettingsFiles are the settings files Claude Code reads, user's first:
// ~/.claude/settings.json, then the project's .claude/settings.json and
// .claude/settings.local.json.
func SettingsFiles(home, projectDir string) []string {
	var out []string
	if home != "" {
		out = append(out, filepath.Join(home, ".claude", "settings.json"))
	}
	if projectDir != "" {
		out = append(out, filepath.Join(projectDir, ".claude", "settings.json"), filepath.Join(projectDir, ".claude", "settings.local.json"))
	}
	return out
}

// Settings checks one settings file's hooks, and says what it found.
func Settings(path string, env Env) (Checked, []Finding) {
	c := Checked{What: "settings " + path}
	doc, err := env.ReadFile(path)
	if err != nil {
		if os.IsNotExist(err) {
			c.Detail = "not there"
			return c, nil
		}
		return c, []Finding{{Where: path, Problem: "cannot be read: " + err.Error(), Fix: "check its permissions: Claude Code cannot read it either"}}
	}
	hooks, err := claude.List(doc)
	if err != nil {
		return c, []Finding{{Where: path, Problem: "is not valid settings JSON: " + err.Error(), Fix: "fix the JSON (Claude Code ignores a settings file it cannot parse, hooks and all)"}}
	}
	var findings []Finding
	guarded := 0
	for _, h := range hooks {
		if h.Guard != "" {
			guarded++
		}
		place := path + ", " + h.Event
		if h.Matcher != "" {
			place += "[" + h.Matcher + "]"
		}
		for _, f := range Hook(h, env) {
			f.Where = place
			findings = append(findings, f)
		}
	}
	c.Detail = fmt.Sprintf("%d command hooks, %d behind guard", len(hooks), guarded)
	return c, findings
}

// Hook checks one hook.
func Hook(h claude.Hook, env Env) []Finding {
	var out []Finding
	add := func(problem, fix string) { out = append(out, Finding{Problem: problem, Fix: fix}) }
	cmd := h.Command
	if cmd == "" {
		cmd = strings.Join(h.Args, " ")
	}
	run := cmd // what the hook runs in the end
	switch {
	case h.Guard != "":
		run = h.Inner
		if msg := env.executable(h.Guard, true); msg != "" {
			add(fmt.Sprintf("calls guard at %s, which %s", h.Guard, msg),
				"install guard there (make install), or run guard install again to point the hooks at the guard you have")
		}
		if claude.RunsGuard(h.Inner) {
			add("runs behind guard twice", "edit it to one guard run -c '...' around the hook's own command")
		}
		if strings.Contains(h.Inner, claude.PythonWrapper) {
			add("runs behind both guard and the Python wrapper ("+claude.PythonWrapper+"): two breakers count its failures",
				"make the hook the wrapped command alone, then run guard install")
		}
	case h.Python != "":
		run = h.Python
		add("runs behind the Python wrapper ("+claude.PythonWrapper+")",
			"guard install moves it to guard, with its state (guard uninstall gives it back)")
	}
	if run != "" {
		for _, problem := range env.launchProblems(run) {
			add(problem, "fix the path, or install what is missing: until then the hook fails on every call (a Python one exits 2, which Claude Code takes for a block)")
		}
	}
	if h.HasTimeout && h.Timeout >= 1000 {
		d := time.Duration(h.Timeout * float64(time.Second))
		add(fmt.Sprintf("has timeout %v, which Claude Code reads as seconds: %s", h.Timeout, d),
			fmt.Sprintf("if you meant milliseconds, write %v", max(1, h.Timeout/1000)))
	}
	return out
}

// interpreters take a script as their first argument that is not an
// option (after run, for uv, bun and deno).
var interpreters = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(python[0-9.]*|pypy[0-9.]*|node|bun|deno|bash|sh|zsh|dash|ruby|perl|php|uv|tsx|ts-node)$`)
})

// scriptExt matches a script's file name.
var scriptExt = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\.(py|js|mjs|cjs|ts|sh|bash|rb|pl|php)$`) })

// builtins are shell words that are no file to look for.
var builtins = map[string]bool{"cd": true, "echo": true, "test": true, "[": true, "true": true, "false": true, "exit": true,
	"export": true, "source": true, ".": true, "exec": true, "set": true, "printf": true, "read": true, ":": true, "eval": true}

// launchProblems says what keeps the first program of cmd from starting:
// the program, its script or the script's #! interpreter not being there.
func (env Env) launchProblems(cmd string) []string {
	cs, err := shell.Parse(cmd)
	if err != nil || len(cs) == 0 {
		return nil
	}
	prog := cs[0].Program()
	if len(prog) == 0 {
		return nil
	}
	name, ok := env.expand(prog[0])
	if !ok || builtins[name] {
		return nil
	}
	if msg := env.executable(name, false); msg != "" {
		return []string{fmt.Sprintf("runs %s, which %s", prog[0], msg)}
	}
	if strings.Contains(name, "/") {
		if msg := env.shebang(name); msg != "" {
			return []string{msg}
		}
		return nil
	}
	base := filepath.Base(name)
	if !interpreters().MatchString(base) {
		return nil
	}
	args := prog[1:]
	if (base == "uv" || base == "bun" || base == "deno") && len(args) > 0 && args[0] == "run" {
		args = args[1:]
	}
	for _, a := range args {
		if a == "-c" || a == "-m" || a == "-e" || a == "--eval" {
			return nil // code, not a script
		}
		if strings.HasPrefix(a, "-") {
			continue
		}
		script, ok := env.expand(a)
		if !ok || !looksLikeScript(script) {
			return nil
		}
		if _, err := env.Stat(script); err != nil {
			return []string{fmt.Sprintf("runs the script %s, which does not exist (%s)", a, script)}
		}
		return nil
	}
	return nil
}

// looksLikeScript reports whether a word names a file: it has a path or
// a script's extension.
func looksLikeScript(s string) bool {
	return strings.Contains(s, "/") || scriptExt().MatchString(s)
}

// executable says what is wrong with the program at name ("" if nothing):
// a path must be an executable file, a bare name must be on PATH.
func (env Env) executable(name string, expand bool) string {
	if expand {
		var ok bool
		if name, ok = env.expand(name); !ok {
			return ""
		}
	}
	if !strings.Contains(name, "/") {
		if _, err := env.LookPath(name); err != nil {
			return "is not on PATH"
		}
		return ""
	}
	fi, err := env.Stat(name)
	switch {
	case err != nil:
		return "does not exist"
	case fi.IsDir():
		return "is a directory"
	case fi.Mode()&0o111 == 0:
		return "is not executable (chmod +x)"
	}
	return ""
}

// shebang says what is wrong with the #! line of the script at path.
func (env Env) shebang(path string) string {
	data, err := env.ReadFile(path)
	if err != nil || !bytes.HasPrefix(data, []byte("#!")) {
		return ""
	}
	line, _ := bufio.NewReader(bytes.NewReader(data[2:])).ReadString('\n')
	words := strings.Fields(line)
	if len(words) == 0 {
		return ""
	}
	interp := words[0]
	if filepath.Base(interp) == "env" {
		for _, w := range words[1:] {
			if !strings.HasPrefix(w, "-") && !strings.Contains(w, "=") {
				if _, err := env.LookPath(w); err != nil {
					return fmt.Sprintf("runs %s, whose #! interpreter %s is not on PATH", path, w)
				}
				return ""
			}
		}
		return ""
	}
	if _, err := env.Stat(interp); err != nil {
		return fmt.Sprintf("runs %s, whose #! interpreter %s does not exist", path, interp)
	}
	return ""
}

// expand reads a word as the shell would for the variables a hook's paths
// use: ~, $HOME and $CLAUDE_PROJECT_DIR (in any quoting). It reports false
// for a word with any other expansion in it: there is nothing to check.
func (env Env) expand(w string) (string, bool) {
	if len(w) >= 2 && w[0] == '"' && w[len(w)-1] == '"' {
		w = w[1 : len(w)-1]
	}
	if w == "~" || strings.HasPrefix(w, "~/") {
		w = env.Home + w[1:]
	}
	for _, v := range []struct{ name, value string }{{"HOME", env.Home}, {"CLAUDE_PROJECT_DIR", env.ProjectDir}} {
		if strings.Contains(w, v.name) && v.value == "" {
			return "", false
		}
		w = strings.ReplaceAll(w, "${"+v.name+"}", v.value)
		w = strings.ReplaceAll(w, "$"+v.name, v.value)
	}
	w = strings.ReplaceAll(w, `"`, "")
	if strings.ContainsAny(w, "$`*?[") {
		return "", false
	}
	return w, true
}
