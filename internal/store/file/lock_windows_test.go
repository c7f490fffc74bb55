package file

import (
	"os"
	"path/filepath"
	"testing"

	"guard/statefile"
)

// TestLockLeavesTheContentReadable: a Windows lock is mandatory for its
// range; guard's cover a byte past the content, so a reader of a locked
// event log or slot still reads it, and a second lock is refused (issue
// 30). This runs on Windows only; CI vets it.
func TestLockLeavesTheContentReadable(t *testing.T) {
	path := filepath.Join(t.TempDir(), "events.jsonl")
	os.WriteFile(path, []byte("{}\n"), 0o600)
	f, err := statefile.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := lockFile(f); err != nil {
		t.Fatal(err)
	}
	if got, err := os.ReadFile(path); err != nil || string(got) != "{}\n" {
		t.Errorf("reading the locked file: %q, %v", got, err)
	}
	g, err := statefile.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	if ok, err := tryLockFile(g); ok || err != nil {
		t.Errorf("a second lock: %v, %v; want false, nil", ok, err)
	}
	closeLocked(f)
	if ok, err := tryLockFile(g); !ok || err != nil {
		t.Errorf("a lock after the first is released: %v, %v; want true, nil", ok, err)
	}
}

// TestLockAnAppendingHandle: the event log is opened to append, and
// LockFileEx takes only a handle that may read or write data; statefile's
// OpenFile gives an appending handle read access for it.
func TestLockAnAppendingHandle(t *testing.T) {
	path := filepath.Join(t.TempDir(), "events.jsonl")
	f, err := statefile.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	if err := lockFile(f); err != nil {
		t.Fatalf("locking a log opened to append: %v", err)
	}
	if _, err := f.Write([]byte("{}\n")); err != nil {
		t.Fatal(err)
	}
	closeLocked(f)
	if got, _ := os.ReadFile(path); string(got) != "{}\n" {
		t.Errorf("log = %q", got)
	}
}
