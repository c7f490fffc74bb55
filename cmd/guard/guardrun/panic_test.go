package guardrun

import (
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestPanicIsNoBlock: a panic in guard exits 1, never Go's 2, which Claude
// Code would read as the hook's deliberate block.
func TestPanicIsNoBlock(t *testing.T) {
	if os.Getenv("GUARD_TEST_PANIC") == "1" {
		e := &Env{Stderr: os.Stderr}
		defer e.RecoverPanic()
		panic("boom")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestPanicIsNoBlock$")
	cmd.Env = append(os.Environ(), "GUARD_TEST_PANIC=1")
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 || !strings.Contains(string(out), "guard: internal error, please report it: boom") {
		t.Errorf("a panic exited %v with %q; want exit 1 and the internal error", err, out)
	}
}

// TestPanicAfterThePayloadGivesItBack: a guard run that panics after it
// read the hook's payload off stdin (for a skip's notice, say) runs the
// command unguarded with that payload in front of the rest of stdin, not
// without it, which a hook that reads it would take for an empty call
// (review of a4ab1a1).
func TestPanicAfterThePayloadGivesItBack(t *testing.T) {
	if os.Getenv("GUARD_TEST_PANIC") == "payload" {
		e := ProcessEnv()
		e.Args = []string{"guard", "run", "--", "sh", "-c", "cat; exit 5"}
		e.Getenv = func(k string) string {
			if k == "CLAUDE_PROJECT_DIR" {
				return "/p"
			}
			return os.Getenv(k)
		}
		defer e.RecoverPanic()
		e.payload()
		panic("boom")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestPanicAfterThePayloadGivesItBack$")
	cmd.Env = append(os.Environ(), "GUARD_TEST_PANIC=payload")
	cmd.Stdin = strings.NewReader(`{"hook_event_name":"PreToolUse"}` + "\nrest\n")
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 5 || !strings.Contains(string(out), `{"hook_event_name":"PreToolUse"}`+"\nrest\n") {
		t.Errorf("a panic after the payload was read exited %v with %q; want the command's 5, and all of stdin", err, out)
	}
}
