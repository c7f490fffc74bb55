//go:build unix

package statefile

import (
	"io/fs"
	"os"
	"syscall"
)

// NoFollow makes OpenFile refuse a symlink at the path (ELOOP).
const NoFollow = syscall.O_NOFOLLOW

// OpenFile: see osfile.go.
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
