// Package atomicfile replaces files atomically and durably: the one way
// guard writes a file whole, whether a state file (package statefile,
// under its lock), a report, a checkpoint or Claude Code's settings.json.
// A reader sees the old file or the new one, never a mix; after a crash of
// the machine, the old or the new one, never an empty one. Files keep
// their mode, owner and group.
//
// Limits: it relies on rename(2) and fsync(2) within one directory of a
// local filesystem; NFS gives weaker guarantees.
package atomicfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// WriteFile atomically replaces the file at path with data, for files that
// are not kept under a lock (reports, backups, Claude Code's
// settings.json): a temp file of a unique name beside it, write, fsync,
// close, rename, fsync of the directory. An existing file keeps its mode,
// owner and group (when root writes a user's file, it stays the user's); a
// new file gets mode, and the owner and group of owner if that is not nil
// (a backup belongs to whoever owns the file it backs up). A symlink at path
// is followed, so that the link stays. Until the rename succeeds the old
// file is untouched.
func WriteFile(path string, data []byte, mode os.FileMode, owner os.FileInfo) (err error) {
	if real, err := filepath.EvalSymlinks(path); err == nil {
		path = real
	}
	uid, gid := -1, -1
	if owner != nil {
		uid, gid = OwnerToKeep(owner)
	}
	if fi, err := os.Stat(path); err == nil {
		mode = fi.Mode().Perm()
		uid, gid = OwnerToKeep(fi)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			_ = tmp.Close()
			_ = os.Remove(tmp.Name())
		}
	}()
	if err = tmp.Chmod(mode); err != nil {
		return err
	}
	if uid >= 0 {
		if err = tmp.Chown(uid, gid); err != nil {
			return fmt.Errorf("cannot keep the owner of %s: %w", path, err)
		}
	}
	if _, err = tmp.Write(data); err != nil {
		return err
	}
	if err = tmp.Sync(); err != nil {
		return err
	}
	if err = tmp.Close(); err != nil {
		return err
	}
	if err = os.Rename(tmp.Name(), path); err != nil {
		return err
	}
	return SyncDir(filepath.Dir(path))
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

// SyncDir makes a rename in dir durable. It opens dir without Go's
// network poller, which cannot wait on a directory anyway (os.Open would
// find that out at the cost of more system calls, on guard's hot path).
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

// FreePath returns path, or path-2, path-3, ... whichever does not exist
// yet, so that a backup never overwrites an earlier one.
func FreePath(path string) string {
	p := path
	for i := 2; ; i++ {
		if _, err := os.Lstat(p); errors.Is(err, fs.ErrNotExist) {
			return p
		}
		p = fmt.Sprintf("%s-%d", path, i)
	}
}

// Backup keeps data, the bytes of the file at path before a change, as
// PATH.bak-<UTC time> (a name no file has yet: see FreePath), mode 0600
// and owned as the file is, and returns where.
func Backup(path string, data []byte, now time.Time) (string, error) {
	backup := FreePath(fmt.Sprintf("%s.bak-%s", path, now.UTC().Format("20060102T150405Z")))
	owner, _ := os.Stat(path)
	if err := WriteFile(backup, data, 0o600, owner); err != nil {
		return "", err
	}
	return backup, nil
}
