// Package tests holds end-to-end tests of the guard binary: testscript
// scenarios in testdata/, and tests that run many guard processes at once.
package tests

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"guard/cmd/guard/cli"
	"guard/cmd/guard/guardrun"
	"guard/config"
	_ "guard/internal/store/postgres" // the guard these tests run has the PostgreSQL driver, as guard-pg does
	"guard/internal/store/postgres/pgtest"
	"guard/internal/view/web"
)

// guardBin is the guard these tests run: this test binary, which
// testscript.Main installs on PATH as guard, running guardrun.Main, with
// guard-cli beside it, running cli.Main, which it hands every command line
// but guard run over to. (This binary links what guard-cli links, the full
// YAML reader and shell parser among them, so a guard run here reads any
// config itself: lean_test.go runs the real, lean guard.)
var guardBin string

func TestMain(m *testing.M) {
	testscript.Main(findGuard{m}, map[string]func(){
		"guard":     func() { os.Exit(guardrun.Main()) },
		"guard-cli": func() { os.Exit(cli.Main()) },
		// guard as make install builds it, without the full YAML reader
		// (lean_test.go builds the real one): a guard run whose config
		// needs yaml.v3 hands the call over to guard-cli. A script that
		// copies it alone into a directory runs it without guard-cli.
		"guard-lean": func() {
			config.RegisterYAML(nil)
			os.Exit(guardrun.Main())
		},
		// The dashboard, which guard-cli hands report --format html and
		// serve over to (found beside it, on PATH).
		"guard-web": func() {
			cli.SetWeb(web.Dashboard{})
			os.Exit(cli.Main())
		},
	})
}

// findGuard runs the tests once testscript.Main has put guard on PATH.
type findGuard struct{ m *testing.M }

func (f findGuard) Run() int {
	var err error
	if guardBin, err = exec.LookPath("guard"); err != nil {
		fmt.Fprintln(os.Stderr, "guard is not on PATH:", err)
		return 1
	}
	defer pgtest.StopShared()
	return f.m.Run()
}

func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata",
		RequireExplicitExec: true,
		Setup: func(env *testscript.Env) error {
			env.Setenv("PATH", filepath.Dir(guardBin)+string(os.PathListSeparator)+env.Getenv("PATH"))
			home := filepath.Join(env.WorkDir, "home")
			env.Setenv("HOME", home)
			env.Setenv("GUARD_STATE", filepath.Join(env.WorkDir, "state.json"))
			env.Setenv("GUARD_BIN", guardBin)
			return os.MkdirAll(home, 0o755)
		},
		Condition: func(cond string) (bool, error) {
			if cond == "root" {
				return os.Geteuid() == 0, nil
			}
			return false, fmt.Errorf("unknown condition %q", cond)
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"exitcode": cmdExitcode,
			"json":     cmdJSON,
			"elapse":   cmdElapse,
			"cooldown": cmdCooldown,

			// Linux only (guard_linux_test.go): scripts that use it skip
			// elsewhere with [!linux] skip.
			"signal-while-locked": cmdSignalWhileLocked,
			"waitfor":             cmdWaitfor,
		},
	})
}

// cmdExitcode runs a program and checks its exit status:
//
//	exitcode N PROG [ARG...]
//
// stdout and stderr are kept for the stdout and stderr commands.
func cmdExitcode(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: exitcode N PROG [ARG...]")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("exitcode: %v", err)
	}
	err = ts.Exec(args[1], args[2:]...)
	got := 0
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		got = ee.ExitCode()
	case err != nil:
		ts.Fatalf("exitcode: %v", err)
	}
	if got != want {
		ts.Fatalf("exit status %d; want %d", got, want)
	}
}

// cmdWaitfor waits until a file holds a line that matches a regular
// expression, for what guard starts detached and does not wait for
// (on_state_change): it checks every 50ms, for up to a minute, so that a
// slow machine passes, and a file that never gets the line fails.
//
//	waitfor FILE REGEXP
func cmdWaitfor(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: waitfor FILE REGEXP")
	}
	re, err := regexp.Compile("(?m)" + args[1])
	if err != nil {
		ts.Fatalf("waitfor: %v", err)
	}
	deadline := time.Now().Add(time.Minute)
	for {
		data, _ := os.ReadFile(ts.MkAbs(args[0]))
		if re.Match(data) {
			return
		}
		if time.Now().After(deadline) {
			ts.Fatalf("waitfor: no line matching %q in %s after a minute; it holds:\n%s", args[1], args[0], data)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// cmdJSON checks a value in a JSON file:
//
//	json FILE WANT KEY...
//
// The KEYs (object members, or array indexes) lead to the value, such as
// hooks "python3 lint.py" state. WANT is JSON text, compared after
// normalising both sides; WANT "missing" checks that the value does not
// exist. With !, the value must differ from WANT.
func cmdJSON(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) < 2 {
		ts.Fatalf("usage: json FILE WANT KEY...")
	}
	var doc any
	if err := json.Unmarshal([]byte(ts.ReadFile(args[0])), &doc); err != nil {
		ts.Fatalf("json: %s does not parse: %v", args[0], err)
	}
	path := args[2:]
	got, found := walkJSON(doc, path)
	if args[1] == "missing" {
		if found != neg {
			ts.Fatalf("json: %q exists: %v", path, got)
		}
		return
	}
	if !found {
		ts.Fatalf("json: %q not found in %s", path, args[0])
	}
	var want any
	if err := json.Unmarshal([]byte(args[1]), &want); err != nil {
		ts.Fatalf("json: WANT %s is not JSON: %v", args[1], err)
	}
	g, _ := json.Marshal(got)
	w, _ := json.Marshal(want)
	if (string(g) == string(w)) == neg {
		not := ""
		if neg {
			not = "not "
		}
		ts.Fatalf("json: %q = %s; want %s%s", path, g, not, w)
	}
}

// cmdElapse lets time pass for a state file, as a test clock would: every
// timestamp in it moves back by DURATION, so that a cooldown or a lease
// runs out without the test waiting for it.
//
//	elapse FILE DURATION
func cmdElapse(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: elapse FILE DURATION")
	}
	d, err := time.ParseDuration(args[1])
	if err != nil {
		ts.Fatalf("elapse: %v", err)
	}
	var doc any
	if err := json.Unmarshal([]byte(ts.ReadFile(args[0])), &doc); err != nil {
		ts.Fatalf("elapse: %s does not parse: %v", args[0], err)
	}
	var shift func(v any) any
	shift = func(v any) any {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				x[k] = shift(e)
			}
		case []any:
			for i, e := range x {
				x[i] = shift(e)
			}
		case string:
			if t, err := time.Parse(time.RFC3339, x); err == nil {
				return t.Add(-d).UTC().Format(time.RFC3339)
			}
		}
		return v
	}
	data, err := json.MarshalIndent(shift(doc), "", "  ")
	if err != nil {
		ts.Fatalf("elapse: %v", err)
	}
	if err := os.WriteFile(ts.MkAbs(args[0]), append(data, '\n'), 0o600); err != nil {
		ts.Fatalf("elapse: %v", err)
	}
}

func walkJSON(v any, path []string) (any, bool) {
	for _, part := range path {
		switch x := v.(type) {
		case map[string]any:
			var ok bool
			if v, ok = x[part]; !ok {
				return nil, false
			}
		case []any:
			i, err := strconv.Atoi(part)
			if err != nil || i < 0 || i >= len(x) {
				return nil, false
			}
			v = x[i]
		default:
			return nil, false
		}
	}
	return v, true
}

// cmdCooldown prints how long KEY's circuit was opened for
// (retry_after - disabled_at):
//
//	cooldown FILE KEY
func cmdCooldown(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: cooldown FILE KEY")
	}
	var doc struct {
		Hooks map[string]struct {
			DisabledAt time.Time `json:"disabled_at"`
			RetryAfter time.Time `json:"retry_after"`
		} `json:"hooks"`
	}
	if err := json.Unmarshal([]byte(ts.ReadFile(args[0])), &doc); err != nil {
		ts.Fatalf("cooldown: %v", err)
	}
	h, ok := doc.Hooks[args[1]]
	if !ok {
		ts.Fatalf("cooldown: no key %q", args[1])
	}
	fmt.Fprintln(ts.Stdout(), h.RetryAfter.Sub(h.DisabledAt))
}
