package atomicfile

import (
	"io"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/windows"
)

// openShared opens path for reading as guard's readers do on Windows
// (statefile.OpenFile, internal/safeopen): with FILE_SHARE_DELETE.
func openShared(t *testing.T, path string) *os.File {
	t.Helper()
	p, _ := windows.UTF16PtrFromString(path)
	h, err := windows.CreateFile(p, windows.GENERIC_READ,
		windows.FILE_SHARE_READ|windows.FILE_SHARE_WRITE|windows.FILE_SHARE_DELETE, nil, windows.OPEN_EXISTING, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	return os.NewFile(uintptr(h), path)
}

// TestReplaceWhileAReaderHoldsTheOldFile: on Windows a rename over a file
// another process has open fails unless the rename has POSIX semantics and
// the reader shares delete; guard's do, so a reader never makes a writer
// fail, and it goes on reading the old file (issue 30). This runs on
// Windows only; CI vets it.
func TestReplaceWhileAReaderHoldsTheOldFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.json")
	if err := WriteFile(path, []byte("old"), 0o600, nil); err != nil {
		t.Fatal(err)
	}
	r := openShared(t, path)
	defer r.Close()
	if err := Replace(path, [][]byte{[]byte("new")}, Options{Locked: true}); err != nil {
		t.Fatalf("Replace with a reader holding the old file: %v", err)
	}
	if got, _ := io.ReadAll(r); string(got) != "old" {
		t.Errorf("the reader reads %q; want the old file, %q", got, "old")
	}
	if got, _ := os.ReadFile(path); string(got) != "new" {
		t.Errorf("the file is %q; want %q", got, "new")
	}
}

// TestRenameInfoLayout: FILE_RENAME_INFO's name starts at byte 20 on
// amd64 (a 4-byte union, a handle aligned to 8, a 4-byte length), as
// SetFileInformationByHandle reads it.
func TestRenameInfoLayout(t *testing.T) {
	var info fileRenameInfo
	if got := unsafeOffsetofFileName(&info); got != 20 {
		t.Errorf("FileName at %d; want 20", got)
	}
}

// TestReplaceReadOnly: a read-only file is replaced, as rename(2) replaces
// a file of mode 0444 on Unix, and the new one is read-only too (issue
// 30). This runs on Windows only; CI vets it.
func TestReplaceReadOnly(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.json")
	if err := WriteFile(path, []byte("old"), 0o400, nil); err != nil {
		t.Fatal(err)
	}
	if err := Replace(path, [][]byte{[]byte("new")}, Options{Locked: true}); err != nil {
		t.Fatalf("Replace of a read-only file: %v", err)
	}
	if got, _ := os.ReadFile(path); string(got) != "new" {
		t.Errorf("the file is %q; want %q", got, "new")
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm()&0o200 != 0 {
		t.Errorf("the new file is not read-only: %v %v", fi.Mode(), err)
	}
}
