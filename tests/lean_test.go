package tests

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
)

// buildLean builds guard and guard-cli as make install builds them into a
// new directory, and returns it.
func buildLean(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	goTool := filepath.Join(runtime.GOROOT(), "bin", "go")
	for _, name := range []string{"guard", "guard-cli"} {
		cmd := exec.Command(goTool, "build", "-trimpath", "-tags", "urfave_cli_no_docs", "-o", filepath.Join(dir, name), "../cmd/"+name)
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go build %s: %v\n%s", name, err, out)
		}
	}
	return dir
}

// TestLeanGuard (issue 36): the guard binary runs hooks itself, with no
// command-line parser, YAML library or shell parser linked in, and hands
// every other command line to guard-cli beside it. A closed call with the
// example config never needs guard-cli; a config outside the plain YAML
// guard reads, and every other command, go to guard-cli; without
// guard-cli, a hook still runs (unguarded, with a warning that names the
// fix) and any other command fails with that fix, never exit 2.
func TestLeanGuard(t *testing.T) {
	bin := buildLean(t)
	guard := filepath.Join(bin, "guard")
	work := t.TempDir()
	state := filepath.Join(work, "state.json")
	example, err := os.ReadFile("../guardrails.example.yaml")
	if err != nil {
		t.Fatal(err)
	}
	plain := filepath.Join(work, "example.yaml")
	os.WriteFile(plain, example, 0o644)
	// The example as a Windows editor saves it: a byte order mark and CRLF
	// line ends, which guard reads itself too.
	windows := filepath.Join(work, "windows.yaml")
	os.WriteFile(windows, append([]byte("\ufeff"), strings.ReplaceAll(string(example), "\n", "\r\n")...), 0o644)
	anchored := filepath.Join(work, "anchored.yaml")
	os.WriteFile(anchored, []byte("circuit_breaker: &cb\n  failure_threshold: 2\n"), 0o644)
	run := func(config string, args ...string) (stdout, stderr string, code int) {
		t.Helper()
		cmd := exec.Command(guard, args...)
		cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=" + work, "GUARD_STATE=" + state, "GUARD_CONFIG=" + config}
		var out, errb strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &errb
		cmd.Run()
		return out.String(), errb.String(), cmd.ProcessState.ExitCode()
	}
	successes := func(key string) int {
		t.Helper()
		var doc struct {
			Hooks map[string]struct {
				Totals struct{ Successes int } `json:"totals"`
			} `json:"hooks"`
		}
		data, _ := os.ReadFile(state)
		if err := json.Unmarshal(data, &doc); err != nil {
			t.Fatalf("state: %v\n%s", err, data)
		}
		return doc.Hooks[key].Totals.Successes
	}

	// With guard-cli beside guard.
	if out, stderr, code := run(plain, "run", "--name", "k", "--", "echo", "ran"); out != "ran\n" || stderr != "" || code != 0 {
		t.Fatalf("a closed call: %q, %q, exit %d", out, stderr, code)
	}
	if out, stderr, code := run(anchored, "run", "--name", "anchored", "--", "echo", "ran"); out != "ran\n" || stderr != "" || code != 0 || successes("anchored") != 1 {
		t.Errorf("a call whose config needs yaml.v3: %q, %q, exit %d, %d successes recorded; want it run and recorded by guard-cli", out, stderr, code, successes("anchored"))
	}
	if out, stderr, code := run(plain, "status"); code != 0 || !regexp.MustCompile(`(?m)^closed .* k +-$`).MatchString(out) {
		t.Errorf("status through guard-cli: exit %d, %q, %q", code, out, stderr)
	}
	if out, _, code := run(plain, "--version"); code != 0 || !strings.HasPrefix(out, "guard ") {
		t.Errorf("guard --version through guard-cli: exit %d, %q", code, out)
	}
	// install writes this guard into the hooks, not guard-cli, which it ran.
	settings := filepath.Join(work, "settings.json")
	os.WriteFile(settings, []byte(`{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"python3 x.py"}]}]}}`+"\n"), 0o644)
	if _, stderr, code := run(plain, "install", "--settings", settings); code != 0 {
		t.Fatalf("install: exit %d, %q", code, stderr)
	}
	if data, _ := os.ReadFile(settings); !strings.Contains(string(data), guard+" run ") || strings.Contains(string(data), "guard-cli") {
		t.Errorf("install wrote\n%s\nwant hooks that call %s", data, guard)
	}
	// A hook whose script is missing, behind sh -c: guard reads the plain
	// line itself, without the shell parser, and does not pass its 2 on.
	if _, stderr, code := run(plain, "run", "-c", "python3 "+filepath.Join(work, "missing.py")); code != 1 || !strings.Contains(stderr, "did not start") {
		t.Errorf("a hook that could not start: exit %d, %q; want 1, with the notice", code, stderr)
	}

	// Without guard-cli.
	os.Remove(filepath.Join(bin, "guard-cli"))
	before := successes("k")
	if out, stderr, code := run(plain, "run", "--name", "k", "--", "echo", "ran"); out != "ran\n" || stderr != "" || code != 0 || successes("k") != before+1 {
		t.Errorf("a closed call with the example config, without guard-cli: %q, %q, exit %d; want it run and recorded, guard-cli never needed", out, stderr, code)
	}
	if out, stderr, code := run(windows, "run", "--name", "k", "--", "echo", "ran"); out != "ran\n" || stderr != "" || code != 0 || successes("k") != before+2 {
		t.Errorf("a closed call with the example saved with CRLF and a byte order mark, without guard-cli: %q, %q, exit %d; want it run and recorded, guard-cli never needed", out, stderr, code)
	}
	for _, tc := range []struct {
		config string
		args   []string
	}{
		{anchored, []string{"run", "--name", "anchored", "--", "sh", "-c", "echo ran; exit 3"}},
		{plain, []string{"run", "--nope", "--", "sh", "-c", "echo ran; exit 3"}},
	} {
		out, stderr, code := run(tc.config, tc.args...)
		if out != "ran\n" || code != 3 || !strings.Contains(stderr, "needs guard-cli") || !strings.Contains(stderr, "make install") || !strings.Contains(stderr, "unguarded") {
			t.Errorf("%q without guard-cli: %q, %q, exit %d; want the command run unguarded, its status kept, with a warning naming the fix", tc.args, out, stderr, code)
		}
	}
	if _, stderr, code := run(plain, "status"); code != 1 || !strings.Contains(stderr, "guard status needs guard-cli") || !strings.Contains(stderr, "make install") {
		t.Errorf("status without guard-cli: exit %d, %q; want exit 1 and the fix", code, stderr)
	}
}
