package tests

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

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
	for _, name := range []string{"guard", "guard-cli", "guard-pg"} {
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
	if out, _, _ := run("", "status"); !regexp.MustCompile(`(?m)^closed +0/3 +- +\d+ms/\d+ms +k +-$`).MatchString(out) {
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
	// handed over to at all.
	data, _ := os.ReadFile(guard)
	os.WriteFile(filepath.Join(dir, "guard-pg"), data, 0o755)
	out, stderr, err = run("", "run", "--", "echo", "ran")
	if err != nil || out != "ran\n" || !strings.Contains(stderr, "guard-pg not used: "+filepath.Join(dir, "guard-pg")+" is guard/cmd/guard, not guard/cmd/guard-pg") {
		t.Errorf("with a guard-pg that has no driver: %v, %q, %q; want the command run with a warning", err, out, stderr)
	}
}

// TestHandoffTrustsOnlyItsOwnGuardPG covers hostile-user-2 m10: guard hands
// a database state over only to guard-pg of its own build, beside it or on
// PATH. Anything else of that name (a script that exits 2, a guard-pg of
// another build) is not run: guard warns and runs the hook unguarded, with
// the hook's own status.
func TestHandoffTrustsOnlyItsOwnGuardPG(t *testing.T) {
	dir, pathDir, otherDir := t.TempDir(), t.TempDir(), t.TempDir()
	goTool := filepath.Join(runtime.GOROOT(), "bin", "go")
	for _, b := range []struct{ out, pkg string }{
		{filepath.Join(dir, "guard"), "../cmd/guard"},
		{filepath.Join(otherDir, "guard-pg"), "../cmd/guard-pg"},
	} {
		args := []string{"build", "-o", b.out, b.pkg}
		if b.out == filepath.Join(otherDir, "guard-pg") {
			// another build: another stamped version
			args = []string{"build", "-ldflags=-X guard/cmd/guard/cli.version=v0.0.0-other", "-o", b.out, b.pkg}
		}
		if out, err := exec.Command(goTool, args...).CombinedOutput(); err != nil {
			t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	other, _ := os.ReadFile(filepath.Join(otherDir, "guard-pg"))
	stranger := []byte("#!/bin/sh\necho stranger ran\nexit 2\n")
	run := func(args ...string) (string, string, int) {
		cmd := exec.Command(filepath.Join(dir, "guard"), args...)
		cmd.Env = append(os.Environ(), "GUARD_STATE=postgres://127.0.0.1:1/guard?sslmode=disable&connect_timeout=1",
			"HOME="+t.TempDir(), "GUARD_CONFIG=", "PATH="+pathDir+":/usr/bin:/bin")
		var stdout, stderr strings.Builder
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		cmd.Run()
		return stdout.String(), stderr.String(), cmd.ProcessState.ExitCode()
	}
	for _, tc := range []struct {
		name         string
		beside, path []byte
	}{
		{"a script beside guard", stranger, nil},
		{"a script on PATH", nil, stranger},
		{"a script beside guard and on PATH", stranger, stranger},
		{"another build beside guard", other, nil},
		{"another build on PATH", nil, other},
	} {
		os.Remove(filepath.Join(dir, "guard-pg"))
		os.Remove(filepath.Join(pathDir, "guard-pg"))
		if tc.beside != nil {
			os.WriteFile(filepath.Join(dir, "guard-pg"), tc.beside, 0o755)
		}
		if tc.path != nil {
			os.WriteFile(filepath.Join(pathDir, "guard-pg"), tc.path, 0o755)
		}
		for _, status := range []string{"0", "3"} {
			out, stderr, code := run("run", "-c", "echo hook ran; exit "+status)
			if out != "hook ran\n" || strconv.Itoa(code) != status || !strings.Contains(stderr, "guard: warning: guard-pg not used: ") || !strings.Contains(stderr, "unguarded") {
				t.Errorf("%s: guard run exited %d, stdout %q, stderr %q; want the hook run unguarded (exit %s) with a warning", tc.name, code, out, stderr, status)
			}
		}
	}
}

// TestHandoffTrustsOnlyItsOwnGuardWeb covers h13 m10: guard hands report
// --format html and serve over only to guard-web of its own build, beside
// it or on PATH, as it hands a database state to guard-pg. Anything else
// of that name (a script that exits 2, a guard-web of another build, a
// copy of guard) is not run: a clear error, exit 1, never 2.
func TestHandoffTrustsOnlyItsOwnGuardWeb(t *testing.T) {
	dir, pathDir, otherDir := t.TempDir(), t.TempDir(), t.TempDir()
	goTool := filepath.Join(runtime.GOROOT(), "bin", "go")
	for _, b := range []struct{ out, pkg, ldflags string }{
		{filepath.Join(dir, "guard"), "../cmd/guard", ""},
		{filepath.Join(dir, "guard-cli"), "../cmd/guard-cli", ""}, // which guard hands report and serve to
		{filepath.Join(dir, "guard-web.ours"), "../cmd/guard-web", ""},
		{filepath.Join(otherDir, "guard-web"), "../cmd/guard-web", "-X guard/cmd/guard/cli.version=v0.0.0-other"},
	} {
		args := []string{"build", "-ldflags=" + b.ldflags, "-o", b.out, b.pkg}
		if out, err := exec.Command(goTool, args...).CombinedOutput(); err != nil {
			t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	ours, _ := os.ReadFile(filepath.Join(dir, "guard-web.ours"))
	other, _ := os.ReadFile(filepath.Join(otherDir, "guard-web"))
	self, _ := os.ReadFile(filepath.Join(dir, "guard"))
	stranger := []byte("#!/bin/sh\necho stranger ran\nexit 2\n")
	run := func(args ...string) (string, string, int) {
		// A guard-web that serves is stopped, and fails the test.
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, filepath.Join(dir, "guard"), args...)
		cmd.Env = append(os.Environ(), "GUARD_STATE="+filepath.Join(t.TempDir(), "s.json"),
			"HOME="+t.TempDir(), "GUARD_CONFIG=", "PATH="+pathDir+":/usr/bin:/bin")
		var stdout, stderr strings.Builder
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		cmd.Run()
		return stdout.String(), stderr.String(), cmd.ProcessState.ExitCode()
	}
	for _, tc := range []struct {
		name         string
		beside, path []byte
		ok           bool
	}{
		{"a script beside guard", stranger, nil, false},
		{"a script on PATH", nil, stranger, false},
		{"a script beside guard and on PATH", stranger, stranger, false},
		{"another build beside guard", other, nil, false},
		{"another build on PATH", nil, other, false},
		{"a copy of guard beside it", self, nil, false},
		{"ours beside guard", ours, nil, true},
		{"ours on PATH, a script beside guard", stranger, ours, true},
	} {
		os.Remove(filepath.Join(dir, "guard-web"))
		os.Remove(filepath.Join(pathDir, "guard-web"))
		if tc.beside != nil {
			os.WriteFile(filepath.Join(dir, "guard-web"), tc.beside, 0o755)
		}
		if tc.path != nil {
			os.WriteFile(filepath.Join(pathDir, "guard-web"), tc.path, 0o755)
		}
		out, stderr, code := run("report", "--format", "html")
		if tc.ok {
			if code != 0 || !strings.HasPrefix(out, "<!DOCTYPE html>") {
				t.Errorf("%s: report --format html exited %d, stderr %q; want the page", tc.name, code, stderr)
			}
			continue
		}
		if code != 1 || strings.Contains(out+stderr, "stranger ran") || !strings.Contains(stderr, "guard report --format html: guard-web not used: ") {
			t.Errorf("%s: report --format html exited %d, stdout %q, stderr %q; want exit 1 with an error, guard-web not run", tc.name, code, out, stderr)
		}
		_, stderr, code = run("serve", "--listen", "127.0.0.1:0")
		if code != 1 || strings.Contains(stderr, "stranger ran") || !strings.Contains(stderr, "guard serve: guard-web not used: ") {
			t.Errorf("%s: serve exited %d, stderr %q; want exit 1 with an error, guard-web not run", tc.name, code, stderr)
		}
	}
}
