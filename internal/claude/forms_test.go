package claude

import (
	"slices"
	"strings"
	"testing"
)

// TestHookTimeout: install gives every hook guard run --hook-timeout N,
// the hook's "timeout" or Claude Code's default for its event (issue 29
// point 2), in the shell form and the exec form; a second install changes
// nothing; uninstall gives the file back byte for byte; a hook wrapped
// without the flag gets it, and one whose timeout changed gets the new one.
func TestHookTimeout(t *testing.T) {
	doc := `{"hooks": {
  "PreToolUse": [{"matcher": "Bash", "hooks": [
    {"type": "command", "command": "deny.sh", "timeout": 3},
    {"type": "command", "command": "node", "args": ["x.js"], "timeout": 2.5},
    {"type": "command", "command": "lint.sh"}]}],
  "UserPromptSubmit": [{"hooks": [{"type": "command", "command": "prompt.sh"}]}],
  "SessionEnd": [{"hooks": [{"type": "command", "command": "bye.sh", "onFailure": "block"},
    {"type": "command", "command": "flush.sh", "timeout": 90}, {"type": "command", "command": "sync.sh", "timeout": 20}]}]
}}
`
	opts := Options{Binary: bin, HookTimeout: true}
	out := roundTrip(t, doc, opts)
	want := []string{
		bin + " run --hook-timeout 3 --shell bash -c 'deny.sh'",
		bin + " run --hook-timeout 2.5 -- node x.js",
		bin + " run --hook-timeout 600 --shell bash -c 'lint.sh'",
	}
	for i, w := range want {
		h := hookOf(t, out, "PreToolUse", i)
		got, _ := h["command"].(string)
		if h["args"] != nil {
			got = strings.Join(argvOf(h), " ")
		}
		if got != w {
			t.Errorf("PreToolUse hook %d: %q; want %q", i, got, w)
		}
	}
	if got := hookOf(t, out, "UserPromptSubmit", 0)["command"]; got != bin+" run --hook-timeout 30 --shell bash -c 'prompt.sh'" {
		t.Errorf("UserPromptSubmit: %q; want its default of 30 s", got)
	}
	if got := hookOf(t, out, "SessionEnd", 0)["command"]; got != bin+" run --on-skip block --hook-timeout 1.5 --shell bash -c 'bye.sh'" {
		t.Errorf("SessionEnd: %q; want its default of 1.5 s, after --on-skip block", got)
	}
	// Claude Code cancels every SessionEnd hook after 60 s, whatever its
	// timeout: guard must stop one that hangs before, or it never trips.
	if got := hookOf(t, out, "SessionEnd", 1)["command"]; got != bin+" run --hook-timeout 60 --shell bash -c 'flush.sh'" {
		t.Errorf("SessionEnd with a timeout of 90: %q; want Claude Code's limit of 60 s", got)
	}
	if got := hookOf(t, out, "SessionEnd", 2)["command"]; got != bin+" run --hook-timeout 20 --shell bash -c 'sync.sh'" {
		t.Errorf("SessionEnd with a timeout of 20: %q; want its own", got)
	}

	// Wrapped by a guard before this one: the flag is added; a timeout
	// changed since: the flag follows it.
	old := `{"hooks": {"Stop": [{"hooks": [
    {"type": "command", "command": "` + bin + ` run --shell bash -c 'a'", "timeout": 9},
    {"type": "command", "command": "` + bin + `", "args": ["run", "--", "b"]},
    {"type": "command", "command": "` + bin + ` run --hook-timeout 10 --shell bash -c 'c'", "timeout": 60},
    {"type": "command", "command": "` + bin + `", "args": ["run", "--hook-timeout", "10", "--", "d"], "timeout": 20}]}]}}`
	r, err := Install([]byte(old), opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Changes) != 4 {
		t.Fatalf("changes %+v; want the 4 hooks updated", r.Changes)
	}
	for i, w := range []string{
		bin + " run --hook-timeout 9 --shell bash -c 'a'",
		bin + " run --hook-timeout 600 -- b",
		bin + " run --hook-timeout 60 --shell bash -c 'c'",
		bin + " run --hook-timeout 20 -- d",
	} {
		h := hookOf(t, r.Doc, "Stop", i)
		got, _ := h["command"].(string)
		if h["args"] != nil {
			got = strings.Join(argvOf(h), " ")
		}
		if got != w {
			t.Errorf("Stop hook %d: %q; want %q", i, got, w)
		}
	}
	if !strings.Contains(r.Changes[2].Why, "--hook-timeout 10 made 60") {
		t.Errorf("why = %q", r.Changes[2].Why)
	}
	back, _ := Uninstall(r.Doc)
	for i, w := range []string{"a", "b", "c", "d"} {
		h := hookOf(t, back.Doc, "Stop", i)
		if h["command"] != w {
			t.Errorf("uninstalled Stop hook %d: %v; want %q", i, h, w)
		}
	}
}

// TestPluginHooksInExecForm (issue 31 point 2, real-hooks-2 R4): a
// plugin's shell-form hook is written in exec form, whose args Claude Code
// fills its placeholders into one by one, so that whatever the plugin's
// path holds the command guard gets is the command Claude Code would have
// run; its key names the plugin and not the path of its version; the
// other members stay; uninstall gives back the very bytes.
func TestPluginHooksInExecForm(t *testing.T) {
	doc := `{
  "description": "a plugin's hooks",
  "hooks": {
    "PreToolUse": [
      {
        "matcher": "Bash",
        "hooks": [
          {
            "type": "command",
            "command": "node \"${CLAUDE_PLUGIN_ROOT}/dist/cli.js\" --claude-code",
            "timeout": 10
          },
          {"type": "command", "command": "${CLAUDE_PLUGIN_ROOT}/hooks/deny.sh", "onFailure": "block"},
          {"type": "command", "command": "python3", "args": ["${CLAUDE_PLUGIN_ROOT}/x.py", "${user_config.token}"]}
        ]
      }
    ],
    "Stop": [{"hooks": [{"type": "command", "command": "bash '${CLAUDE_PROJECT_DIR}/stop.sh'", "async": true},
      {"type": "command", "command": "bash \"$CLAUDE_PROJECT_DIR/stop2.sh\" $CLAUDE_PROJECT_DIR_X $CLAUDE_PROJECT_DIR"}]}]
  }
}
`
	opts := Options{Binary: bin, HookTimeout: true, Exec: true, Plugin: "safety-net@mkt"}
	out := roundTrip(t, doc, opts)
	first := hookOf(t, out, "PreToolUse", 0)
	wantArgv := []string{bin, "run", "--name", `plugin safety-net@mkt: node "$CLAUDE_PLUGIN_ROOT/dist/cli.js" --claude-code`,
		"--hook-timeout", "10", "--shell", "bash", "-c", `node "${CLAUDE_PLUGIN_ROOT:-}/dist/cli.js" --claude-code`}
	if got := argvOf(first); !slices.Equal(got, wantArgv) {
		t.Errorf("plugin hook 0:\n%q\nwant\n%q", got, wantArgv)
	}
	if first["timeout"] != 10.0 || first["type"] != "command" {
		t.Errorf("plugin hook 0 lost a member: %v", first)
	}
	if !strings.Contains(string(out), "\"command\": \""+bin+"\",\n            \"args\": [") {
		t.Errorf("args not written as the object's members are laid out:\n%s", out)
	}
	second := argvOf(hookOf(t, out, "PreToolUse", 1))
	if !slices.Equal(second[:5], []string{bin, "run", "--name", "plugin safety-net@mkt: $CLAUDE_PLUGIN_ROOT/hooks/deny.sh", "--on-skip"}) {
		t.Errorf("plugin hook 1: %q; want --on-skip block after its name", second)
	}
	third := argvOf(hookOf(t, out, "PreToolUse", 2))
	if !slices.Equal(third, []string{bin, "run", "--name", "plugin safety-net@mkt: python3 '$CLAUDE_PLUGIN_ROOT/x.py' '$user_config.token'",
		"--hook-timeout", "600", "--", "python3", "${CLAUDE_PLUGIN_ROOT}/x.py", "${user_config.token}"}) {
		t.Errorf("plugin exec hook: %q", third)
	}
	stop := argvOf(hookOf(t, out, "Stop", 0))
	if stop[3] != "plugin safety-net@mkt: bash '${CLAUDE_PROJECT_DIR}/stop.sh'" {
		t.Errorf("Stop key %q: ${CLAUDE_PROJECT_DIR} should stay, for a circuit per project", stop[3])
	}
	// Without braces it is written with them, which Claude Code fills in:
	// a circuit per project too, however the hook spells it.
	if stop2 := argvOf(hookOf(t, out, "Stop", 1)); stop2[3] != `plugin safety-net@mkt: bash "${CLAUDE_PROJECT_DIR}/stop2.sh" $CLAUDE_PROJECT_DIR_X ${CLAUDE_PROJECT_DIR}` {
		t.Errorf("Stop key %q: $CLAUDE_PROJECT_DIR should become ${CLAUDE_PROJECT_DIR}, for a circuit per project", stop2[3])
	}

	// What Claude Code runs: each arg with the placeholders filled in,
	// for roots that would break a shell's quoting: nothing of the root is
	// pasted into the command or the key; bash reads ${CLAUDE_PLUGIN_ROOT:-}
	// from the variable Claude Code exports, as it reads
	// ${CLAUDE_PLUGIN_ROOT} in the shell form.
	for _, root := range []string{"/home/o'brien/.claude/plugins/cache/mkt/safety-net/0.9.0", "/Users/me/Library/Application Support/Claude/p $x `id`"} {
		args := argvOf(first)
		for i := range args {
			args[i] = strings.ReplaceAll(args[i], "${CLAUDE_PLUGIN_ROOT}", root)
		}
		if !slices.Equal(args, wantArgv) {
			t.Errorf("root %q: guard gets %q; want %q", root, args, wantArgv)
		}
	}

	// Without the exec form, a plugin's hooks are left alone, and why.
	r, err := Install([]byte(doc), Options{Binary: bin, Plugin: "safety-net@mkt"})
	if err != nil || len(r.Changes) != 1 || len(r.Left) != 4 || r.Left[0].Why != WhyNoExec {
		t.Errorf("without Exec: changes %+v, left %+v (%v)", r.Changes, r.Left, err)
	}
}

// TestPluginHookWrappedInShellFormIsRewritten: a plugin's hooks file an
// older install wrapped in shell form (guard install --settings
// plugin/hooks.json), whose quoting a ' in the plugin's path breaks
// (real-hooks-2 R4), is written in exec form; uninstall gives the hook
// back as it was before any install.
func TestPluginHookWrappedInShellFormIsRewritten(t *testing.T) {
	before := `{"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "node \"${CLAUDE_PLUGIN_ROOT}/x.js\""}]}]}}`
	wrapped, err := Install([]byte(before), Options{Binary: bin})
	if err != nil {
		t.Fatal(err)
	}
	r, err := Install(wrapped.Doc, Options{Binary: bin, Exec: true, Plugin: "p@m"})
	if err != nil || len(r.Changes) != 1 {
		t.Fatalf("changes %+v (%v)", r.Changes, err)
	}
	if got := argvOf(hookOf(t, r.Doc, "PreToolUse", 0)); got[len(got)-1] != `node "${CLAUDE_PLUGIN_ROOT:-}/x.js"` || got[len(got)-2] != "-c" {
		t.Errorf("rewritten as %q", got)
	}
	back, _ := Uninstall(r.Doc)
	if string(back.Doc) != before {
		t.Errorf("uninstall:\n%s\nwant\n%s", back.Doc, before)
	}
}

// TestPowerShellHooks (issue 30): a "shell": "powershell" hook is wrapped
// in exec form where Claude Code runs it, run by PowerShell (pwsh, or
// powershell on Windows), and given back byte for byte; without the exec
// form it is left alone.
func TestPowerShellHooks(t *testing.T) {
	doc := `{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "Write-Host 'hi'; exit 2", "shell": "powershell"}]}]}}`
	for _, windows := range []bool{false, true} {
		out := roundTrip(t, doc, Options{Binary: bin, Exec: true, Windows: windows})
		got := argvOf(hookOf(t, out, "PreToolUse", 0))
		want := []string{bin, "run", "--shell", "pwsh", "-c", "Write-Host 'hi'; exit 2"}
		if windows {
			want[3] = "powershell"
		}
		if !slices.Equal(got, want) {
			t.Errorf("windows=%v: %q; want %q", windows, got, want)
		}
		if h := hookOf(t, out, "PreToolUse", 0); h["shell"] != "powershell" {
			t.Errorf("the shell member went: %v", h)
		}
	}
	r, _ := Install([]byte(doc), Options{Binary: bin})
	if len(r.Changes) != 0 || len(r.Left) != 1 || !strings.Contains(r.Left[0].Why, "PowerShell") {
		t.Errorf("without Exec: changes %+v, left %+v", r.Changes, r.Left)
	}
}

// TestWindowsBinary (issue 30): on Windows hooks run in Git Bash; the
// guard they call is written with forward slashes, quoted where its path
// needs it, and recognised again by uninstall.
func TestWindowsBinary(t *testing.T) {
	win := "C:/Users/Jane Doe/bin/guard.exe"
	doc := `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "x"}, {"type": "command", "command": "node", "args": ["y.js"]}]}]}}`
	out := roundTrip(t, doc, Options{Binary: win, Windows: true})
	if got := hookOf(t, out, "Stop", 0)["command"]; got != `'C:/Users/Jane Doe/bin/guard.exe' run --shell bash -c 'x'` {
		t.Errorf("shell form: %q", got)
	}
	if got := argvOf(hookOf(t, out, "Stop", 1)); got[0] != win {
		t.Errorf("exec form: %q", got)
	}
	if got := WindowsPath(`C:\Users\Jane Doe\bin\guard.exe`); got != win {
		t.Errorf("WindowsPath = %q; want %q", got, win)
	}
}

// TestGuardUnderOtherNames (hostile-user-3 m5): hooks that already run
// guard as guard-web, through ${GUARD:-guard}, or as a copy of guard
// under another name, and the Python wrapper run as a module, are not
// wrapped again.
func TestGuardUnderOtherNames(t *testing.T) {
	doc := `{"hooks": {"Stop": [{"hooks": [
  {"type": "command", "command": "guard-web run -c x28"},
  {"type": "command", "command": "${GUARD:-guard} run -c x11"},
  {"type": "command", "command": "\"${GUARD_BIN-/opt/bin/guard}\" run -c x12"},
  {"type": "command", "command": "/opt/bin/guard-copy run -c x13"},
  {"type": "command", "command": "python3 -m circuit_breaker_wrapper -- x24"},
  {"type": "command", "command": "/opt/bin/other run -c x14"}]}]}}`
	r, err := Install([]byte(doc), Options{Binary: bin, IsGuard: func(p string) bool { return p == "/opt/bin/guard-copy" }})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Changes) != 1 || r.Changes[0].Before != "/opt/bin/other run -c x14" {
		t.Errorf("wrapped %+v; want only the last hook", r.Changes)
	}
	for _, l := range r.Left {
		if l.Before == "python3 -m circuit_breaker_wrapper -- x24" && !strings.Contains(l.Why, "Python wrapper") {
			t.Errorf("%q left alone for %q", l.Before, l.Why)
		}
	}
	if len(r.Left) != 5 {
		t.Errorf("left %+v", r.Left)
	}
}

// TestWindowsBinaryFlag (issue 30): on Windows, --binary takes guard.exe
// by a Windows path, written with /; elsewhere a guard.exe is no guard.
func TestWindowsBinaryFlag(t *testing.T) {
	bin, _, err := binary(`C:\Users\me\bin\guard.exe`, "", true)
	if err != nil || bin != "C:/Users/me/bin/guard.exe" {
		t.Errorf("windows: %q, %v", bin, err)
	}
	if _, _, err := binary(`C:\Users\me\bin\guardctl.exe`, "", true); err == nil {
		t.Error("windows: guardctl.exe taken for guard")
	}
	if _, _, err := binary("/usr/local/bin/guard.exe", "", false); err == nil {
		t.Error("linux: guard.exe taken for guard")
	}
}

// TestHookTimeoutNoLimit: a "timeout" too long to be a limit is not
// handed to guard run, which would refuse it; a second install keeps it so.
func TestHookTimeoutNoLimit(t *testing.T) {
	doc := `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "x", "timeout": 1e20}]}]}}`
	out := roundTrip(t, doc, Options{Binary: bin, HookTimeout: true})
	if got := hookOf(t, out, "Stop", 0)["command"]; got != bin+" run --shell bash -c 'x'" {
		t.Errorf("got %q", got)
	}
}
