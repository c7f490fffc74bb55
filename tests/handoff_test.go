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

// TestGuardHandsDatabaseStatesToGuardPG: guard is built without the
// PostgreSQL driver (it would slow every call down); given a postgres://
// state it runs the same command line as guard-pg, installed beside it,
// stdin and all. Without guard-pg, it warns and runs the command
// unguarded.
func TestGuardHandsDatabaseStatesToGuardPG(t *testing.T) {
	url := pgtest.Shared(t).NewDB(t)
	dir := t.TempDir()
	goTool := filepath.Join(runtime.GOROOT(), "bin", "go")
	for _, name := range []string{"guard", "guard-pg"} {
		out, err := exec.Command(goTool, "build", "-o", filepath.Join(dir, name), "../cmd/"+name).CombinedOutput()
		if err != nil {
			t.Fatalf("go build %s: %v\n%s", name, err, out)
		}
	}
	guard := filepath.Join(dir, "guard")
	run := func(stdin string, args ...string) (string, string, error) {
		cmd := exec.Command(guard, args...)
		cmd.Env = append(os.Environ(), "GUARD_STATE="+url, "GUARD_COOLDOWN_STATE="+url, "HOME="+t.TempDir(), "GUARD_CONFIG=", "PATH=/usr/bin:/bin")
		cmd.Stdin = strings.NewReader(stdin)
		var stdout, stderr strings.Builder
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		return stdout.String(), stderr.String(), err
	}
	if out, stderr, err := run("", "run", "--name", "k", "--", "echo", "ran"); err != nil || out != "ran\n" || stderr != "" {
		t.Fatalf("guard run on a database state: %v, %q, %q", err, out, stderr)
	}
	if out, _, _ := run("", "status"); !regexp.MustCompile(`(?m)^closed +0 +- +\d+ms/\d+ms +k +-$`).MatchString(out) {
		t.Errorf("status through guard-pg:\n%s", out)
	}
	// The cooldown hook's payload reaches guard-pg unread.
	run("", "cooldown", "record", "web", "restart")
	run("", "cooldown", "record", "web", "restart")
	_, stderr, err := run(`{"hook_event_name":"PreToolUse","tool_input":{"command":"docker restart web"}}`, "cooldown", "hook")
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 || !strings.Contains(stderr, "web restart blocked") {
		t.Errorf("cooldown hook through guard-pg: %v, %q; want the spent budget to block", err, stderr)
	}

	// Without guard-pg: a warning, and the command runs unguarded.
	os.Remove(filepath.Join(dir, "guard-pg"))
	out, stderr, err := run("", "run", "--", "echo", "ran")
	if err != nil || out != "ran\n" || !strings.Contains(stderr, "guard-pg") || !strings.Contains(stderr, "unguarded") {
		t.Errorf("without guard-pg: %v, %q, %q; want the command run with a warning naming guard-pg", err, out, stderr)
	}

	// A guard-pg without the driver (guard copied under its name) is not
	// handed over to in a loop.
	data, _ := os.ReadFile(guard)
	os.WriteFile(filepath.Join(dir, "guard-pg"), data, 0o755)
	out, stderr, err = run("", "run", "--", "echo", "ran")
	if err != nil || out != "ran\n" || !strings.Contains(stderr, "guard-pg has no PostgreSQL driver either") {
		t.Errorf("with a guard-pg that has no driver: %v, %q, %q; want one hand-over, then the command run with a warning", err, out, stderr)
	}
}
