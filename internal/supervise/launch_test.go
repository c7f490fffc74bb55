package supervise

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// nodeReport is what Node prints when its main module is not there.
func nodeReport(path string) string {
	return "node:internal/modules/cjs/loader:1210\n  throw err;\n  ^\n\n" +
		"Error: Cannot find module '" + path + "'\n" +
		"    at Module._resolveFilename (node:internal/modules/cjs/loader:1207:15)\n" +
		"    at node:internal/main/run_main_module:28:49 {\n" +
		"  code: 'MODULE_NOT_FOUND',\n  requireStack: []\n}\n\nNode.js v20.20.2\n"
}

func sh(s string) []string { return []string{"/bin/sh", "-c", s} }

// TestLaunchFailure covers hostile-user-2 M2: a status is reclassified as
// "did not start" only when the command guard ran is certainly what could
// not start, never for a hook that started and then failed or blocked.
func TestLaunchFailure(t *testing.T) {
	dir := t.TempDir()
	envScript := filepath.Join(dir, "hook.py")
	os.WriteFile(envScript, []byte("#!/usr/bin/env python9\nprint('hi')\n"), 0o755)
	pyMissing := func(p string) string {
		return "/usr/bin/python3: can't open file '" + p + "': [Errno 2] No such file or directory"
	}
	const uvCause = "\n  Caused by: No such file or directory (os error 2)\n"
	tests := []struct {
		name string
		argv []string
		exit int
		tail string
		want string // the line; "" for no launch failure
	}{
		// It never started.
		{"python abs", []string{"python3", "/h/lint.py"}, 2, pyMissing("/h/lint.py") + "\n", pyMissing("/h/lint.py")},
		{"python relative", []string{"python3", "lint.py"}, 2, pyMissing("/cwd/lint.py"), pyMissing("/cwd/lint.py")},
		{"python relative dotted", []string{"python3", "./sub/../lint.py"}, 2, pyMissing("/cwd/./sub/../lint.py"), pyMissing("/cwd/./sub/../lint.py")},
		{"old python as given", []string{"python", "lint.py"}, 2, "python: can't open file 'lint.py': [Errno 2] No such file or directory", "python: can't open file 'lint.py': [Errno 2] No such file or directory"},
		{"python3.11 by path", []string{"/usr/bin/python3.11", "x.py"}, 2, "/usr/bin/python3.11: can't open file '/cwd/x.py': [Errno 2] No such file or directory\r\n", "/usr/bin/python3.11: can't open file '/cwd/x.py': [Errno 2] No such file or directory"},
		{"python options", []string{"python3", "-u", "-X", "dev", "-W", "ignore", "x.py", "--flag"}, 2, pyMissing("/cwd/x.py"), pyMissing("/cwd/x.py")},
		{"python permission", []string{"python3", "/h/x.py"}, 2, "python3: can't open file '/h/x.py': [Errno 13] Permission denied", "python3: can't open file '/h/x.py': [Errno 13] Permission denied"},
		{"python after warnings", []string{"python3", "/h/x.py"}, 2, "some warning\n" + pyMissing("/h/x.py") + "\n\n", pyMissing("/h/x.py")},
		{"env python", []string{"env", "PYTHONUNBUFFERED=1", "python3", "/h/x.py"}, 2, pyMissing("/h/x.py"), pyMissing("/h/x.py")},
		// Behind the programs of shell's Runner table, as install reads them.
		{"env -i python", []string{"env", "-i", "PATH=/bin", "python3", "/h/x.py"}, 2, pyMissing("/h/x.py"), pyMissing("/h/x.py")},
		{"-c nice timeout python", sh("nice -n 5 timeout 30 python3 ~/.claude/hooks/x.py"), 2, pyMissing("/home/me/.claude/hooks/x.py"), pyMissing("/home/me/.claude/hooks/x.py")},
		{"setsid flock python", []string{"setsid", "flock", "-w", "5", "/tmp/l", "python3", "/h/x.py"}, 2, pyMissing("/h/x.py"), pyMissing("/h/x.py")},
		{"-c python ~", sh("python3 ~/.claude/hooks/x.py"), 2, pyMissing("/home/me/.claude/hooks/x.py"), pyMissing("/home/me/.claude/hooks/x.py")},
		{"-c python project", sh(`python3 "$CLAUDE_PROJECT_DIR"/.claude/hooks/x.py`), 2, pyMissing("/proj/.claude/hooks/x.py"), pyMissing("/proj/.claude/hooks/x.py")},
		{"-c python braces", sh(`python3 "${CLAUDE_PROJECT_DIR}/.claude/hooks/x.py" --strict`), 2, pyMissing("/proj/.claude/hooks/x.py"), pyMissing("/proj/.claude/hooks/x.py")},
		{"-c exec python", sh("exec python3 x.py"), 2, pyMissing("/cwd/x.py"), pyMissing("/cwd/x.py")},
		{"-c assignment", sh("PYTHONPATH=/lib python3 'my hook.py'"), 2, pyMissing("/cwd/my hook.py"), pyMissing("/cwd/my hook.py")},
		{"uv run", sh("uv run ~/.claude/hooks/x.py"), 2, "error: Failed to spawn: `/home/me/.claude/hooks/x.py`" + uvCause, "error: Failed to spawn: `/home/me/.claude/hooks/x.py`"},
		{"uv run --with", []string{"uv", "run", "--with", "pyyaml", "--frozen", "check.py"}, 2, "Installed 1 package in 3ms\nerror: Failed to spawn: `check.py`" + uvCause, "error: Failed to spawn: `check.py`"},
		{"uv run python", []string{"uv", "run", "--python", "3.12", "python3", "/h/x.py"}, 2, pyMissing("/h/x.py"), pyMissing("/h/x.py")},
		{"node abs", []string{"node", "/p/hook.js"}, 1, nodeReport("/p/hook.js"), "Error: Cannot find module '/p/hook.js'"},
		{"node relative", sh("node --require ./setup.js hook.js"), 1, nodeReport("/cwd/hook.js"), "Error: Cannot find module '/cwd/hook.js'"},
		{"perl", []string{"perl", "-w", "x.pl"}, 2, `Can't open perl script "x.pl": No such file or directory`, `Can't open perl script "x.pl": No such file or directory`},
		{"dash", []string{"sh", "-e", "x.sh"}, 2, "sh: 0: cannot open x.sh: No such file\n", "sh: 0: cannot open x.sh: No such file"},
		{"bash", sh("bash ./x.sh arg"), 127, "bash: ./x.sh: No such file or directory\n", "bash: ./x.sh: No such file or directory"},
		{"zsh", []string{"/bin/zsh", "x.sh"}, 127, "zsh: can't open input file: x.sh", "zsh: can't open input file: x.sh"},
		{"bun", []string{"bun", "run", "hook.ts"}, 1, "error: Module not found \"hook.ts\"\n\nBun v1.1.0 (Linux x64)\n", `error: Module not found "hook.ts"`},
		{"deno", []string{"deno", "run", "hook.ts"}, 1, `error: Module not found "file:///cwd/hook.ts".`, `error: Module not found "file:///cwd/hook.ts".`},
		{"bad interpreter", sh("./hook.sh"), 126, "bash: line 1: ./hook.sh: /usr/bin/nopython: bad interpreter: No such file or directory", "bash: line 1: ./hook.sh: /usr/bin/nopython: bad interpreter: No such file or directory"},
		{"env in #!", []string{envScript}, 127, "/usr/bin/env: 'python9': No such file or directory\n", "/usr/bin/env: 'python9': No such file or directory"},

		// It started: its status stands.
		{"hook ran a missing helper, then blocked", sh("/s/policy.sh"), 2, pyMissing("/nonexistent/validator.py") + "\nBLOCKED: validator unavailable\n", ""},
		{"hook ran a missing helper, silently blocked", sh("/s/policy.sh"), 2, pyMissing("/nonexistent/validator.py"), ""},
		{"python hook passed a helper's error on", []string{"python3", "/h/policy.py"}, 2, pyMissing("/nonexistent/validator.py"), ""},
		{"python printed after it", []string{"python3", "/h/x.py"}, 2, pyMissing("/h/x.py") + "\nblocked: policy\n", ""},
		{"python exit 1", []string{"python3", "/h/x.py"}, 1, pyMissing("/h/x.py"), ""},
		{"python -c", []string{"python3", "-c", "import sys; sys.exit(2)", "/h/x.py"}, 2, pyMissing("/h/x.py"), ""},
		{"python -uc", []string{"python3", "-uc", "pass", "/h/x.py"}, 2, pyMissing("/h/x.py"), ""},
		{"python -m", []string{"python3", "-m", "hook"}, 2, pyMissing("/cwd/hook"), ""},
		{"python stdin", []string{"python3", "-"}, 2, pyMissing("/cwd/-"), ""},
		{"list with exit 2", sh("python3 /v.py || exit 2"), 2, pyMissing("/v.py"), ""},
		{"sequence", sh("python3 /v.py; exit 2"), 2, pyMissing("/v.py"), ""},
		{"pipeline", sh("python3 /v.py | cat"), 2, pyMissing("/v.py"), ""},
		{"redirection", sh("python3 /v.py 2>>log"), 2, pyMissing("/v.py"), ""},
		{"background", sh("python3 /v.py &"), 2, pyMissing("/v.py"), ""},
		{"command substitution", sh("python3 $(echo /v.py)"), 2, pyMissing("/v.py"), ""},
		{"unset variable", sh("python3 $NOPE/v.py"), 2, pyMissing("/v.py"), ""},
		{"glob", sh("python3 /v*.py"), 2, pyMissing("/v*.py"), ""},
		{"not an interpreter", []string{"./policy", "/v.py"}, 2, pyMissing("/v.py"), ""},
		{"node quoted by a blocking hook", []string{"node", "/p/policy.js"}, 2, "Error: Cannot find module '/x/y.js'\n  requireStack: []\n", ""},
		{"node own module, exit 2", []string{"node", "/p/hook.js"}, 2, nodeReport("/p/hook.js"), ""},
		{"node missing dependency", []string{"node", "/p/hook.js"}, 1, "Error: Cannot find module 'lodash'\nRequire stack:\n- /p/hook.js\n  requireStack: [ '/p/hook.js' ]\n}\n", ""},
		{"node printed after it", []string{"node", "/p/hook.js"}, 1, nodeReport("/p/hook.js") + "blocked: no\n", ""},
		{"node other module", []string{"node", "/p/hook.js"}, 1, nodeReport("/p/other.js"), ""},
		{"node -e", []string{"node", "-e", "x", "/p/hook.js"}, 1, nodeReport("/p/hook.js"), ""},
		{"uv helper", []string{"uv", "run", "x.py"}, 2, "error: Failed to spawn: `helper.py`" + uvCause, ""},
		{"uv printed after it", []string{"uv", "run", "x.py"}, 2, "error: Failed to spawn: `x.py`" + uvCause + "blocked\n", ""},
		{"uv exit 1", []string{"uv", "run", "x.py"}, 1, "error: Failed to spawn: `x.py`" + uvCause, ""},
		{"perl other script", []string{"perl", "/h/policy.pl"}, 2, `Can't open perl script "/v.pl": No such file or directory`, ""},
		{"perl -e", []string{"perl", "-we", "exit 2", "x.pl"}, 2, `Can't open perl script "x.pl": No such file or directory`, ""},
		{"dash other script", []string{"sh", "/s/policy.sh"}, 2, "sh: 0: cannot open /v.sh: No such file", ""},
		{"dash inside a script", []string{"sh", "/s/policy.sh"}, 2, "/s/policy.sh: 3: cannot open /s/policy.sh: No such file", ""},
		{"bash exit 2", []string{"bash", "x.sh"}, 2, "bash: x.sh: No such file or directory", ""},
		{"bash -c", []string{"bash", "-c", "exit 127", "x.sh"}, 127, "bash: x.sh: No such file or directory", ""},
		{"bad interpreter of another script", sh("./hook.sh"), 126, "bash: line 1: ./other.sh: /usr/bin/nopython: bad interpreter: No such file or directory", ""},
		{"env, script without that #!", []string{envScript}, 127, "/usr/bin/env: 'node9': No such file or directory", ""},
		{"a block", []string{"python3", "/h/x.py"}, 2, "blocked: rm -rf is not allowed\n", ""},
		{"exit 0", []string{"python3", "/h/x.py"}, 0, pyMissing("/h/x.py"), ""},
		{"nothing on stderr", []string{"python3", "/h/x.py"}, 2, "", ""},
		{"no argv", nil, 2, pyMissing("/h/x.py"), ""},
	}
	env := []string{"HOME=/home/me", "CLAUDE_PROJECT_DIR=/proj", "PATH=/usr/bin:/bin"}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := Result{ExitCode: tc.exit, Tail: []byte(tc.tail), Argv: tc.argv, Env: env, Dir: "/cwd"}
			if got := r.LaunchFailure(); got != tc.want {
				t.Errorf("LaunchFailure of %q (exit %d, stderr %q) = %q; want %q", tc.argv, tc.exit, tc.tail, got, tc.want)
			}
		})
	}

	argv := []string{"python3", "/h/x.py"}
	for name, r := range map[string]Result{
		"killed":      {ExitCode: 137, Signal: syscall.SIGKILL},
		"timed out":   {ExitCode: 124, TimedOut: true},
		"interrupted": {ExitCode: 2, Interrupted: syscall.SIGTERM},
		"not started": {ExitCode: 127, StartErr: errors.New("python3: command not found")},
	} {
		r.Argv, r.Tail = argv, []byte(pyMissing("/h/x.py"))
		if got := r.LaunchFailure(); got != "" {
			t.Errorf("%s: LaunchFailure = %q; want none", name, got)
		}
	}
}

// TestLaunchFailureNamesAScriptThatIsThere covers h13: a launch error
// that names a script that is there (relative to the run's directory), or
// a #! interpreter or env program that is there, was not printed because
// it could not start: the status stands.
func TestLaunchFailureNamesAScriptThatIsThere(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"x.py", "x.pl", "x.sh", "hook.js", "mod.js", "hook.ts", "sub/y.py"} {
		os.MkdirAll(filepath.Join(dir, filepath.Dir(f)), 0o755)
		os.WriteFile(filepath.Join(dir, f), []byte("#!/bin/sh\n"), 0o755)
	}
	envScript := filepath.Join(dir, "env.sh")
	os.WriteFile(envScript, []byte("#!/usr/bin/env sh\necho\n"), 0o755)
	badScript := filepath.Join(dir, "bad.sh")
	os.WriteFile(badScript, []byte("#!/bin/sh\necho\n"), 0o755)
	abs := func(p string) string { return filepath.Join(dir, p) }
	py := func(p string) string {
		return "/usr/bin/python3: can't open file '" + p + "': [Errno 2] No such file or directory"
	}
	const uvCause = "\n  Caused by: No such file or directory (os error 2)\n"
	for _, tc := range []struct {
		name string
		argv []string
		exit int
		tail string
	}{
		{"python, relative", []string{"python3", "x.py"}, 2, py(abs("x.py"))},
		{"python, absolute", []string{"python3", abs("x.py")}, 2, py(abs("x.py"))},
		{"python, in a subdirectory", sh("python3 sub/y.py"), 2, py(abs("sub/y.py"))},
		{"perl", []string{"perl", "x.pl"}, 2, `Can't open perl script "x.pl": No such file or directory`},
		{"dash", []string{"sh", "x.sh"}, 2, "sh: 0: cannot open x.sh: No such file"},
		{"bash", []string{"bash", "x.sh"}, 127, "bash: x.sh: No such file or directory"},
		{"zsh", []string{"zsh", "x.sh"}, 127, "zsh: can't open input file: x.sh"},
		{"node", []string{"node", "hook.js"}, 1, nodeReport(abs("hook.js"))},
		{"node, its extension", []string{"node", "mod"}, 1, nodeReport(abs("mod"))},
		{"bun", []string{"bun", "run", "hook.ts"}, 1, `error: Module not found "hook.ts"`},
		{"uv run", []string{"uv", "run", "x.py"}, 2, "error: Failed to spawn: `x.py`" + uvCause},
		{"bad interpreter that is there", []string{badScript}, 126, "bash: " + badScript + ": /bin/sh: bad interpreter: No such file or directory"},
		{"env program on PATH", []string{envScript}, 127, "/usr/bin/env: 'sh': No such file or directory"},
	} {
		r := Result{ExitCode: tc.exit, Tail: []byte(tc.tail), Argv: tc.argv, Env: []string{"PATH=/usr/bin:/bin"}, Dir: dir}
		if got := r.LaunchFailure(); got != "" {
			t.Errorf("%s: LaunchFailure of %q (exit %d, stderr %q) = %q; want none: the script is there", tc.name, tc.argv, tc.exit, tc.tail, got)
		}
		// The same, with the script gone, is one.
		if tc.name == "python, relative" {
			os.Rename(abs("x.py"), abs("x.py.gone"))
			if got := r.LaunchFailure(); got == "" {
				t.Errorf("%s, the script gone: no launch failure", tc.name)
			}
			os.Rename(abs("x.py.gone"), abs("x.py"))
		}
	}
}
