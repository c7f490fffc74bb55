package statefile

import (
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
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

// createTemp creates a new file in dir, mode 0600, named prefix and a
// random number, as os.CreateTemp does (O_EXCL).
func createTemp(dir, prefix string) (*os.File, error) {
	for try := 0; ; try++ {
		name := filepath.Join(dir, prefix+strconv.FormatUint(uint64(rand.Uint32()), 10))
		f, err := OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
		if os.IsExist(err) && try < 10000 {
			continue
		}
		return f, err
	}
}

// rename renames as os.Rename does, without the extra Lstat os.Rename makes
// to give a clearer error when the target is a directory.
func rename(from, to string) error {
	if err := syscall.Rename(from, to); err != nil {
		return &os.LinkError{Op: "rename", Old: from, New: to, Err: err}
	}
	return nil
}
