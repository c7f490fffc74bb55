//go:build unix

package safeopen

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestOpenNeverWaits covers hostile-user-3 M5: a FIFO (with no writer, so
// that open(2) would wait for ever), a character device, a directory and
// a socket are refused at once with an error that says what they are; a
// regular file, and a link to one, are read.
func TestOpenNeverWaits(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.yaml")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	regular := filepath.Join(dir, "guardrails.yaml")
	os.WriteFile(regular, []byte("notice: auto\n"), 0o600)
	link := filepath.Join(dir, "link.yaml")
	os.Symlink(regular, link)
	fifoLink := filepath.Join(dir, "fifo-link.yaml")
	os.Symlink(fifo, fifoLink)

	for _, tc := range []struct {
		path, want string // want: the refusal's words, or "" for a read
	}{
		{fifo, "is a FIFO, not a regular file"},
		{fifoLink, "is a FIFO, not a regular file"},
		{"/dev/zero", "is a character device, not a regular file"},
		{"/dev/null", "-"}, // the one device: read as empty
		{"/dev/tty", ""},   // may not exist here; if it opens, it is refused
		{dir, "is a directory, not a regular file"},
		{regular, ""},
		{link, ""},
	} {
		done := make(chan error, 1)
		var data []byte
		go func() {
			var err error
			data, err = ReadFile(tc.path)
			done <- err
		}()
		var err error
		select {
		case err = <-done:
		case <-time.After(time.Minute):
			t.Fatalf("ReadFile(%s) still waiting a minute later", tc.path)
		}
		switch {
		case tc.path == "/dev/tty":
			if err == nil {
				t.Errorf("ReadFile(/dev/tty) read %q", data)
			}
		case tc.want == "-":
			if err != nil || len(data) != 0 {
				t.Errorf("ReadFile(%s) = %q, %v; want nothing", tc.path, data, err)
			}
		case tc.want == "":
			if err != nil || string(data) != "notice: auto\n" {
				t.Errorf("ReadFile(%s) = %q, %v", tc.path, data, err)
			}
		default:
			if !errors.Is(err, ErrNotRegular) || !strings.HasSuffix(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), tc.path) {
				t.Errorf("ReadFile(%s) = %v; want %q", tc.path, err, tc.path+" "+tc.want)
			}
		}
	}
	if _, err := ReadFile(filepath.Join(dir, "missing")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("ReadFile(missing) = %v; want fs.ErrNotExist", err)
	}
}

// TestReadFileReadsAll: what ReadFile reads is the file, whatever its
// size, and a file that reads as empty in stat (/proc's) is read too.
func TestReadFileReadsAll(t *testing.T) {
	path := filepath.Join(t.TempDir(), "big")
	want := strings.Repeat("0123456789abcdef", 100000)
	os.WriteFile(path, []byte(want), 0o600)
	if got, err := ReadFile(path); err != nil || string(got) != want {
		t.Errorf("ReadFile = %d bytes, %v; want %d", len(got), err, len(want))
	}
	if _, err := os.Stat("/proc/self/stat"); err == nil {
		if got, err := ReadFile("/proc/self/stat"); err != nil || len(got) == 0 {
			t.Errorf("ReadFile(/proc/self/stat) = %q, %v", got, err)
		}
	}
}
