package cli

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestWritableStateDirectory covers m23: a state file whose directory
// does not exist and cannot be made (its parent on a read-only
// filesystem, or a file where a directory should be), or a state path
// that is a directory, is a problem, with a fix that works.
func TestWritableStateDirectory(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "file"), nil, 0o644)
	os.Mkdir(filepath.Join(dir, "state.json"), 0o755)
	for _, c := range []struct{ path, want string }{
		{filepath.Join(dir, "new", "sub", "s.json"), ""},
		{filepath.Join(dir, "file", "sub", "s.json"), "is a file, where the state's directory"},
		{filepath.Join(dir, "state.json"), "is a directory, where guard keeps its state file"},
	} {
		got := writable(c.path)
		if c.want == "" && len(got) > 0 || c.want != "" && (len(got) != 1 || !strings.Contains(got[0].Problem, c.want)) {
			t.Errorf("writable(%s) = %+v; want %q", c.path, got, c.want)
		}
	}
	if got := writable(filepath.Join(dir, "state.json")); len(got) == 1 && strings.Contains(got[0].Fix, "set it aside") {
		t.Errorf("a directory's fix is %q: the next run refuses it", got[0].Fix)
	}

	// A read-only filesystem (root can write anywhere else).
	ro := filepath.Join(dir, "ro")
	os.Mkdir(ro, 0o755)
	if os.Geteuid() == 0 {
		if err := exec.Command("mount", "-t", "tmpfs", "-o", "ro,size=64k", "tmpfs", ro).Run(); err != nil {
			t.Skipf("cannot mount a read-only tmpfs: %v", err)
		}
		t.Cleanup(func() { exec.Command("umount", ro).Run() })
	} else {
		os.Chmod(ro, 0o555)
	}
	got := writable(filepath.Join(ro, "sub", "s.json"))
	if len(got) != 1 || !strings.Contains(got[0].Problem, "does not exist and cannot be made") {
		t.Errorf("writable(read-only/sub/s.json) = %+v; want it not writable", got)
	}
}

// TestWritableFullFilesystem covers h13 m23: a state whose filesystem is
// full passes every permission check, yet every run warns "no space left
// on device". doctor writes a few KiB there (and removes them) to see.
func TestWritableFullFilesystem(t *testing.T) {
	if os.Geteuid() != 0 {
		skipOutsideCI(t, "needs root to mount a tiny tmpfs (CI runs as root)")
	}
	dir := t.TempDir()
	if err := exec.Command("mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", dir).Run(); err != nil {
		skipOutsideCI(t, fmt.Sprintf("cannot mount a tmpfs: %v", err))
	}
	t.Cleanup(func() { exec.Command("umount", dir).Run() })
	state := filepath.Join(dir, "state.json")
	os.WriteFile(state, []byte(`{"version":1,"hooks":{}}`), 0o600)
	if got := writable(state); len(got) > 0 {
		t.Fatalf("writable on a filesystem with room = %+v; want no problem", got)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".guard-doctor-*")); len(left) > 0 {
		t.Errorf("doctor's test file was left behind: %v", left)
	}
	fill, _ := os.Create(filepath.Join(dir, "fill"))
	for {
		if _, err := fill.Write(make([]byte, 4096)); err != nil {
			break
		}
	}
	fill.Close()
	got := writable(state)
	if len(got) != 1 || !strings.Contains(got[0].Problem, "no space left on device") || !strings.Contains(got[0].Fix, "free some space") {
		t.Errorf("writable on a full filesystem = %+v; want a problem that says there is no space", got)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".guard-doctor-*")); len(left) > 0 {
		t.Errorf("doctor's test file was left behind: %v", left)
	}
}

// skipOutsideCI skips a test that needs what CI has (root, a tmpfs); in
// CI (CI set, as .ci/run does) it fails instead.
func skipOutsideCI(t *testing.T, why string) {
	t.Helper()
	if os.Getenv("CI") != "" {
		t.Fatal(why)
	}
	t.Skip(why)
}
