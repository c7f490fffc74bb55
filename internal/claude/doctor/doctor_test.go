package doctor

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"guard/internal/claude"
)

// env returns an Env over the real files of dir, the project.
func testEnv(t *testing.T, dir string) Env {
	t.Helper()
	return Env{Home: filepath.Join(dir, "home"), ProjectDir: dir, Path: filepath.Join(dir, "bin"),
		Stat: os.Stat, ReadFile: os.ReadFile}
}

func write(t *testing.T, path, text string, mode fs.FileMode) {
	t.Helper()
	os.MkdirAll(filepath.Dir(path), 0o755)
	if err := os.WriteFile(path, []byte(text), mode); err != nil {
		t.Fatal(err)
	}
}

// TestPolicy: install warns about hooks that look like policies, by their
// command or the script they run, on events where a block stops something.
func TestPolicy(t *testing.T) {
	dir := t.TempDir()
	env := testEnv(t, dir)
	write(t, filepath.Join(dir, ".claude/hooks/deny.py"), "import json, sys\nprint(json.dumps({'hookSpecificOutput': {'permissionDecision': 'deny'}}))\n", 0o644)
	write(t, filepath.Join(dir, ".claude/hooks/stop.js"), "console.log(JSON.stringify({decision: 'block', reason: 'tests fail'}))\n", 0o644)
	write(t, filepath.Join(dir, ".claude/hooks/guard.sh"), "#!/bin/sh\necho 'rm -rf blocked' >&2\nexit 2\n", 0o755)
	write(t, filepath.Join(dir, ".claude/hooks/fmt.sh"), "#!/bin/sh\nprettier --write . || exit 1\nexit 0\n", 0o755)
	write(t, filepath.Join(dir, ".claude/hooks/perm.sh"), "#!/bin/sh\necho '{\"behavior\": \"deny\"}'\n", 0o755)
	// A deny hook that works its decision out first and writes it far from
	// the word deny, as karanb192/claude-code-hooks'
	// block-dangerous-commands.js does.
	write(t, filepath.Join(dir, ".claude/hooks/dangerous.js"), "#!/usr/bin/env node\n"+
		"const RULES = [/\\brm\\s+-rf\\s+\\//, /\\bmkfs\\b/];\n"+
		"function check(cmd) { return RULES.some((r) => r.test(cmd)); }\n"+
		"let input = '';\nprocess.stdin.on('data', (c) => { input += c; });\n"+
		"process.stdin.on('end', () => {\n  const cmd = JSON.parse(input).tool_input.command;\n"+
		"  if (!check(cmd)) { console.log('{}'); return; }\n"+
		"  const ask = process.env.ASK === 'true';\n  const verdict = ask ? 'ask' : 'deny';\n"+
		"  // logged, explained and then written out, well after the verdict above was made\n"+
		"  const reason = 'a command that destroys data: ' + cmd + '; ask a human to run it if it is meant';\n"+
		"  console.log(JSON.stringify({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: verdict, permissionDecisionReason: reason } }));\n"+
		"});\n", 0o755)
	write(t, filepath.Join(dir, ".claude/hooks/stopper.py"), "import json\nresult = 'block' if open('TODO').read() else None\n"+
		"# a long way further down\n"+strings.Repeat("# ...\n", 50)+"print(json.dumps({'decision': result, 'reason': 'TODO is not empty'}))\n", 0o644)
	write(t, filepath.Join(dir, ".claude/hooks/layout.js"), "// formats a block of text; the decision is the user's\nconsole.log('block quote')\n", 0o644)
	for _, c := range []struct {
		hook claude.Hook
		want string
	}{
		{claude.Hook{Event: "PreToolUse", Command: "python3 .claude/hooks/deny.py"}, `deny.py answers "permissionDecision": "deny"`},
		{claude.Hook{Event: "Stop", Command: "node", Args: []string{"${CLAUDE_PROJECT_DIR}/.claude/hooks/stop.js"}, Exec: true}, `stop.js answers "decision": "block"`},
		{claude.Hook{Event: "UserPromptSubmit", Command: `"$CLAUDE_PROJECT_DIR"/.claude/hooks/guard.sh`}, "guard.sh exits 2"},
		{claude.Hook{Event: "PermissionRequest", Command: ".claude/hooks/perm.sh"}, `answers "behavior": "deny"`},
		{claude.Hook{Event: "PreToolUse", Command: "grep -q 'rm -rf' && exit 2 || exit 0"}, "its command exits 2"},
		{claude.Hook{Event: "PreToolUse", Command: ".claude/hooks/fmt.sh"}, ""},
		{claude.Hook{Event: "PostToolUse", Command: ".claude/hooks/guard.sh"}, ""}, // a block after the fact stops nothing
		{claude.Hook{Event: "PreToolUse", Command: "exit 20"}, ""},
		{claude.Hook{Event: "PreToolUse", Command: "node .claude/hooks/dangerous.js"}, `dangerous.js answers "permissionDecision": "deny"`},
		{claude.Hook{Event: "Stop", Command: "python3 .claude/hooks/stopper.py"}, `stopper.py answers "decision": "block"`},
		{claude.Hook{Event: "Stop", Command: "node .claude/hooks/layout.js"}, ""},
	} {
		got := env.Policy(c.hook)
		if c.want == "" && got != "" || c.want != "" && !strings.Contains(got, c.want) {
			t.Errorf("Policy(%s %q) = %q; want %q", c.hook.Event, c.hook.Command, got, c.want)
		}
	}
}

// TestLaunchProblems covers D1, D6 and D7: exec-form programs and the
// scripts in their args are checked, relative paths are the project's,
// programs are looked up on the PATH the settings give hooks, and the
// exit-2 hint is only for the programs that exit 2.
func TestLaunchProblems(t *testing.T) {
	dir := t.TempDir()
	env := testEnv(t, dir)
	write(t, filepath.Join(dir, "bin/node"), "", 0o755)
	write(t, filepath.Join(dir, "bin/python3"), "", 0o755)
	write(t, filepath.Join(dir, "app.js"), "", 0o644)
	for _, c := range []struct {
		hook       claude.Hook
		want, hint string
	}{
		{claude.Hook{Command: "node", Args: []string{"app.js"}, Exec: true}, "", ""},
		{claude.Hook{Command: "node", Args: []string{"${CLAUDE_PROJECT_DIR}/gone.js"}, Exec: true}, "runs the script ${CLAUDE_PROJECT_DIR}/gone.js, which does not exist", ""},
		{claude.Hook{Event: "PreToolUse", Command: "python3", Args: []string{"gone.py"}, Exec: true}, "gone.py, which does not exist", "python3 exits 2"},
		// Exit 2 blocks nothing after the tool ran, nor behind guard, which
		// exits 1 for a script that never started (h12).
		{claude.Hook{Event: "PostToolUse", Command: "python3", Args: []string{"gone.py"}, Exec: true}, "gone.py, which does not exist", ""},
		{claude.Hook{Event: "PreToolUse", Command: "python3 gone.py"}, "gone.py, which does not exist", "python3 exits 2"},
		{claude.Hook{Event: "PreToolUse", Guard: "guard", Inner: "python3 gone.py"}, "gone.py, which does not exist", ""},
		{claude.Hook{Command: "uv", Args: []string{"run", "x.py"}, Exec: true}, "runs uv, which is not on the PATH that s.json gives hooks", ""},
		{claude.Hook{Command: "./app.js", Args: []string{}, Exec: true}, "is not executable", ""},
		{claude.Hook{Command: "node", Args: []string{"~/x.js"}, Exec: true}, "", ""}, // no shell: guard cannot tell
		{claude.Hook{Command: "node app.js"}, "", ""},
		{claude.Hook{Guard: "guard", Command: "guard", Args: []string{"run", "--", "node", "gone.js"}, InnerArgv: []string{"node", "gone.js"}, Exec: true}, "gone.js, which does not exist", ""},
	} {
		env.PathFrom = "s.json"
		var got []string
		for _, f := range Hook(c.hook, env) {
			got = append(got, f.Problem+" | "+f.Fix)
		}
		text := strings.Join(got, "\n")
		switch {
		case c.want == "" && text != "":
			t.Errorf("Hook(%+v) = %s; want no problem", c.hook, text)
		case c.want != "" && !strings.Contains(text, c.want):
			t.Errorf("Hook(%+v) = %s; want %q", c.hook, text, c.want)
		case c.want != "" && c.hint == "" && strings.Contains(text, "exits 2"):
			t.Errorf("Hook(%+v) = %s; want no exit-2 hint", c.hook, text)
		case c.hint != "" && !strings.Contains(text, c.hint):
			t.Errorf("Hook(%+v) = %s; want the hint %q", c.hook, text, c.hint)
		}
	}
}

// TestOtherShells (h12): a hook another shell runs is not read as sh
// would; that shell must be there.
func TestOtherShells(t *testing.T) {
	dir := t.TempDir()
	env := testEnv(t, dir)
	ps := claude.Hook{Event: "PreToolUse", Command: "Write-Host hi", Shell: "powershell"}
	got := Hook(ps, env)
	if len(got) != 1 || !strings.Contains(got[0].Problem, `runs in PowerShell ("shell": "powershell"), and neither pwsh nor powershell is on PATH`) {
		t.Errorf("powershell hook with no pwsh: %+v", got)
	}
	write(t, filepath.Join(dir, "bin/pwsh"), "", 0o755)
	if got := Hook(ps, env); len(got) != 0 {
		t.Errorf("powershell hook with pwsh: %+v; want no problem (Write-Host is PowerShell's)", got)
	}
	if got := Hook(claude.Hook{Event: "Stop", Command: "Write-Host hi", Shell: "fish"}, env); len(got) != 0 {
		t.Errorf("fish hook: %+v; want none here (Validate reports the shell)", got)
	}
}

// TestDifferingCountsDistinctHandlers (h12): Claude Code merges identical
// copies, so a hook bare in two files and wrapped in a third runs twice.
func TestDifferingCountsDistinctHandlers(t *testing.T) {
	bare := claude.Hook{Event: "Stop", Command: "./lint.sh"}
	wrapped := claude.Hook{Event: "Stop", Command: "guard run --shell bash -c './lint.sh'", Guard: "guard", Inner: "./lint.sh"}
	g := []claude.Copy{{File: "user", Hook: wrapped}, {File: "project", Hook: bare}, {File: "local", Hook: bare}}
	f := Differing(g, "")
	if !strings.Contains(f.Problem, "is in 3 settings files") || !strings.Contains(f.Problem, "runs 2 times per event") {
		t.Errorf("Differing = %s", f.Problem)
	}
}

// TestCheckUsesSettingsPath: the PATH of the last settings file that sets
// env.PATH is the one every hook gets.
func TestCheckUsesSettingsPath(t *testing.T) {
	dir := t.TempDir()
	env := testEnv(t, dir)
	env.Path = "/usr/bin:/bin"
	user := filepath.Join(dir, "home/.claude/settings.json")
	local := filepath.Join(dir, ".claude/settings.local.json")
	write(t, user, `{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"sh -c true"}]}]}}`, 0o644)
	write(t, local, "\xef\xbb\xbf"+`{"env":{"PATH":"/opt/homebrew/bin:/usr/local/bin"}}`, 0o644)
	_, fs := Check([]string{user, local}, env)
	if len(fs) != 1 || !strings.Contains(fs[0].Problem, "runs sh, which is not on the PATH that "+local+" gives hooks") {
		t.Errorf("Check = %+v; want sh not on the local settings' PATH", fs)
	}
}

// TestOtherPythonLaunchers: a hook that starts the Python wrapper with a
// launcher install does not take apart is reported as behind the wrapper,
// not behind both (install leaves it alone), with its wrapper's script
// checked; a hook that merely names the script is not checked for it.
func TestOtherPythonLaunchers(t *testing.T) {
	dir := t.TempDir()
	env := testEnv(t, dir)
	write(t, filepath.Join(dir, "bin/poetry"), "", 0o755)
	write(t, filepath.Join(dir, "bin/echo"), "", 0o755)
	doc := `{"hooks":{"Stop":[{"hooks":[
		{"type":"command","command":"poetry run python ~/.claude/hooks/circuit_breaker_wrapper.py -- cmd"},
		{"type":"command","command":"echo circuit_breaker_wrapper.py"}]}]}}`
	hs, err := claude.List([]byte(doc))
	if err != nil || len(hs) != 2 {
		t.Fatalf("List = %+v, %v", hs, err)
	}
	var got []string
	for _, f := range Hook(hs[0], env) {
		got = append(got, f.Problem)
	}
	text := strings.Join(got, "\n")
	if !strings.Contains(text, "runs behind the Python wrapper (circuit_breaker_wrapper.py), in a form guard install cannot move exactly: it starts with poetry") ||
		!strings.Contains(text, "runs the Python wrapper ~/.claude/hooks/circuit_breaker_wrapper.py, which does not exist") || strings.Contains(text, "both") {
		t.Errorf("poetry hook: %s", text)
	}
	for _, f := range Hook(hs[1], env) {
		if strings.Contains(f.Problem, "does not exist") {
			t.Errorf("echo hook: %s", f.Problem)
		}
	}
}

// TestGuardInsideShellString (h12): guard called inside bash -c's string,
// behind guard, runs behind guard twice.
func TestGuardInsideShellString(t *testing.T) {
	env := testEnv(t, t.TempDir())
	var got []string
	for _, f := range Hook(claude.Hook{Event: "Stop", Guard: "guard", Inner: `bash -c "guard run -c ./lint.sh"`}, env) {
		got = append(got, f.Problem)
	}
	if !strings.Contains(strings.Join(got, "\n"), "runs behind guard twice") {
		t.Errorf("Hook = %q; want it behind guard twice", got)
	}
}

// TestGuardBehindGuardExecForm (h21 N3): an exec-form hook behind guard
// whose own program calls guard, through a shell's -c script or behind
// env, runs behind guard twice, as the shell form does; one that only
// mentions guard does not.
func TestGuardBehindGuardExecForm(t *testing.T) {
	env := testEnv(t, t.TempDir())
	for _, tc := range []struct {
		argv  []string
		twice bool
	}{
		{[]string{"bash", "-c", "guard run -c x9"}, true},
		{[]string{"/usr/bin/env", "bash", "-c", "cd /srv && guard-pg run -- ./lint.sh"}, true},
		{[]string{"env", "A=1", "guard", "run", "--", "x"}, true},
		{[]string{"guard", "run", "-c", "x"}, true},
		{[]string{"echo", "guard", "run"}, false},
		{[]string{"bash", "-c", "echo guard run"}, false},
	} {
		h := claude.Hook{Event: "Stop", Exec: true, Command: "guard", Args: append([]string{"run", "--"}, tc.argv...), Guard: "guard", InnerArgv: tc.argv}
		var got []string
		for _, f := range Hook(h, env) {
			got = append(got, f.Problem)
		}
		if twice := strings.Contains(strings.Join(got, "\n"), "runs behind guard twice"); twice != tc.twice {
			t.Errorf("Hook(guard run -- %q) = %q; want behind guard twice: %v", tc.argv, got, tc.twice)
		}
	}
}

// TestDifferingSaysWhichCopiesAgree (real-hooks re-run): copies behind
// guard in three files, two of them alike, are told apart by file.
func TestDifferingSaysWhichCopiesAgree(t *testing.T) {
	a := claude.Hook{Event: "Stop", Command: "guard run --shell bash -c './lint.sh'", Guard: "guard", Inner: "./lint.sh"}
	b := claude.Hook{Event: "Stop", Command: "/usr/local/bin/guard run --shell bash -c './lint.sh'", Guard: "/usr/local/bin/guard", Inner: "./lint.sh"}
	f := Differing([]claude.Copy{{File: "user", Hook: a}, {File: "project", Hook: b}, {File: "local", Hook: a}}, "")
	if !strings.Contains(f.Problem, "behind guard in each but written one way in user and local, another in project") || !strings.Contains(f.Problem, "runs 2 times per event") {
		t.Errorf("Differing = %s", f.Problem)
	}
}
