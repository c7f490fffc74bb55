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
