package tests

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// A sandbox is a directory with its own state file and config, for tests
// that start guard processes themselves.
type sandbox struct {
	t   *testing.T
	dir string
	env []string
}

func newSandbox(t *testing.T, config string) *sandbox {
	t.Helper()
	dir := t.TempDir()
	sb := &sandbox{t: t, dir: dir}
	cfg := filepath.Join(dir, "guardrails.yaml")
	if err := os.WriteFile(cfg, []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	sb.env = append(os.Environ(),
		"GUARD_STATE="+filepath.Join(dir, "state.json"),
		"GUARD_CONFIG="+cfg,
		"HOME="+dir,
		"CLAUDE_PROJECT_DIR=",
		// These tests count what many processes did: a loaded machine must
		// not turn a slow lock into a call run unguarded.
		"GUARDRAILS_LOCK_TIMEOUT=2m",
	)
	return sb
}

func (sb *sandbox) path(name string) string { return filepath.Join(sb.dir, name) }

// command returns a guard command running in the sandbox.
func (sb *sandbox) command(args ...string) *exec.Cmd {
	cmd := exec.Command(guardBin, args...)
	cmd.Dir = sb.dir
	cmd.Env = sb.env
	return cmd
}

// guard runs guard to the end and returns its exit status and output.
func (sb *sandbox) guard(args ...string) (int, string, string) {
	sb.t.Helper()
	var stdout, stderr bytes.Buffer
	cmd := sb.command(args...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		return ee.ExitCode(), stdout.String(), stderr.String()
	case err != nil:
		sb.t.Fatalf("guard %q: %v", args, err)
	}
	return 0, stdout.String(), stderr.String()
}

// hook returns the state file's entry for key.
func (sb *sandbox) hook(key string) map[string]any {
	sb.t.Helper()
	var doc struct {
		Hooks map[string]map[string]any `json:"hooks"`
	}
	data, err := os.ReadFile(sb.path("state.json"))
	if err != nil {
		sb.t.Fatal(err)
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		sb.t.Fatalf("state file does not parse: %v", err)
	}
	return doc.Hooks[key]
}

func totals(h map[string]any, name string) int {
	t, _ := h["totals"].(map[string]any)
	n, _ := t[name].(float64)
	return int(n)
}

// waitFor polls until cond holds. It has no deadline of its own: the test's
// -timeout bounds it, so a slow machine only makes the test slower.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	start := time.Now()
	for !cond() {
		if time.Since(start) > 2*time.Minute {
			t.Fatalf("still waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// skipOutsideCI skips t with why, except in CI (CI set, as .ci/run sets
// it), which runs as root and must run every test: there it fails.
func skipOutsideCI(t *testing.T, why string) {
	t.Helper()
	if os.Getenv("CI") != "" {
		t.Fatal(why)
	}
	t.Skip(why)
}
