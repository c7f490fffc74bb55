package cli

import (
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
