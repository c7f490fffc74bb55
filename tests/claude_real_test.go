package tests

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"guard/internal/claude/claudetest"
)

// These tests run the real Claude Code (claudetest.Version, which .ci/run
// installs from npm) against a stand-in for the Messages API on loopback
// that asks for one Bash tool call, with hooks behind guard as guard
// install writes them. They must not skip in CI.

// A realClaude is a session of the real Claude Code in a throwaway home
// and project, with guard's state and config in the sandbox.
type realClaude struct {
	t *testing.T
	*claudetest.Session
	dir string // the sandbox: state.json, guardrails.yaml
}

// newRealClaude starts the stand-in, asking for a Bash call that runs
// command, and prepares a session. config is guardrails.yaml.
func newRealClaude(t *testing.T, command, config string) *realClaude {
	t.Helper()
	bin, err := claudetest.Find()
	if err != nil {
		skipOutsideCI(t, "SKIP: "+err.Error())
	}
	api, err := claudetest.StartAPI(command)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { api.Close() })
	dir := t.TempDir()
	home := filepath.Join(dir, "home")
	project := filepath.Join(dir, "project")
	for _, d := range []string{filepath.Join(home, ".claude"), filepath.Join(project, ".claude", "hooks")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "guardrails.yaml"), []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	return &realClaude{t: t, dir: dir, Session: &claudetest.Session{
		Bin: bin, Home: home, Dir: project, API: api,
		Path: filepath.Dir(guardBin) + string(os.PathListSeparator) + "/usr/local/bin:/usr/bin:/bin",
		Env: []string{
			"GUARD_STATE=" + filepath.Join(dir, "state.json"),
			"GUARD_CONFIG=" + filepath.Join(dir, "guardrails.yaml"),
		},
	}}
}

// script writes an executable hook script into the project's .claude/hooks.
func (c *realClaude) script(name, body string) string {
	c.t.Helper()
	path := filepath.Join(c.Dir, ".claude", "hooks", name)
	if err := os.WriteFile(path, []byte(body), 0o755); err != nil {
		c.t.Fatal(err)
	}
	return path
}

// settings writes ~/.claude/settings.json.
func (c *realClaude) settings(doc string) {
	c.t.Helper()
	if err := c.WriteSettings(doc); err != nil {
		c.t.Fatal(err)
	}
}

// guard runs guard with the session's home, project and state.
func (c *realClaude) guard(args ...string) (string, string, error) {
	c.t.Helper()
	cmd := exec.Command(guardBin, args...)
	cmd.Dir = c.Dir
	cmd.Env = append(os.Environ(), "HOME="+c.Home, "CLAUDE_PROJECT_DIR=", "PATH="+c.Path)
	cmd.Env = append(cmd.Env, c.Env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	return stdout.String(), stderr.String(), err
}

// install runs guard install on the user's settings.
func (c *realClaude) install(args ...string) string {
	c.t.Helper()
	out, stderr, err := c.guard(append([]string{"install", "--binary", guardBin}, args...)...)
	if err != nil {
		c.t.Fatalf("guard install: %v\n%s%s", err, out, stderr)
	}
	return out
}

// run runs one session and checks that Claude Code ended well.
func (c *realClaude) run() claudetest.Result {
	c.t.Helper()
	r := c.Run("Run the command, please.")
	if r.Err != nil {
		c.t.Fatalf("claude: %v\nstdout: %s\nstderr: %s", r.Err, r.Stdout, r.Stderr)
	}
	return r
}

// lastResult is the tool result of the session's tool call.
func (c *realClaude) lastResult() claudetest.ToolResult {
	c.t.Helper()
	rs := c.API.ToolResults()
	if len(rs) == 0 {
		c.t.Fatalf("the stand-in got no tool result back; requests: %+v", c.API.Requests())
	}
	return rs[len(rs)-1]
}

// state returns the state file's hooks.
func (c *realClaude) state() map[string]map[string]any {
	c.t.Helper()
	var doc struct {
		Hooks map[string]map[string]any `json:"hooks"`
	}
	if _, err := os.Stat(filepath.Join(c.dir, "state.json")); errors.Is(err, os.ErrNotExist) {
		return nil
	}
	// Read through guard, which folds in the skips its skip tally holds
	// (counted without rewriting the state).
	cmd := exec.Command(guardBin, "state", "export")
	cmd.Env = append(os.Environ(), "GUARD_STATE="+filepath.Join(c.dir, "state.json"), "GUARD_CONFIG="+filepath.Join(c.dir, "guardrails.yaml"))
	data, err := cmd.Output()
	if err != nil {
		c.t.Fatalf("guard state export: %v", err)
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		c.t.Fatalf("state file does not parse: %v", err)
	}
	return doc.Hooks
}

// keyLike returns the state's entry whose key contains part.
func (c *realClaude) keyLike(part string) (string, map[string]any) {
	c.t.Helper()
	for k, v := range c.state() {
		if strings.Contains(k, part) {
			return k, v
		}
	}
	return "", nil
}

// afterHook is what Claude Code puts in a tool result after the hook's
// command: "PreToolUse:Bash hook error: [COMMAND]: STDERR" gives STDERR,
// which does not depend on how the hook is wrapped.
func afterHook(content string) string {
	if i := strings.Index(content, "]: "); i >= 0 {
		return content[i+len("]: "):]
	}
	return content
}

// TestRealClaudePolicyStillBlocks: a PreToolUse policy that exits 2 blocks
// the Bash call behind guard exactly as it does bare (real-hooks-2,
// appendix "Measured with the real client"), and guard records its exit
// 2 as neither success nor failure.
func TestRealClaudePolicyStillBlocks(t *testing.T) {
	c := newRealClaude(t, "touch tool-ran; echo the tool ran", "")
	c.script("deny.sh", "#!/bin/bash\ncat >/dev/null\necho 'Blocked: this project allows no Bash' >&2\nexit 2\n")
	c.settings(`{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "$CLAUDE_PROJECT_DIR/.claude/hooks/deny.sh"}]}]}}`)

	var said [2]string
	for i, wrapped := range []bool{false, true} {
		if wrapped {
			c.install()
		}
		c.run()
		if exists(filepath.Join(c.Dir, "tool-ran")) {
			t.Fatalf("wrapped=%v: the Bash call ran; the policy should have blocked it", wrapped)
		}
		r := c.lastResult()
		if !r.IsError || !strings.Contains(r.Content, "Blocked: this project allows no Bash") {
			t.Fatalf("wrapped=%v: tool result %+v; want the hook's block with its reason", wrapped, r)
		}
		said[i] = afterHook(r.Content)
	}
	if said[0] != said[1] {
		t.Errorf("Claude was told %q behind guard; %q without it", said[1], said[0])
	}
	key, h := c.keyLike("deny.sh")
	if h == nil {
		t.Fatalf("guard recorded nothing for the policy hook: %v", c.state())
	}
	if n := totals(h, "ignored"); n != 1 || totals(h, "failures") != 0 {
		t.Errorf("%s: totals %v; want the block counted as ignored once, and no failure", key, h["totals"])
	}
}

// TestRealClaudeHookRunsBehindGuard: an ordinary hook behind guard runs
// in a real session, gets Claude Code's payload, does not stop the tool,
// and is recorded as a success.
func TestRealClaudeHookRunsBehindGuard(t *testing.T) {
	c := newRealClaude(t, "touch tool-ran; echo the tool ran", "")
	c.script("audit.sh", "#!/bin/bash\ncat > \"$CLAUDE_PROJECT_DIR/payload.json\"\n")
	c.settings(`{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "$CLAUDE_PROJECT_DIR/.claude/hooks/audit.sh", "timeout": 60}]}]}}`)
	out := c.install()
	if !strings.Contains(out, "wrapped 1 hooks") {
		t.Fatalf("guard install said:\n%s", out)
	}
	c.run()
	if !exists(filepath.Join(c.Dir, "tool-ran")) {
		t.Fatal("the Bash call did not run")
	}
	if r := c.lastResult(); r.IsError || !strings.Contains(r.Content, "the tool ran") {
		t.Errorf("tool result %+v; want the tool's output", r)
	}
	var payload struct {
		Event string `json:"hook_event_name"`
		Tool  string `json:"tool_name"`
		Input struct {
			Command string `json:"command"`
		} `json:"tool_input"`
	}
	data, err := os.ReadFile(filepath.Join(c.Dir, "payload.json"))
	if err != nil {
		t.Fatalf("the hook did not run: %v", err)
	}
	if err := json.Unmarshal(data, &payload); err != nil || payload.Event != "PreToolUse" || payload.Tool != "Bash" || payload.Input.Command != c.API.Command {
		t.Errorf("the hook got %s (%v); want Claude Code's PreToolUse payload for the Bash call", data, err)
	}
	key, h := c.keyLike("audit.sh")
	if h == nil || totals(h, "successes") != 1 {
		t.Errorf("%s: %v; want one success recorded", key, h)
	}
}

// TestRealClaudePluginHookBehindGuard (issue 31): a plugin laid out by
// hand in Claude Code's records, from a directory marketplace whose path
// holds a ' and a $, with a PreToolUse policy that exits 2: behind guard
// install --plugins it still blocks the Bash call in a real session, with
// its reason, and guard records it under the plugin's key. After an
// update of the plugin (its hooks bare again), the SessionStart hook of
// install --plugins --auto wraps them again: the next session runs them
// behind guard.
func TestRealClaudePluginHookBehindGuard(t *testing.T) {
	c := newRealClaude(t, "touch tool-ran; echo the tool ran", "")
	files := map[string]string{
		"hooks/hooks.json": `{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "\"${CLAUDE_PLUGIN_ROOT}/deny.sh\""}]}]}}`,
		"deny.sh":          "#!/bin/bash\ncat >/dev/null\necho \"Blocked by the plugin at $CLAUDE_PLUGIN_ROOT\" >&2\nexit 2\n",
	}
	market := filepath.Join(c.Home, "o'brien $HOME plugins")
	root, err := claudetest.InstallPlugin(c.Home, claudetest.Plugin{Name: "policy", Market: "local", Version: "1.0.0", Directory: market, Files: files})
	if err != nil {
		t.Fatal(err)
	}
	c.settings(`{"enabledPlugins": {"policy@local": true}}`)
	out := c.install("--plugins", "--auto")
	if !strings.Contains(out, "plugin policy@local: wrapped 1 hooks") {
		t.Fatalf("install --plugins:\n%s", out)
	}
	c.run()
	if exists(filepath.Join(c.Dir, "tool-ran")) {
		t.Fatal("the Bash call ran; the plugin's policy should have blocked it")
	}
	if r := c.lastResult(); !r.IsError || !strings.Contains(r.Content, "Blocked by the plugin at "+root) {
		t.Fatalf("tool result %+v; want the plugin's block, naming its root", r)
	}
	key, h := c.keyLike("plugin policy@local")
	if h == nil || totals(h, "ignored") != 1 {
		t.Fatalf("%s: %v; want the block recorded under the plugin's key", key, c.state())
	}

	// An update: the plugin's hooks come back bare. The session that
	// starts next wraps them again (its SessionStart hook); the one after
	// runs them behind guard.
	hooksFile := filepath.Join(root, "hooks", "hooks.json")
	if err := os.WriteFile(hooksFile, []byte(files["hooks/hooks.json"]), 0o644); err != nil {
		t.Fatal(err)
	}
	c.run()
	data, _ := os.ReadFile(hooksFile)
	if !strings.Contains(string(data), `"--name"`) {
		t.Fatalf("the SessionStart hook did not wrap the updated plugin's hooks again:\n%s", data)
	}
	c.run()
	if _, h := c.keyLike("plugin policy@local"); totals(h, "ignored") < 2 {
		t.Errorf("the session after the update did not run the plugin's hook behind guard: %v", h)
	}
}

// TestRealClaudeHangingHookTrips (issue 29 point 2, real-hooks-2 R2 and
// the appendix): a PreToolUse hook with "timeout": 3 that hangs, behind
// guard install (which hands guard its timeout: --hook-timeout 3), is
// stopped by guard before Claude Code would kill it, and recorded as a
// timeout failure; after the threshold its circuit is open, and the next
// session skips it without starting it, so the turn no longer waits for
// its timeout. Each session's tool call goes ahead, as it does when a
// hook times out without guard.
func TestRealClaudeHangingHookTrips(t *testing.T) {
	c := newRealClaude(t, "touch tool-ran; echo the tool ran", "circuit_breaker:\n  failure_threshold: 2\n  cooldown: 1h\n")
	c.script("hang.sh", "#!/bin/bash\ncat >/dev/null\necho started >> \"$CLAUDE_PROJECT_DIR/starts\"\nsleep 60\n")
	c.settings(`{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "$CLAUDE_PROJECT_DIR/.claude/hooks/hang.sh", "timeout": 3}]}]}}`)
	c.install()
	data, err := os.ReadFile(filepath.Join(c.Home, ".claude", "settings.json"))
	if err != nil || !strings.Contains(string(data), "--hook-timeout 3 ") {
		t.Fatalf("install did not hand guard the hook's timeout:\n%s", data)
	}
	starts := func() int {
		data, _ := os.ReadFile(filepath.Join(c.Dir, "starts"))
		return strings.Count(string(data), "started")
	}
	for i := 1; i <= 2; i++ {
		os.Remove(filepath.Join(c.Dir, "tool-ran"))
		c.run()
		if !exists(filepath.Join(c.Dir, "tool-ran")) {
			t.Fatalf("session %d: the Bash call did not go ahead after the hook's timeout", i)
		}
		if starts() != i {
			t.Fatalf("session %d: the hook started %d times", i, starts())
		}
		key, h := c.keyLike("hang.sh")
		if h == nil || totals(h, "failures") != i {
			t.Fatalf("session %d: %s: %v; want %d failures recorded (guard stopped the hook before Claude Code did)", i, key, h, i)
		}
		if last, _ := h["last_error"].(string); !strings.Contains(last, "timeout") && !strings.Contains(last, "timed out") {
			t.Errorf("session %d: last error %q; want a timeout", i, last)
		}
	}
	key, h := c.keyLike("hang.sh")
	if h["state"] != "open" {
		t.Fatalf("%s is %v after 2 timeouts; want open", key, h["state"])
	}
	os.Remove(filepath.Join(c.Dir, "tool-ran"))
	c.run()
	if starts() != 2 {
		t.Errorf("the open circuit's hook started again (%d starts); want it skipped", starts())
	}
	if !exists(filepath.Join(c.Dir, "tool-ran")) {
		t.Error("the Bash call did not go ahead while the hook is skipped")
	}
	if _, h := c.keyLike("hang.sh"); totals(h, "skips") != 1 {
		t.Errorf("skips %v; want the call recorded as skipped", h["totals"])
	}
}
