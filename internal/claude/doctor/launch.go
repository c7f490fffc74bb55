package doctor

import (
	"bufio"
	"bytes"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"guard/internal/claude"
	"guard/internal/safeopen"
	"guard/internal/shell/sh"
)

// A problem keeps a hook from starting what it runs; exits2 names the
// program that then exits 2 (python, uv), which Claude Code takes for a
// block, or is "".
type problem struct {
	msg    string
	exits2 string
}

// interpreters take a script as their first argument that is not an
// option (after run, for uv, bun and deno).
var interpreters = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(python[0-9.]*|pypy[0-9.]*|node|bun|deno|bash|sh|zsh|dash|ruby|perl|php|uv|tsx|ts-node)$`)
})

// pyLaunchers are the programs that start a Python script (the wrapper),
// with or without run.
var pyLaunchers = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(uv|uvx|pipx|poetry|pdm|hatch|rye|pixi|conda|mamba|micromamba|python[0-9.]*|pypy[0-9.]*)$`)
})

// exits2 are the interpreters that exit 2 for a script they cannot open.
var exitsTwo = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(python[0-9.]*|pypy[0-9.]*|uv)$`) })

// scriptExt matches a script's file name.
var scriptExt = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\.(py|js|mjs|cjs|ts|sh|bash|rb|pl|php)$`) })

// builtins are shell words that are no file to look for.
var builtins = map[string]bool{"cd": true, "echo": true, "test": true, "[": true, "true": true, "false": true, "exit": true,
	"export": true, "source": true, ".": true, "exec": true, "set": true, "printf": true, "read": true, ":": true, "eval": true}

// launchProblems says what keeps the first program of the shell line cmd
// from starting: the program, its script or the script's #! interpreter
// not being there.
func (env Env) launchProblems(cmd string) []problem {
	cs, err := sh.Commands(cmd)
	if err != nil || len(cs) == 0 {
		return nil
	}
	prog := cs[0].Program()
	if len(prog) == 0 || builtins[prog[0]] {
		return nil
	}
	return env.argvProblems(prog, env.expand)
}

// argvProblems says what keeps argv, its words read with expand, from
// starting.
func (env Env) argvProblems(argv []string, expand func(string) (string, bool)) []problem {
	if len(argv) == 0 {
		return nil
	}
	name, ok := expand(argv[0])
	if !ok || builtins[name] {
		return nil
	}
	if msg := env.executable(name); msg != "" {
		return []problem{{msg: fmt.Sprintf("runs %s, which %s", argv[0], msg)}}
	}
	if strings.Contains(name, "/") {
		if msg := env.shebang(name); msg != "" {
			return []problem{{msg: msg}}
		}
		return nil
	}
	if a, script, ok := env.script(argv, expand); ok {
		fi, err := env.Stat(env.abs(script))
		if err != nil {
			p := problem{msg: fmt.Sprintf("runs the script %s, which does not exist (%s)", a, env.abs(script))}
			if exitsTwo().MatchString(filepath.Base(name)) {
				p.exits2 = filepath.Base(name)
			}
			return []problem{p}
		}
		if !fi.Mode().IsRegular() && !fi.IsDir() {
			return []problem{{msg: fmt.Sprintf("runs the script %s, which is %s, not a regular file (%s)", a, safeopen.Kind(fi.Mode()), env.abs(script))}}
		}
	}
	return nil
}

// script returns the script an interpreter in argv[0] runs: the word as
// written, and read with expand.
func (env Env) script(argv []string, expand func(string) (string, bool)) (word, path string, ok bool) {
	base := filepath.Base(argv[0])
	if !interpreters().MatchString(base) {
		return "", "", false
	}
	args := argv[1:]
	if (base == "uv" || base == "bun" || base == "deno") && len(args) > 0 && args[0] == "run" {
		args = args[1:]
	}
	for _, a := range args {
		if a == "-c" || a == "-m" || a == "-e" || a == "--eval" {
			return "", "", false // code, not a script
		}
		if strings.HasPrefix(a, "-") {
			continue
		}
		script, ok := expand(a)
		if !ok || !looksLikeScript(script) {
			return "", "", false
		}
		return a, script, true
	}
	return "", "", false
}

// scripts returns the files a hook runs, as paths on this machine: the
// program when it is a path, and the script its interpreter runs.
func (env Env) scripts(h claude.Hook) []string {
	var argv []string
	expand := env.expand
	switch {
	case h.Guard != "" && h.InnerArgv != nil:
		argv, expand = h.InnerArgv, env.expandExec
	case h.Guard != "":
		argv = firstProgram(h.Inner)
	case h.Exec:
		argv, expand = append([]string{h.Command}, h.Args...), env.expandExec
	case h.Python != "":
		argv = firstProgram(h.Python)
	default:
		argv = firstProgram(h.Command)
	}
	if len(argv) == 0 {
		return nil
	}
	var out []string
	if name, ok := expand(argv[0]); ok && strings.Contains(name, "/") {
		out = append(out, env.abs(name))
	}
	if _, script, ok := env.script(argv, expand); ok {
		out = append(out, env.abs(script))
	}
	return out
}

// firstProgram returns the words of the first program a shell line runs.
func firstProgram(cmd string) []string {
	cs, err := sh.Commands(cmd)
	if err != nil || len(cs) == 0 {
		return nil
	}
	return cs[0].Program()
}

// pythonWrapper says what is wrong with the Python wrapper script a
// hook's command runs: that it is not there, say.
func (env Env) pythonWrapper(h claude.Hook) []Finding {
	cs, err := sh.Commands(h.Command)
	if err != nil {
		return nil
	}
	for _, c := range cs {
		words := c.Program()
		for i, w := range words {
			if filepath.Base(strings.Trim(w, `"'`)) != claude.PythonWrapper {
				continue
			}
			if i > 0 && !pyLaunchers().MatchString(filepath.Base(words[0])) {
				return nil // an argument of another program: echo circuit_breaker_wrapper.py
			}
			path, ok := env.expand(w)
			if !ok {
				return nil
			}
			if _, err := env.Stat(env.abs(path)); err != nil {
				launcher := "python"
				if len(words) > 0 && filepath.Base(words[0]) == "uv" {
					launcher = "uv"
				}
				problem := fmt.Sprintf("runs the Python wrapper %s, which does not exist (%s): the hook fails on every call, with exit 2 from %s", w, env.abs(path), launcher)
				if blocks(h) {
					problem += ", which Claude Code takes for a block"
				}
				return []Finding{{Problem: problem,
					Fix: "guard install moves the hook to guard (it needs no wrapper script); or fix the path"}}
			}
			return nil
		}
	}
	return nil
}

// looksLikeScript reports whether a word names a file: it has a path or
// a script's extension.
func looksLikeScript(s string) bool {
	return strings.Contains(s, "/") || scriptExt().MatchString(s)
}

// abs makes a path relative to the project, where Claude Code runs hooks,
// absolute.
func (env Env) abs(path string) string {
	if filepath.IsAbs(path) || env.ProjectDir == "" {
		return path
	}
	return filepath.Join(env.ProjectDir, path)
}

// executable says what is wrong with the program at name ("" if nothing):
// a path must be an executable file, a bare name must be on the PATH hooks
// get.
func (env Env) executable(name string) string {
	if !strings.Contains(name, "/") {
		if _, ok := env.lookPath(name); !ok {
			if env.PathFrom != "" {
				return "is not on the PATH that " + env.PathFrom + " gives hooks (env.PATH: " + env.Path + ")"
			}
			return "is not on PATH"
		}
		return ""
	}
	fi, err := env.Stat(env.abs(name))
	switch {
	case err != nil:
		return "does not exist"
	case fi.IsDir():
		return "is a directory"
	case !fi.Mode().IsRegular():
		return "is " + safeopen.Kind(fi.Mode()) + ", not a regular file"
	case fi.Mode()&0o111 == 0:
		return "is not executable (chmod +x)"
	}
	return ""
}

// LookPath finds an executable file named name in the directories of the
// PATH hooks get, as exec.LookPath does.
func (env Env) LookPath(name string) (string, bool) { return env.lookPath(name) }

func (env Env) lookPath(name string) (string, bool) {
	for _, dir := range filepath.SplitList(env.Path) {
		if dir == "" {
			dir = "."
		}
		p := env.abs(filepath.Join(dir, name))
		if fi, err := env.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return p, true
		}
	}
	return "", false
}

// shebang says what is wrong with the #! line of the script at path.
func (env Env) shebang(path string) string {
	data, err := env.ReadFile(env.abs(path))
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
				if _, ok := env.lookPath(w); !ok {
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
// use: ~, $HOME and $CLAUDE_PROJECT_DIR (in any quoting), and for a
// plugin's hook $CLAUDE_PLUGIN_ROOT and $CLAUDE_PLUGIN_DATA (which Claude
// Code exports to it). It reports false for a word with any other
// expansion in it: there is nothing to check.
func (env Env) expand(w string) (string, bool) {
	if len(w) >= 2 && w[0] == '"' && w[len(w)-1] == '"' {
		w = w[1 : len(w)-1]
	}
	if w == "~" || strings.HasPrefix(w, "~/") {
		w = env.Home + w[1:]
	}
	for _, v := range env.vars() {
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

// vars are the variables expand knows, longest names first.
func (env Env) vars() []struct{ name, value string } {
	vs := []struct{ name, value string }{{"CLAUDE_PROJECT_DIR", env.ProjectDir}, {"HOME", env.Home}}
	if env.PluginRoot != "" {
		vs = append([]struct{ name, value string }{{"CLAUDE_PLUGIN_ROOT", env.PluginRoot}, {"CLAUDE_PLUGIN_DATA", env.PluginData}}, vs...)
	}
	return vs
}

// expandExec reads a word of an exec-form hook as Claude Code does: with
// no shell, only its placeholders ${CLAUDE_PROJECT_DIR}, and for a
// plugin's hook ${CLAUDE_PLUGIN_ROOT} and ${CLAUDE_PLUGIN_DATA}, replaced.
// It reports false for a word guard cannot read so.
func (env Env) expandExec(w string) (string, bool) {
	for _, v := range env.vars() {
		if v.name == "HOME" || !strings.Contains(w, "${"+v.name+"}") {
			continue
		}
		if v.value == "" {
			return "", false
		}
		w = strings.ReplaceAll(w, "${"+v.name+"}", v.value)
	}
	if strings.ContainsAny(w, "$~") {
		return "", false
	}
	return w, true
}
