package guardrun

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// A fakeExec records the exec(2) calls env makes instead of replacing the
// test process.
type fakeExec struct {
	calls [][]string // each call's argv0, then argv
	envs  [][]string
}

func (f *fakeExec) exec(argv0 string, argv []string, envv []string) error {
	f.calls = append(f.calls, append([]string{argv0}, argv...))
	f.envs = append(f.envs, envv)
	return errors.New("exec refused by the test")
}

// handoffEnv is an env whose process is made up: args, environment, a
// guard-pg and guard-web found at /opt/guard, and an exec that only
// records.
func handoffEnv(args []string, vars map[string]string) (*Env, *fakeExec, *bytes.Buffer) {
	fx := &fakeExec{}
	var stderr bytes.Buffer
	e := &Env{
		Stdin:  strings.NewReader(""),
		Stdout: &bytes.Buffer{},
		Stderr: &stderr,
		Getenv: func(k string) string { return vars[k] },
		Environ: func() []string {
			var out []string
			for k, v := range vars {
				out = append(out, k+"="+v)
			}
			return out
		},
		Now:       time.Now,
		Args:      args,
		Exec:      fx.exec,
		Companion: func(name string) (string, string) { return "/opt/guard/" + name, "" },
		Exits:     true,
	}
	return e, fx, &stderr
}

// TestEarlyHandoffDecision (architecture-2 #11): the hand-over to guard-pg
// before the config is read is decided from env's arguments and
// environment, never the process's, so it is tested without a database.
func TestEarlyHandoffDecision(t *testing.T) {
	const url = "postgres://u@db/guard"
	for _, tc := range []struct {
		args []string
		vars map[string]string
		want string
	}{
		{[]string{"guard", "run", "--", "true"}, map[string]string{"GUARD_STATE": url}, url},
		{[]string{"guard", "cooldown", "hook"}, map[string]string{"GUARD_COOLDOWN_STATE": url}, url},
		{[]string{"guard", "status"}, map[string]string{"GUARD_STATE": "/tmp/s.json"}, ""},
		{[]string{"guard", "install"}, map[string]string{"GUARD_STATE": url}, ""}, // writes guard's own path
		{[]string{"guard"}, map[string]string{"GUARD_STATE": url}, ""},
		{[]string{"guard", "status", "--generate-bash-completion"}, map[string]string{"GUARD_STATE": url}, ""},
	} {
		e, _, _ := handoffEnv(tc.args, tc.vars)
		if got := e.EarlyHandoff(); got != tc.want {
			t.Errorf("%q with %v: earlyHandoff() = %q; want %q", tc.args, tc.vars, got, tc.want)
		}
	}
}

// TestHandoffExecsGuardPG (architecture-2 #11): a state in a database that
// this guard cannot open is handed to guard-pg with env's command line and
// environment, marked as handed over, once the config is read; a guard
// that was handed over to never hands over again.
func TestHandoffExecsGuardPG(t *testing.T) {
	const url = "postgres://u@db/guard"
	// Named only in the config (here --state): handed over once it is read.
	e, fx, stderr := handoffEnv([]string{"guard", "run", "--state", url, "--", "true"}, map[string]string{"HOME": t.TempDir(), "GUARD_CONFIG": "/dev/null"})
	if code := e.main(); code != 0 {
		t.Errorf("run with the exec refused: exit %d; want 0, the command run unguarded", code)
	}
	want := []string{"/opt/guard/guard-pg", "/opt/guard/guard-pg", "run", "--state", url, "--", "true"}
	if len(fx.calls) != 1 || !slices.Equal(fx.calls[0], want) {
		t.Fatalf("exec calls = %q; want one, %q", fx.calls, want)
	}
	if !slices.Contains(fx.envs[0], handedOver+"=1") || !slices.Contains(fx.envs[0], "GUARD_CONFIG=/dev/null") {
		t.Errorf("guard-pg's environment = %q; want env's, with %s=1", fx.envs[0], handedOver)
	}
	if !strings.Contains(stderr.String(), "could not be started") || !strings.Contains(stderr.String(), `running "true" unguarded`) {
		t.Errorf("stderr = %q; want why guard-pg could not be started, and the command run unguarded", stderr)
	}

	// Handed over already: no second hand-over, in a loop.
	e, fx, _ = handoffEnv([]string{"guard", "run", "--", "true"}, map[string]string{"GUARD_STATE": url, handedOver: "1", "HOME": t.TempDir()})
	e.main()
	if len(fx.calls) != 0 {
		t.Errorf("a guard handed over to exec'd %q", fx.calls)
	}
}

// TestHandsOverToGuardCLI (issue 36): guard runs guard run itself and
// hands every other command line to guard-cli, with env's command line and
// environment, marked as handed over: a command that is not guard run, a
// guard run line its own parser does not read (help, a bad flag), and a
// guard run whose config needs the full YAML reader (an anchor). A
// guard-cli that hands the line back is never handed it again.
func TestHandsOverToGuardCLI(t *testing.T) {
	dir := t.TempDir()
	plain := filepath.Join(dir, "plain.yaml")
	anchored := filepath.Join(dir, "anchored.yaml")
	os.WriteFile(plain, []byte("circuit_breaker:\n  failure_threshold: 4\n"), 0o600)
	os.WriteFile(anchored, []byte("circuit_breaker: &cb\n  failure_threshold: 4\n"), 0o600)
	vars := map[string]string{"HOME": dir, "GUARD_STATE": filepath.Join(dir, "s.json")}
	for _, tc := range []struct {
		args []string
		over bool // handed over to guard-cli
	}{
		{[]string{"guard", "status"}, true},
		{[]string{"guard"}, true},
		{[]string{"guard", "--version"}, true},
		{[]string{"guard", "cooldown", "hook"}, true},
		{[]string{"guard", "run", "--help"}, true},
		{[]string{"guard", "run", "--nope", "--", "true"}, true},
		{[]string{"guard", "run", "--config", anchored, "--", "true"}, true},
		{[]string{"guard", "run", "--config", plain, "--", "true"}, false},
		{[]string{"guard", "run", "--", "true"}, false},
	} {
		e, fx, stderr := handoffEnv(tc.args, vars)
		e.main()
		if !tc.over {
			if len(fx.calls) != 0 {
				t.Errorf("%q: exec'd %q; want guard run here", tc.args, fx.calls)
			}
			continue
		}
		want := append([]string{"/opt/guard/guard-cli", "/opt/guard/guard-cli"}, tc.args[1:]...)
		if len(fx.calls) != 1 || !slices.Equal(fx.calls[0], want) {
			t.Errorf("%q: exec calls = %q; want one, %q", tc.args, fx.calls, want)
			continue
		}
		self, _ := os.Executable()
		if !slices.Contains(fx.envs[0], handedOverCLI+"="+self) {
			t.Errorf("%q: guard-cli's environment = %q; want %s=%s, this guard", tc.args, fx.envs[0], handedOverCLI, self)
		}
		if !strings.Contains(stderr.String(), "could not be started: exec refused by the test") {
			t.Errorf("%q: stderr = %q; want why guard-cli could not be started", tc.args, stderr)
		}
	}

	// Handed back: never again.
	e, fx, stderr := handoffEnv([]string{"guard", "status"}, map[string]string{handedOverCLI: "1"})
	if code := e.main(); code != 1 || len(fx.calls) != 0 || !strings.Contains(stderr.String(), "handed it back") {
		t.Errorf("status handed back: exit %d, exec calls %q, stderr %q; want exit 1, none, and why", code, fx.calls, stderr)
	}
}

// TestWithoutGuardCLI (issue 36): without guard-cli, a command that needs
// it fails with an error that names the fix (exit 1, never 2), and a guard
// run that needs it still runs its command, unguarded, with a warning that
// says why: a hook always runs.
func TestWithoutGuardCLI(t *testing.T) {
	dir := t.TempDir()
	anchored := filepath.Join(dir, "anchored.yaml")
	os.WriteFile(anchored, []byte("circuit_breaker: &cb\n  failure_threshold: 4\n"), 0o600)
	vars := map[string]string{"HOME": dir, "GUARD_STATE": filepath.Join(dir, "s.json")}
	for _, tc := range []struct {
		args []string
		code int
		err  string
	}{
		// Under go test, guard is a binary in Go's build cache, which
		// reads as go run from a checkout (see goRun): either way the
		// error names guard-cli and the fix.
		{[]string{"guard", "status"}, 1, "guard status needs guard-cli, guard's other commands"},
		{[]string{"guard", "run", "--nope", "--", "sh", "-c", "exit 3"}, 3, "needs guard-cli"},
		{[]string{"guard", "run", "--config", anchored, "--", "sh", "-c", "exit 3"}, 3, "needs guard-cli"},
		{[]string{"guard", "run", "--nope"}, ExitUsage, "needs guard-cli"},
	} {
		e, fx, stderr := handoffEnv(tc.args, vars)
		e.Companion = func(string) (string, string) { return "", "" }
		code := e.main()
		if code != tc.code || len(fx.calls) != 0 || !strings.Contains(stderr.String(), tc.err) || !strings.Contains(stderr.String(), "make install") {
			t.Errorf("%q: exit %d, exec calls %q, stderr %q; want exit %d, none, and %q with the fix", tc.args, code, fx.calls, stderr, tc.code, tc.err)
		}
	}
}

// TestPanicRunsTheCommandUnguarded (architecture-2 #11): guard run's
// command, as env's arguments give it, is what a panic runs unguarded, and
// only while it has not started.
func TestPanicRunsTheCommandUnguarded(t *testing.T) {
	for _, tc := range []struct {
		args    []string
		started bool
		want    []string
	}{
		{[]string{"guard", "run", "--name", "k", "--", "echo", "hi"}, false, []string{"echo", "hi"}},
		{[]string{"guard", "run", "--shell", "bash", "-c", "echo hi"}, false, []string{"/bin/bash", "-c", "echo hi"}},
		{[]string{"guard", "run", "--", "echo", "hi"}, true, nil},
		{[]string{"guard", "status", "--", "echo"}, false, nil},
	} {
		e, _, _ := handoffEnv(tc.args, nil)
		e.childStarted = tc.started
		got := e.unguardedArgv()
		if len(got) > 0 && strings.HasSuffix(got[0], "bash") {
			got[0] = "/bin/bash"
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%q (started %v): unguardedArgv() = %q; want %q", tc.args, tc.started, got, tc.want)
		}
	}
}
