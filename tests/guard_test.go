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
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

// guardBin is the guard binary built for these tests.
var guardBin string

// touchSources reads every Go source file of the module, so that go test's
// cache, which watches the files a test opens, reruns these tests when the
// code of the binary they build changes.
func touchSources() {
	filepath.WalkDir("..", func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && (filepath.Ext(path) == ".go" || d.Name() == "go.mod" || filepath.Base(filepath.Dir(path)) == "completion") {
			os.ReadFile(path)
		}
		return nil
	})
}

// TestBuildInputs records the binary's sources as inputs of this package's
// tests (the go test cache only watches files opened while tests run).
func TestBuildInputs(t *testing.T) { touchSources() }

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "guard-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	guardBin = filepath.Join(dir, "guard")
	goTool := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := os.Stat(goTool); err != nil {
		goTool = "go"
	}
	build := exec.Command(goTool, "build", "-o", guardBin, "../cmd/guard")
	build.Stdout, build.Stderr = os.Stdout, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "cannot build guard:", err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
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
			"cooldown": cmdCooldown,
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
