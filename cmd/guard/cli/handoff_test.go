package cli

import (
	"bytes"
	"errors"
	"guard/cmd/guard/guardrun"
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
	e := &env{Env: guardrun.Env{
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
	}}
	return e, fx, &stderr
}

// TestHandoffExecsGuardPG (architecture-2 #11): a state in a database that
// guard-cli cannot open is handed to guard-pg with env's command line and
// environment, marked as handed over; a guard that was handed over to
// never hands over again.
func TestHandoffExecsGuardPG(t *testing.T) {
	const url = "postgres://u@db/guard"
	// Named only in the config: handed over once the config is read.
	e, fx, stderr := handoffEnv([]string{"guard", "status", "--state", url}, map[string]string{"HOME": t.TempDir(), "GUARD_CONFIG": "/dev/null"})
	if code := e.main(e.Args); code != 1 {
		t.Errorf("status with the exec refused: exit %d; want 1", code)
	}
	want := []string{"/opt/guard/guard-pg", "/opt/guard/guard-pg", "status", "--state", url}
	if len(fx.calls) != 1 || !slices.Equal(fx.calls[0], want) {
		t.Fatalf("exec calls = %q; want one, %q", fx.calls, want)
	}
	if !slices.Contains(fx.envs[0], "GUARD_HANDED_OVER=1") || !slices.Contains(fx.envs[0], "GUARD_CONFIG=/dev/null") {
		t.Errorf("guard-pg's environment = %q; want env's, with GUARD_HANDED_OVER=1", fx.envs[0])
	}
	if !strings.Contains(stderr.String(), "could not be started: exec refused by the test") {
		t.Errorf("stderr = %q; want why guard-pg could not be started", stderr)
	}

	// Handed over already: no second hand-over, in a loop.
	e, fx, _ = handoffEnv([]string{"guard", "status"}, map[string]string{"GUARD_STATE": url, "GUARD_HANDED_OVER": "1"})
	e.main(e.Args)
	if len(fx.calls) != 0 {
		t.Errorf("a guard handed over to exec'd %q", fx.calls)
	}
}
