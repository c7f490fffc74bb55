//go:build unix

package atomicfile

import (
	"io/fs"
	"os"
	"syscall"
)

// openFile is os.OpenFile, close-on-exec, kept out of Go's network poller
// (which cannot wait on a regular file anyway, and costs five more system
// calls to find that out on every open).
func openFile(path string, flag int, perm os.FileMode) (*os.File, error) {
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

// Rename renames from to to, replacing to, as rename(2) does: atomically,
// and without the extra Lstat os.Rename makes to give a clearer error when
// the target is a directory. The rename is durable once the directory is
// synced (SyncDir).
func Rename(from, to string) error {
	if err := syscall.Rename(from, to); err != nil {
		return &os.LinkError{Op: "rename", Old: from, New: to, Err: err}
	}
	return nil
}

// SyncDir makes a rename in dir durable: fsync(2) of the directory on
// Linux; on macOS os.File.Sync, that is fcntl(F_FULLFSYNC), which on APFS
// commits the transaction holding the rename and empties the drive's
// cache (see the package doc). It opens dir without Go's network poller,
// which cannot wait on a directory anyway (os.Open would find that out at
// the cost of more system calls, on guard's hot path).
func SyncDir(dir string) error {
	fd, err := syscall.Open(dir, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return &os.PathError{Op: "open", Path: dir, Err: err}
	}
	d := os.NewFile(uintptr(fd), dir)
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}

// OwnerToKeep returns the owner and group a file written in place of the
// one fi describes must be given, or -1, -1 when the file a process creates
// has them anyway. Only root can give a file away.
func OwnerToKeep(fi os.FileInfo) (uid, gid int) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok || os.Geteuid() != 0 || (int(st.Uid) == 0 && int(st.Gid) == os.Getegid()) {
		return -1, -1
	}
	return int(st.Uid), int(st.Gid)
}
