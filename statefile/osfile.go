package statefile

import (
	"io/fs"
	"os"
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
