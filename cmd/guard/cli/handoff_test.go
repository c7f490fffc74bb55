package cli

import (
	"bytes"
	"errors"
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
func handoffEnv(args []string, vars map[string]string) (*env, *fakeExec, *bytes.Buffer) {
	fx := &fakeExec{}
	var stderr bytes.Buffer
	e := &env{
		stdin:  strings.NewReader(""),
		stdout: &bytes.Buffer{},
		stderr: &stderr,
		getenv: func(k string) string { return vars[k] },
		environ: func() []string {
			var out []string
			for k, v := range vars {
				out = append(out, k+"="+v)
			}
			return out
		},
		now:       time.Now,
		args:      args,
		exec:      fx.exec,
		companion: func(name string) (string, string) { return "/opt/guard/" + name, "" },
		exits:     true,
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
		if got := e.earlyHandoff(); got != tc.want {
			t.Errorf("%q with %v: earlyHandoff() = %q; want %q", tc.args, tc.vars, got, tc.want)
		}
	}
}

// TestHandoffExecsGuardPG (architecture-2 #11): a state in a database that
// this guard cannot open is handed to guard-pg with env's command line and
// environment, marked as handed over; a guard that was handed over to
// never hands over again.
func TestHandoffExecsGuardPG(t *testing.T) {
	const url = "postgres://u@db/guard"
	// Named only in the config: handed over once the config is read.
	e, fx, stderr := handoffEnv([]string{"guard", "status", "--state", url}, map[string]string{"HOME": t.TempDir(), "GUARD_CONFIG": "/dev/null"})
	if code := e.main(e.args); code != 1 {
		t.Errorf("status with the exec refused: exit %d; want 1", code)
	}
	want := []string{"/opt/guard/guard-pg", "/opt/guard/guard-pg", "status", "--state", url}
	if len(fx.calls) != 1 || !slices.Equal(fx.calls[0], want) {
		t.Fatalf("exec calls = %q; want one, %q", fx.calls, want)
	}
	if !slices.Contains(fx.envs[0], handedOver+"=1") || !slices.Contains(fx.envs[0], "GUARD_CONFIG=/dev/null") {
		t.Errorf("guard-pg's environment = %q; want env's, with %s=1", fx.envs[0], handedOver)
	}
	if !strings.Contains(stderr.String(), "could not be started: exec refused by the test") {
		t.Errorf("stderr = %q; want why guard-pg could not be started", stderr)
	}

	// Handed over already: no second hand-over, in a loop.
	e, fx, _ = handoffEnv([]string{"guard", "status"}, map[string]string{"GUARD_STATE": url, handedOver: "1"})
	e.main(e.args)
	if len(fx.calls) != 0 {
		t.Errorf("a guard handed over to exec'd %q", fx.calls)
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
