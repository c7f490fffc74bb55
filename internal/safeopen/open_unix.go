//go:build unix

package safeopen

import (
	"io/fs"
	"os"

	"golang.org/x/sys/unix"
)

// open opens with O_NONBLOCK, so that a FIFO with no writer cannot hang
// open(2), checks the file's type on the descriptor it got (not on the
// path, which may be replaced meanwhile), and clears O_NONBLOCK again.
func open(name string) (*os.File, error) {
	var fd int
	var err error
	for {
		fd, err = unix.Open(name, unix.O_RDONLY|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
		if err != unix.EINTR {
			break
		}
	}
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		unix.Close(fd)
		return nil, &fs.PathError{Op: "stat", Path: name, Err: err}
	}
	if uint32(st.Mode)&unix.S_IFMT != unix.S_IFREG && !isDevNull(&st) {
		unix.Close(fd)
		return nil, &NotRegularError{Path: name, Mode: fileType(uint32(st.Mode))}
	}
	if err := unix.SetNonblock(fd, false); err != nil {
		unix.Close(fd)
		return nil, &fs.PathError{Op: "fcntl", Path: name, Err: err}
	}
	return os.NewFile(uintptr(fd), name), nil
}

// fileType turns stat's type bits into fs.FileMode's.
func fileType(mode uint32) fs.FileMode {
	switch mode & unix.S_IFMT {
	case unix.S_IFIFO:
		return fs.ModeNamedPipe
	case unix.S_IFCHR:
		return fs.ModeDevice | fs.ModeCharDevice
	case unix.S_IFBLK:
		return fs.ModeDevice
	case unix.S_IFSOCK:
		return fs.ModeSocket
	case unix.S_IFDIR:
		return fs.ModeDir
	case unix.S_IFLNK:
		return fs.ModeSymlink
	}
	return fs.ModeIrregular
}

// isDevNull reports whether st is the null device's: it never waits and
// reads as empty, and GUARD_CONFIG=/dev/null is how one says "no config".
func isDevNull(st *unix.Stat_t) bool {
	if uint32(st.Mode)&unix.S_IFMT != unix.S_IFCHR {
		return false
	}
	var null unix.Stat_t
	return unix.Stat(os.DevNull, &null) == nil && null.Rdev == st.Rdev && uint32(null.Mode)&unix.S_IFMT == unix.S_IFCHR
}
