package tests

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"guard/internal/store/postgres/pgtest"
)

// TestInstallWithDatabaseStateRunsOnce covers m19 and m18 on PostgreSQL:
// install moves a hook off the Python wrapper and its state with it,
// handing itself over to guard-pg before it rewrites settings.json, so it
// runs once and prints one summary, the state's included; uninstall gives
// the hook back, and its state back to the wrapper's key.
func TestInstallWithDatabaseStateRunsOnce(t *testing.T) {
	url := pgtest.Shared(t).NewDB(t)
	dir := t.TempDir()
	goTool := filepath.Join(runtime.GOROOT(), "bin", "go")
	for _, name := range []string{"guard", "guard-cli", "guard-pg"} {
		out, err := exec.Command(goTool, "build", "-o", filepath.Join(dir, name), "../cmd/"+name).CombinedOutput()
		if err != nil {
			t.Fatalf("go build %s: %v\n%s", name, err, out)
		}
	}
	guard := filepath.Join(dir, "guard")
	home := t.TempDir()
	settings := filepath.Join(home, ".claude", "settings.json")
	os.MkdirAll(filepath.Dir(settings), 0o755)
	original := `{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"uv run ~/.claude/hooks/circuit_breaker_wrapper.py -- python3 ~/.claude/hooks/x.py"}]}]}}` + "\n"
	os.WriteFile(settings, []byte(original), 0o644)
	run := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(guard, args...)
		cmd.Env = append(os.Environ(), "GUARD_STATE="+url, "HOME="+home, "GUARD_CONFIG=", "PATH=/usr/bin:/bin")
		cmd.Dir = home
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("guard %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	run("trip", "x", "--reason", "broken")

	out := run("install", "--binary", guard)
	for _, want := range []string{`(?m)^wrapped 1 hooks in `, `(?m)^  Stop: python3 ~/\.claude/hooks/x\.py \(moved from the Python wrapper\)$`,
		`(?m)^state of the Python wrapper's hooks, in `, `(?m)^  "x" -> python3 ~/\.claude/hooks/x\.py$`} {
		if !regexp.MustCompile(want).MatchString(out) {
			t.Errorf("install printed\n%s\nwant it to match %s", out, want)
		}
	}
	if strings.Count(out, "hooks in ") != 1 || strings.Contains(out, "nothing to install") {
		t.Errorf("install ran twice:\n%s", out)
	}
	if st := run("status"); !regexp.MustCompile(`(?m)^open .*python3 ~/\.claude/hooks/x\.py`).MatchString(st) {
		t.Errorf("after install, status:\n%s\nwant the moved hook's circuit open", st)
	}

	out = run("uninstall")
	if !regexp.MustCompile(`(?m)^  python3 ~/\.claude/hooks/x\.py -> "x"$`).MatchString(out) || strings.Count(out, "hooks in ") != 1 {
		t.Errorf("uninstall printed\n%s\nwant the state moved back, once", out)
	}
	if data, _ := os.ReadFile(settings); string(data) != original {
		t.Errorf("after uninstall, settings.json:\n%s", data)
	}
	if st := run("status"); !regexp.MustCompile(`(?m)^open .* x +`).MatchString(st) {
		t.Errorf("after uninstall, status:\n%s\nwant the wrapper's key open again", st)
	}
}
