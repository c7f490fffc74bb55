package tests

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"guard/internal/claude/claudetest"
)

// These tests lay out Claude Code's plugin records by hand, as its plugin
// commands would (claudetest.InstallPlugin), and run guard doctor and
// guard install --plugins on them (issue 31). claude_real_test.go runs a
// real session on such a layout.

// A pluginHome is a throwaway home with Claude Code's directory, a
// project, and guard's state.
type pluginHome struct {
	t       *testing.T
	dir     string
	home    string // HOME
	claude  string // Claude Code's user directory, ~/.claude
	project string
	env     []string
}

func newPluginHome(t *testing.T, homeName string) *pluginHome {
	t.Helper()
	dir := t.TempDir()
	h := &pluginHome{t: t, dir: dir, home: filepath.Join(dir, homeName), project: filepath.Join(dir, "project")}
	h.claude = filepath.Join(h.home, ".claude")
	for _, d := range []string{h.claude, h.project} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "guardrails.yaml"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	h.env = append(os.Environ(), "HOME="+h.home, "CLAUDE_PROJECT_DIR=", "CLAUDE_CONFIG_DIR=", "AI_AGENT=",
		"GUARD_STATE="+filepath.Join(dir, "state.json"), "GUARD_CONFIG="+filepath.Join(dir, "guardrails.yaml"),
		"PATH="+filepath.Dir(guardBin)+string(os.PathListSeparator)+"/usr/local/bin:/usr/bin:/bin")
	return h
}

// plugin lays out a plugin and returns its root.
func (h *pluginHome) plugin(p claudetest.Plugin) string {
	h.t.Helper()
	root, err := claudetest.InstallPlugin(h.home, p)
	if err != nil {
		h.t.Fatal(err)
	}
	return root
}

func (h *pluginHome) write(path, data string) {
	h.t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		h.t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		h.t.Fatal(err)
	}
}

func (h *pluginHome) read(path string) string {
	h.t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		h.t.Fatal(err)
	}
	return string(data)
}

// guard runs guard in the project and returns its exit status and output.
func (h *pluginHome) guard(args ...string) (int, string, string) {
	h.t.Helper()
	cmd := exec.Command(guardBin, args...)
	cmd.Dir, cmd.Env = h.project, h.env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		return ee.ExitCode(), stdout.String(), stderr.String()
	case err != nil:
		h.t.Fatal(err)
	}
	return 0, stdout.String(), stderr.String()
}

// A policy plugin like safety-net: its PreToolUse hook denies through a
// script named with ${CLAUDE_PLUGIN_ROOT}, which answers
// "permissionDecision": "deny" for rm -rf.
var policyFiles = map[string]string{
	"hooks/hooks.json": `{
  "description": "blocks destructive commands",
  "hooks": {
    "PreToolUse": [
      {
        "matcher": "Bash",
        "hooks": [
          {
            "type": "command",
            "command": "bash \"${CLAUDE_PLUGIN_ROOT}/scripts/deny.sh\"",
            "timeout": 10
          }
        ]
      }
    ]
  }
}
`,
	"scripts/deny.sh": `#!/bin/bash
if grep -q 'rm -rf'; then
  echo '{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "rm -rf is not allowed"}}'
  exit 0
fi
exit 0
`,
}

// TestDoctorListsPluginHooks (issue 31 point 1, real-hooks-2 R3): doctor
// lists every enabled plugin's command hooks with the plugin's name, as
// behind guard or not, from hooks/hooks.json and inline in plugin.json,
// for a plugin in the cache and one of a directory marketplace (run from
// the marketplace's own directory, whose path has a space and a '), under
// a home like the macOS app's; a disabled plugin is left out; hooks in a
// skill's frontmatter are reported as not covered; and an empty check is
// no "All is well".
func TestDoctorListsPluginHooks(t *testing.T) {
	h := newPluginHome(t, "Library/Application Support/Claude")
	h.plugin(claudetest.Plugin{Name: "safety-net", Market: "mkt", Version: "0.9.0", Files: policyFiles})
	dirRoot := h.plugin(claudetest.Plugin{Name: "stopper", Market: "local tools", Version: "1.0.0",
		Directory: filepath.Join(h.dir, "my plugins/o'brien"),
		Files: map[string]string{".claude-plugin/plugin.json": `{"name": "stopper", "version": "1.0.0",
  "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "${CLAUDE_PLUGIN_ROOT}/stop.sh"}]}]}}`,
			"stop.sh": "#!/bin/bash\necho '{\"decision\": \"block\", \"reason\": \"not yet\"}'\n"}})
	h.plugin(claudetest.Plugin{Name: "off", Market: "mkt", Version: "2.0.0", Files: map[string]string{
		"hooks/hooks.json": `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "echo disabled-plugin"}]}]}}`}})
	h.write(filepath.Join(h.claude, "settings.json"), `{"enabledPlugins": {"safety-net@mkt": true, "off@mkt": true}}`)
	// The project disables one and enables another.
	h.write(filepath.Join(h.project, ".claude", "settings.json"), `{"enabledPlugins": {"off@mkt": false, "stopper@local tools": true}}`)
	h.write(filepath.Join(h.claude, "skills", "deploy", "SKILL.md"), "---\nname: deploy\nhooks:\n  PreToolUse:\n    - hooks: [{type: command, command: ./check.sh}]\n---\nDeploy.\n")

	_, out, stderr := h.guard("doctor")
	for _, want := range []string{
		`checked  plugin safety-net@mkt hook PreToolUse[Bash]: bash "${CLAUDE_PLUGIN_ROOT}/scripts/deny.sh": not behind guard`,
		`checked  plugin stopper@local tools hook Stop: ${CLAUDE_PLUGIN_ROOT}/stop.sh: not behind guard`,
		"checked  plugin stopper@local tools (" + dirRoot + "): 1 command hooks, 0 behind guard",
		"plugin safety-net@mkt: 1 of its 1 command hooks are not behind guard",
		"SKILL.md: has hooks in its frontmatter",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("doctor does not say %q:\n%s%s", want, out, stderr)
		}
	}
	if strings.Contains(out, "disabled-plugin") || strings.Contains(out, "plugin off@mkt") {
		t.Errorf("doctor lists the disabled plugin:\n%s", out)
	}
	if strings.Contains(out, "All is well") {
		t.Errorf("doctor says all is well:\n%s", out)
	}

	// Wrapped, each is behind guard.
	if code, out, stderr := h.guard("install", "--plugins", "--binary", guardBin); code != 0 {
		t.Fatalf("install --plugins: exit %d\n%s%s", code, out, stderr)
	}
	_, out, _ = h.guard("doctor")
	for _, want := range []string{
		`checked  plugin safety-net@mkt hook PreToolUse[Bash]: bash "${CLAUDE_PLUGIN_ROOT}/scripts/deny.sh": behind guard`,
		"checked  plugin stopper@local tools (" + dirRoot + "): 1 command hooks, 1 behind guard",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("after install, doctor does not say %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "not behind guard") {
		t.Errorf("after install, doctor still lists bare plugin hooks:\n%s", out)
	}
}

// TestInstallPluginsInPlace (issue 31 points 2 to 4, real-hooks-2 R4,
// R5): install --plugins wraps an enabled plugin's hooks in place, in
// exec form, warns that the policy one (whose verdict its script, named
// through ${CLAUDE_PLUGIN_ROOT}, writes) fails open when skipped, keeps
// backups out of the plugin, changes nothing a second time, and uninstall
// --plugins gives the very bytes back. Run as Claude Code runs it (each
// arg with ${CLAUDE_PLUGIN_ROOT} filled in) from a root whose path holds
// ', $, a backtick and spaces, the policy still denies; after an update
// of the plugin (a new version directory, the hooks bare again) doctor
// says so, the SessionStart hook of --auto wraps them again silently,
// and the circuit is the same key as before.
func TestInstallPluginsInPlace(t *testing.T) {
	h := newPluginHome(t, "home")
	root := h.plugin(claudetest.Plugin{Name: "safety-net", Market: "mkt", Version: "0.9.0", Files: policyFiles})
	h.write(filepath.Join(h.claude, "settings.json"), "{\n  \"enabledPlugins\": {\"safety-net@mkt\": true}\n}\n")
	hooksFile := filepath.Join(root, "hooks", "hooks.json")
	orig := h.read(hooksFile)

	code, out, stderr := h.guard("install", "--plugins", "--dry-run", "--binary", guardBin)
	if code != 0 || !strings.Contains(out, "+++ "+hooksFile+" (install)") || !strings.Contains(out, `+            "args": [`) || h.read(hooksFile) != orig {
		t.Fatalf("install --plugins --dry-run: exit %d, the file changed: %v\n%s%s", code, h.read(hooksFile) != orig, out, stderr)
	}
	code, out, stderr = h.guard("install", "--plugins", "--binary", guardBin)
	if code != 0 || !strings.Contains(out, "plugin safety-net@mkt: wrapped 1 hooks in "+hooksFile) {
		t.Fatalf("install --plugins: exit %d\n%s%s", code, out, stderr)
	}
	if !strings.Contains(stderr, "look like policies") || !strings.Contains(stderr, root+"/scripts/deny.sh answers \"permissionDecision\": \"deny\"") {
		t.Errorf("no policy warning naming the plugin's script (R5):\n%s", stderr)
	}
	if backups, _ := filepath.Glob(filepath.Join(root, "hooks", "*.bak-*")); len(backups) != 0 {
		t.Errorf("backups left in the plugin: %v", backups)
	}
	if backups, _ := filepath.Glob(filepath.Join(h.claude, "guard-backups", "*hooks.json.bak-*")); len(backups) != 1 {
		t.Errorf("backups in guard-backups: %v; want 1", backups)
	}
	wrapped := h.read(hooksFile)
	var doc struct {
		Hooks map[string][]struct {
			Hooks []struct {
				Command string   `json:"command"`
				Args    []string `json:"args"`
				Timeout float64  `json:"timeout"`
			} `json:"hooks"`
		} `json:"hooks"`
	}
	if err := json.Unmarshal([]byte(wrapped), &doc); err != nil {
		t.Fatalf("install wrote invalid JSON: %v\n%s", err, wrapped)
	}
	hook := doc.Hooks["PreToolUse"][0].Hooks[0]
	if hook.Command != guardBin || hook.Timeout != 10 || len(hook.Args) < 4 || hook.Args[len(hook.Args)-1] != `bash "${CLAUDE_PLUGIN_ROOT:-}/scripts/deny.sh"` {
		t.Fatalf("the wrapped hook: %+v", hook)
	}
	if code, out, _ := h.guard("install", "--plugins", "--binary", guardBin); code != 0 || !strings.Contains(out, "nothing to install") {
		t.Errorf("a second install: exit %d\n%s", code, out)
	}

	// As Claude Code runs it, from roots a shell's quoting would trip on:
	// the same verdicts as the bare hook.
	run := func(root string, args []string, payload string) (string, string) {
		t.Helper()
		argv := make([]string, len(args))
		for i, a := range args {
			argv[i] = strings.ReplaceAll(a, "${CLAUDE_PLUGIN_ROOT}", root)
		}
		cmd := exec.Command(guardBin, argv...)
		cmd.Dir, cmd.Env = h.project, append(h.env, "CLAUDE_PLUGIN_ROOT="+root, "CLAUDE_PROJECT_DIR="+h.project)
		cmd.Stdin = strings.NewReader(payload)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("the wrapped hook from %q: %v\n%s", root, err, stderr.String())
		}
		return stdout.String(), stderr.String()
	}
	for _, odd := range []string{"o'brien", "a $HOME `id` b", "Application Support"} {
		moved := filepath.Join(h.dir, odd, "safety-net")
		if err := os.MkdirAll(filepath.Join(moved, "scripts"), 0o755); err != nil {
			t.Fatal(err)
		}
		h.write(filepath.Join(moved, "scripts", "deny.sh"), policyFiles["scripts/deny.sh"])
		got, stderr := run(moved, hook.Args, `{"tool_input": {"command": "rm -rf /"}}`)
		if !strings.Contains(got, `"permissionDecision": "deny"`) {
			t.Errorf("from %q the policy answered %q (%s); want its deny", moved, got, stderr)
		}
		if got, _ := run(moved, hook.Args, `{"tool_input": {"command": "ls"}}`); got != "" {
			t.Errorf("from %q an allowed call got %q", moved, got)
		}
	}
	var state struct {
		Hooks map[string]any `json:"hooks"`
	}
	data, _ := os.ReadFile(filepath.Join(h.dir, "state.json"))
	json.Unmarshal(data, &state)
	wantKey := `plugin safety-net@mkt: bash "$CLAUDE_PLUGIN_ROOT/scripts/deny.sh"`
	if len(state.Hooks) != 1 || state.Hooks[wantKey] == nil {
		t.Errorf("keys %v; want the one key %q, whatever the plugin's root", keysOf(state.Hooks), wantKey)
	}

	// uninstall --plugins: the very bytes.
	if code, out, stderr := h.guard("uninstall", "--plugins"); code != 0 || h.read(hooksFile) != orig {
		t.Fatalf("uninstall --plugins: exit %d\n%s%s\n%s", code, out, stderr, h.read(hooksFile))
	}

	// --auto adds the SessionStart hook; an update brings the hooks back
	// bare, in a new version directory; doctor says so; the SessionStart
	// hook wraps them again, silently.
	settingsBefore := h.read(filepath.Join(h.claude, "settings.json"))
	if code, out, stderr := h.guard("install", "--plugins", "--auto", "--binary", guardBin); code != 0 || !strings.Contains(out, "SessionStart hook") {
		t.Fatalf("install --plugins --auto: exit %d\n%s%s", code, out, stderr)
	}
	if s := h.read(filepath.Join(h.claude, "settings.json")); !strings.Contains(s, `"SessionStart"`) || !strings.Contains(s, "install --plugins --session-start") {
		t.Fatalf("no SessionStart hook in the settings:\n%s", s)
	}
	newRoot := h.plugin(claudetest.Plugin{Name: "safety-net", Market: "mkt", Version: "0.9.1", Files: policyFiles})
	_, out, _ = h.guard("doctor")
	if !strings.Contains(out, "plugin safety-net@mkt: 1 of its 1 command hooks are not behind guard") || !strings.Contains(out, "guard install --plugins") {
		t.Errorf("after the update doctor does not say the hooks are bare:\n%s", out)
	}
	code, out, stderr = h.guard("install", "--plugins", "--session-start")
	if code != 0 || out != "" || stderr != "" {
		t.Errorf("the SessionStart hook: exit %d, stdout %q, stderr %q; want 0 and silence", code, out, stderr)
	}
	if !strings.Contains(h.read(filepath.Join(newRoot, "hooks", "hooks.json")), `"--name"`) {
		t.Errorf("the updated plugin's hooks were not wrapped again:\n%s", h.read(filepath.Join(newRoot, "hooks", "hooks.json")))
	}
	if code, out, stderr := h.guard("install", "--plugins", "--session-start"); code != 0 || out != "" || stderr != "" {
		t.Errorf("again: exit %d, %q, %q", code, out, stderr)
	}
	if code, out, stderr := h.guard("uninstall", "--plugins"); code != 0 || h.read(filepath.Join(h.claude, "settings.json")) != settingsBefore {
		t.Errorf("uninstall --plugins left the settings as\n%s\nwant\n%s\n(%d %s%s)", h.read(filepath.Join(h.claude, "settings.json")), settingsBefore, code, out, stderr)
	}
}

func keysOf(m map[string]any) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// TestUninstallPluginsGivesBackEveryCopy: guard uninstall --plugins,
// wherever it runs, gives back byte for byte every plugin file install
// --plugins wrapped: a plugin installed for a project (its record's scope
// is that project, and it is enabled there), run from elsewhere, and the
// version an update left in the cache, which Claude Code takes up again
// if the plugin goes back to it. Before, both stayed wrapped, silently:
// with guard gone from the machine, their hooks would fail to start, and
// a policy among them would allow what it blocked.
func TestUninstallPluginsGivesBackEveryCopy(t *testing.T) {
	h := newPluginHome(t, "home")
	old := h.plugin(claudetest.Plugin{Name: "safety-net", Market: "mkt", Version: "0.9.0", Files: policyFiles})
	mine := h.plugin(claudetest.Plugin{Name: "mine", Market: "mkt", Version: "1.0.0", Files: policyFiles})
	// mine is installed for the project only, and enabled there.
	records := filepath.Join(h.claude, "plugins", "installed_plugins.json")
	h.write(records, strings.Replace(h.read(records), `"scope": "user"`, `"projectPath": `+strconv.Quote(h.project)+`, "scope": "project"`, 1))
	if !strings.Contains(h.read(records), `"scope": "project"`) {
		t.Fatalf("the record was not made a project's:\n%s", h.read(records))
	}
	h.write(filepath.Join(h.claude, "settings.json"), `{"enabledPlugins": {"safety-net@mkt": true}}`)
	h.write(filepath.Join(h.project, ".claude", "settings.json"), `{"enabledPlugins": {"mine@mkt": true}}`)
	files := []string{filepath.Join(old, "hooks", "hooks.json"), filepath.Join(mine, "hooks", "hooks.json")}
	if code, out, stderr := h.guard("install", "--plugins", "--binary", guardBin); code != 0 || strings.Count(out, "wrapped 1 hooks") != 2 {
		t.Fatalf("install --plugins: exit %d\n%s%s", code, out, stderr)
	}
	// An update of safety-net: a new version, its hooks wrapped again;
	// the old one stays in the cache, wrapped.
	updated := h.plugin(claudetest.Plugin{Name: "safety-net", Market: "mkt", Version: "1.0.0", Files: policyFiles})
	files = append(files, filepath.Join(updated, "hooks", "hooks.json"))
	if code, out, stderr := h.guard("install", "--plugins", "--binary", guardBin); code != 0 || !strings.Contains(out, "wrapped 1 hooks in "+files[2]) {
		t.Fatalf("install --plugins after the update: exit %d\n%s%s", code, out, stderr)
	}
	for _, f := range files {
		if h.read(f) == policyFiles["hooks/hooks.json"] {
			t.Fatalf("%s was not wrapped", f)
		}
	}
	cmd := exec.Command(guardBin, "uninstall", "--plugins")
	cmd.Dir, cmd.Env = h.dir, h.env // not the project
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("uninstall --plugins: %v\n%s", err, out)
	}
	for _, f := range files {
		if got := h.read(f); got != policyFiles["hooks/hooks.json"] {
			t.Errorf("%s is not given back:\n%s\nuninstall said:\n%s", f, got, out)
		}
	}
}

// TestPluginPolicyWarningGivesARuleThatHolds: install --plugins's warning
// about a plugin hook that looks like a policy says how to keep it
// fail-closed where a plugin update cannot undo it, a hooks: rule in
// guardrails.yaml matching the plugin's keys (not "onFailure" in the
// plugin's own file, which the update replaces); the rule it gives
// matches the hook's key, and with it the warning goes.
func TestPluginPolicyWarningGivesARuleThatHolds(t *testing.T) {
	h := newPluginHome(t, "home")
	h.plugin(claudetest.Plugin{Name: "safety-net", Market: "mkt", Version: "0.9.0", Files: policyFiles})
	h.write(filepath.Join(h.claude, "settings.json"), `{"enabledPlugins": {"safety-net@mkt": true}}`)
	code, out, stderr := h.guard("install", "--plugins", "--dry-run", "--binary", guardBin)
	rule := `{match: "plugin safety-net@mkt: *", on_skip: block}`
	if code != 0 || !strings.Contains(stderr, "look like policies") || !strings.Contains(stderr, rule) || strings.Contains(stderr, "in the settings file") {
		t.Fatalf("install --plugins --dry-run: exit %d; want the policy warning to give the rule\n%s\n%s%s", code, rule, out, stderr)
	}
	h.write(filepath.Join(h.dir, "guardrails.yaml"), "hooks:\n  - "+rule+"\n")
	code, out, stderr = h.guard("install", "--plugins", "--binary", guardBin)
	if code != 0 || !strings.Contains(out, "wrapped 1 hooks") || strings.Contains(stderr, "look like policies") {
		t.Fatalf("install --plugins with the rule: exit %d; want it wrapped, and no warning\n%s%s", code, out, stderr)
	}
	h.write(filepath.Join(h.dir, "guardrails.yaml"), "")
	if _, out, stderr = h.guard("doctor"); !strings.Contains(out, "looks like a policy") || !strings.Contains(out, rule) {
		t.Errorf("doctor without the rule does not give it:\n%s%s", out, stderr)
	}
}

// TestOneBrokenPluginLeavesTheOthersWrapped: a plugin whose hooks file is
// not valid JSON (Claude Code skips its hooks) does not stop install
// --plugins, its SessionStart hook or uninstall --plugins from doing the
// other plugins': before, the first broken file ended them, and every
// plugin after it stayed bare (or wrapped) for good.
func TestOneBrokenPluginLeavesTheOthersWrapped(t *testing.T) {
	h := newPluginHome(t, "home")
	h.plugin(claudetest.Plugin{Name: "a-broken", Market: "mkt", Version: "1", Files: map[string]string{"hooks/hooks.json": `{"hooks": {`}})
	root := h.plugin(claudetest.Plugin{Name: "b-fine", Market: "mkt", Version: "1", Files: policyFiles})
	h.write(filepath.Join(h.claude, "settings.json"), `{"enabledPlugins": {"a-broken@mkt": true, "b-fine@mkt": true}}`)
	hooksFile := filepath.Join(root, "hooks", "hooks.json")
	for _, step := range []struct {
		args    []string
		code    int
		wrapped bool
	}{
		{[]string{"install", "--plugins", "--session-start", "--binary", guardBin}, 0, true}, // never fails a session's start
		{[]string{"uninstall", "--plugins"}, 1, false},
		{[]string{"install", "--plugins", "--binary", guardBin}, 1, true},
	} {
		code, out, stderr := h.guard(step.args...)
		if code != step.code || !strings.Contains(stderr, "plugin a-broken@mkt: not ") {
			t.Errorf("%v: exit %d; want %d, and a warning naming the broken plugin\n%s%s", step.args, code, step.code, out, stderr)
		}
		if got := strings.Contains(h.read(hooksFile), `"args"`); got != step.wrapped {
			t.Errorf("%v: b-fine's hooks wrapped: %v; want %v\n%s%s", step.args, got, step.wrapped, out, stderr)
		}
	}
}
