package statefile

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"syscall"

	"guard/internal/atomicfile"
)

// replace atomically replaces the file with data, the segments one after
// the other: a temp file beside it, write, fsync, close, rename, fsync of
// the directory. The caller holds the lock. Until the rename succeeds the
// old file is untouched, and the temp file is removed on any failure.
func (f *File) replace(data ...[]byte) error { return f.write(true, data...) }

// syncDir makes a rename in dir durable, and syncFile a file's data
// (variables for tests to count).
var (
	syncDir  = atomicfile.SyncDir
	syncFile = (*os.File).Sync
)

// write is replace, without the directory's fsync unless durable (see
// Relaxer), and then without the temp file's fsync either where the
// filesystem keeps a replacing rename behind the new file's data (see
// renameKeepsData): either way, a power loss leaves the old file or the new
// one, whole.
func (f *File) write(durable bool, data ...[]byte) (err error) {
	dir := filepath.Dir(f.path)
	mode := os.FileMode(0o600)
	uid, gid := -1, -1
	if fi, err := os.Stat(f.path); err == nil {
		mode = fi.Mode().Perm()
		uid, gid = atomicfile.OwnerToKeep(fi)
	} else if di, err := os.Stat(dir); err == nil && os.Geteuid() == 0 {
		uid, gid = atomicfile.OwnerToKeep(di) // a new file belongs to the directory's owner
	}

	tmp, err := createTemp(f.path)
	if err != nil {
		return fmt.Errorf("cannot create temp file: %w", err)
	}
	renamed := false
	defer func() {
		if !renamed {
			_ = tmp.Close()
			_ = os.Remove(tmp.Name())
		}
	}()

	if err := failpoint("after-create"); err != nil {
		return err
	}
	if mode != 0o600 {
		if err := tmp.Chmod(mode); err != nil {
			return fmt.Errorf("cannot set mode of temp file: %w", err)
		}
	}
	if uid >= 0 {
		// Root editing a user's state must not leave it owned by root.
		_ = tmp.Chown(uid, gid)
	}
	if err := writeSegments(tmp, data); err != nil {
		return fmt.Errorf("cannot write temp file: %w", err)
	}
	if err := failpoint("after-write"); err != nil {
		return err
	}
	if durable || !renameKeepsData(dir) {
		if err := syncFile(tmp); err != nil {
			return fmt.Errorf("cannot sync temp file: %w", err)
		}
	}
	if err := failpoint("after-sync"); err != nil {
		return err
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("cannot close temp file: %w", err)
	}
	if err := failpoint("after-close"); err != nil {
		return err
	}
	if err := rename(tmp.Name(), f.path); err != nil {
		return fmt.Errorf("cannot replace state file: %w", err)
	}
	renamed = true
	if err := failpoint("after-rename"); err != nil {
		return err
	}
	if !durable {
		return failpoint("after-relaxed-rename")
	}
	if err := syncDir(dir); err != nil {
		return fmt.Errorf("cannot sync state directory: %w", err)
	}
	return failpoint("after-dirsync")
}

// writeSegments writes segs to f one after the other, with as few writev
// calls as the kernel allows. It may change the slices in segs.
func writeSegments(f *os.File, segs [][]byte) error {
	if len(segs) == 1 {
		_, err := f.Write(segs[0])
		return err
	}
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var werr error
	err = rc.Write(func(fd uintptr) bool {
		for {
			for len(segs) > 0 && len(segs[0]) == 0 {
				segs = segs[1:]
			}
			if len(segs) == 0 {
				return true
			}
			batch := segs[:min(len(segs), 1024)] // IOV_MAX
			n, err := writev(int(fd), batch)
			if err == syscall.EINTR {
				continue
			}
			if err != nil {
				werr = err
				return true
			}
			if n == 0 {
				werr = io.ErrShortWrite
				return true
			}
			for n > 0 { // drop what was written
				if n >= len(segs[0]) {
					n -= len(segs[0])
					segs = segs[1:]
				} else {
					segs[0] = segs[0][n:]
					n = 0
				}
			}
		}
	})
	if err != nil {
		return err
	}
	return werr
}
