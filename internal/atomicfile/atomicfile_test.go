package atomicfile

import (
	"os"
	"path/filepath"
	"testing"
)

func TestWriteFileReplacesAndKeepsMode(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "settings.json")
	if err := WriteFile(p, []byte("one"), 0o640, nil); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(p, []byte("two"), 0o600, nil); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(p)
	fi, _ := os.Stat(p)
	if string(data) != "two" || fi.Mode().Perm() != 0o640 {
		t.Errorf("file = %q, mode %v; want the new bytes and the first mode kept", data, fi.Mode().Perm())
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".settings.json.tmp-*")); len(left) != 0 {
		t.Errorf("temp files left: %v", left)
	}
	// Through a symlink, the target is replaced and the link stays.
	link := filepath.Join(dir, "link.json")
	os.Symlink(p, link)
	if err := WriteFile(link, []byte("three"), 0o600, nil); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Lstat(link); fi.Mode()&os.ModeSymlink == 0 {
		t.Error("the link was replaced by a file")
	}
	if data, _ := os.ReadFile(p); string(data) != "three" {
		t.Errorf("target = %q", data)
	}
}

func TestFreePath(t *testing.T) {
	p := filepath.Join(t.TempDir(), "x.bak")
	if got := FreePath(p); got != p {
		t.Errorf("FreePath of a free name = %q", got)
	}
	os.WriteFile(p, nil, 0o600)
	os.WriteFile(p+"-2", nil, 0o600)
	if got := FreePath(p); got != p+"-3" {
		t.Errorf("FreePath = %q; want %q", got, p+"-3")
	}
}
