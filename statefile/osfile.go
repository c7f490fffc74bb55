package statefile

import (
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// OpenFile opens a regular file as os.OpenFile does, close-on-exec, but
// keeps it out of Go's network poller, which cannot wait on regular files
// anyway: os.OpenFile finds that out on every open, at the cost of five
// more system calls, and guard opens several files on every run.
func OpenFile(path string, flag int, perm os.FileMode) (*os.File, error) {
	for {
		fd, err := syscall.Open(path, flag|syscall.O_CLOEXEC, uint32(perm.Perm()))
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil, &fs.PathError{Op: "open", Path: path, Err: err}
		}
		return os.NewFile(uintptr(fd), path), nil
	}
}

// createTemp creates the temp file the caller, who holds the lock, writes
// the next version of path to: ".NAME.tmp" beside it, mode 0600, O_EXCL.
// One that exists already was left by a writer that died before its
// rename (nobody else holds the lock): it is removed and made afresh, so
// crashes leave no litter behind.
func createTemp(path string) (*os.File, error) {
	dir, base := filepath.Split(path)
	name := filepath.Join(dir, "."+base+".tmp")
	f, err := OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if os.IsExist(err) {
		if err := os.Remove(name); err != nil {
			return nil, err
		}
		f, err = OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	}
	return f, err
}

// rename renames as os.Rename does, without the extra Lstat os.Rename makes
// to give a clearer error when the target is a directory.
func rename(from, to string) error {
	if err := syscall.Rename(from, to); err != nil {
		return &os.LinkError{Op: "rename", Old: from, New: to, Err: err}
	}
	return nil
}
