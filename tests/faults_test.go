//go:build linux

package tests

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// mountTmpfs mounts a tmpfs of size bytes at dir, or skips the test, with
// a message that says why, where it cannot (not root, or no mount rights).
func mountTmpfs(t *testing.T, dir string, size string) {
	t.Helper()
	if os.Geteuid() != 0 {
		skipOutsideCI(t, "SKIP: mounting a tiny tmpfs needs root; run the tests as root to cover this")
	}
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size="+size+",mode=0755"); err != nil {
		skipOutsideCI(t, fmt.Sprintf("SKIP: cannot mount a tmpfs (%v); this test needs CAP_SYS_ADMIN", err))
	}
	t.Cleanup(func() { _ = syscall.Unmount(dir, syscall.MNT_DETACH) })
}

// runGuard runs guard with the state in dir and returns its exit status
// and stderr; stdout must hold what the child printed.
func runGuard(t *testing.T, dir string, wantStdout string, args ...string) (int, string) {
	t.Helper()
	cmd := exec.Command(guardBin, args...)
	cmd.Env = append(os.Environ(), "GUARD_STATE="+filepath.Join(dir, "state.json"), "HOME="+t.TempDir(), "GUARD_CONFIG=")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	var xe *exec.ExitError
	if errors.As(err, &xe) {
		code = xe.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	if stdout.String() != wantStdout {
		t.Errorf("stdout = %q; want %q: the child did not run as it should", stdout.String(), wantStdout)
	}
	return code, stderr.String()
}

// checkOneWarning checks that guard said, in one line, that it could not
// record the outcome.
func checkOneWarning(t *testing.T, stderr string) {
	t.Helper()
	lines := strings.Split(strings.TrimSpace(stderr), "\n")
	if len(lines) != 1 || !strings.HasPrefix(lines[0], "guard: warning: could not record the outcome") {
		t.Errorf("stderr = %q; want one warning that the outcome was not recorded", stderr)
	}
}

// TestFullDiskStillRunsTheChild fills the state file's disk. The child
// must still run, its exit status must come through, guard must warn once,
// and the state file must be left as it was.
func TestFullDiskStillRunsTheChild(t *testing.T) {
	dir := t.TempDir()
	mountTmpfs(t, dir, "256k")
	if code, stderr := runGuard(t, dir, "before\n", "run", "--", "sh", "-c", "echo before"); code != 0 || stderr != "" {
		t.Fatalf("guard on a disk with room: exit %d, %q", code, stderr)
	}
	before, _ := os.ReadFile(filepath.Join(dir, "state.json"))

	// Fill what is left.
	fill, err := os.Create(filepath.Join(dir, "fill"))
	if err != nil {
		t.Fatal(err)
	}
	chunk := make([]byte, 4096)
	for {
		if _, err := fill.Write(chunk); err != nil {
			break
		}
	}
	fill.Close()

	code, stderr := runGuard(t, dir, "hi\n", "run", "--", "sh", "-c", "echo hi; exit 3")
	if code != 3 {
		t.Errorf("exit status %d; want the child's 3", code)
	}
	checkOneWarning(t, stderr)
	after, _ := os.ReadFile(filepath.Join(dir, "state.json"))
	if !bytes.Equal(before, after) {
		t.Errorf("the state file changed on a full disk:\n%s\nwas\n%s", after, before)
	}
	if tmps, _ := filepath.Glob(filepath.Join(dir, ".state.json.tmp*")); len(tmps) != 0 {
		t.Errorf("temp files left behind: %v", tmps)
	}
	// doctor says so, rather than that the state is writable (h13 m23).
	doc := exec.Command(guardBin, "doctor")
	doc.Env = append(os.Environ(), "GUARD_STATE="+filepath.Join(dir, "state.json"), "HOME="+t.TempDir(), "GUARD_CONFIG=")
	if out, _ := doc.CombinedOutput(); !strings.Contains(string(out), "no space left on device") || strings.Contains(string(out), "readable and writable") {
		t.Errorf("guard doctor on a full disk:\n%s\nwant a problem that says there is no space", out)
	}

	// Room again: guard records again.
	os.Remove(filepath.Join(dir, "fill"))
	if code, stderr := runGuard(t, dir, "", "run", "--", "true"); code != 0 || stderr != "" {
		t.Errorf("guard after space came back: exit %d, %q", code, stderr)
	}
}

// TestReadOnlyStateDirStillRunsTheChild makes the state directory read-only
// (a read-only mount as root, else its mode). The child must still run,
// its exit status must come through, and guard must warn once.
func TestReadOnlyStateDirStillRunsTheChild(t *testing.T) {
	dir := t.TempDir()
	root := os.Geteuid() == 0
	if root {
		mountTmpfs(t, dir, "1m")
	}
	if code, stderr := runGuard(t, dir, "", "run", "--", "true"); code != 0 || stderr != "" {
		t.Fatalf("guard on a writable directory: exit %d, %q", code, stderr)
	}
	before, _ := os.ReadFile(filepath.Join(dir, "state.json"))
	if root {
		if err := syscall.Mount("", dir, "", syscall.MS_REMOUNT|syscall.MS_RDONLY, ""); err != nil {
			t.Fatalf("cannot remount read-only: %v", err)
		}
	} else {
		os.Chmod(dir, 0o500)
		t.Cleanup(func() { os.Chmod(dir, 0o700) })
	}

	code, stderr := runGuard(t, dir, "hi\n", "run", "--", "sh", "-c", "echo hi; exit 5")
	if code != 5 {
		t.Errorf("exit status %d; want the child's 5", code)
	}
	checkOneWarning(t, stderr)
	after, _ := os.ReadFile(filepath.Join(dir, "state.json"))
	if !bytes.Equal(before, after) {
		t.Errorf("the state file changed in a read-only directory")
	}
}
