package atomicfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// Options say how Replace writes a file.
type Options struct {
	// Mode is the mode of a new file (0: 0600); a file that exists keeps
	// its own.
	Mode os.FileMode
	// Owner, if not nil, gives a new file its owner and group when root
	// writes it (a file that exists keeps its own): a backup belongs to
	// whoever owns the file it backs up, a new state file to the owner of
	// its directory.
	Owner os.FileInfo
	// Locked says the caller holds a lock that keeps every other writer of
	// path away. The temp file is then always ".NAME.tmp": one left by a
	// writer that died before its rename is replaced, so crashes leave no
	// litter. Without it, the temp file gets a unique name.
	Locked bool
	// NoDirSync skips the directory's fsync after the rename: a power loss
	// may then lose the new file and keep the old one, whole (statefile's
	// relaxed writes).
	NoDirSync bool
	// NoFileSync skips the temp file's fsync as well. Only where the
	// filesystem orders a replacing rename after the new file's data
	// (statefile's renameKeepsData) does a power loss still leave the old
	// file or the new one, whole, and never an empty one.
	NoFileSync bool

	// Seams for tests; nil in production. Failpoint, if set, is called after
	// each step ("after-create", "after-write", "after-sync", "after-close",
	// "after-rename", "after-relaxed-rename", "after-dirsync") and an error
	// it returns stops Replace there, as a crash would. SyncFile and SyncDir
	// replace the two fsyncs.
	Failpoint func(step string) error
	SyncFile  func(*os.File) error
	SyncDir   func(dir string) error
}

// defaultSyncs are the two fsyncs Replace makes when Options name none.
// They are a variable only so that this package's tests can count the
// syncs of a caller that cannot pass Options (WriteFile).
var defaultSyncs = struct {
	file func(*os.File) error
	dir  func(dir string) error
}{(*os.File).Sync, SyncDir}

// Replace atomically replaces the file at path with the segments of data,
// one after the other: a temp file beside it, write, fsync, close, rename,
// fsync of the directory (see Options for what may be skipped). Until the
// rename succeeds the old file is untouched, and the temp file is removed on
// any failure. path must not be a symlink: the caller resolves it.
func Replace(path string, data [][]byte, o Options) (err error) {
	dir := filepath.Dir(path)
	mode, uid, gid := o.Mode, -1, -1
	if mode == 0 {
		mode = 0o600
	}
	if o.Owner != nil {
		uid, gid = OwnerToKeep(o.Owner)
	}
	if fi, err := os.Stat(path); err == nil {
		mode = fi.Mode().Perm()
		uid, gid = OwnerToKeep(fi)
	}
	failpoint := o.Failpoint
	if failpoint == nil {
		failpoint = func(string) error { return nil }
	}

	var tmp *os.File
	if o.Locked {
		tmp, err = createFixedTemp(path)
	} else {
		tmp, err = os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	}
	if err != nil {
		return fmt.Errorf("cannot create temp file: %w", withPath("create", filepath.Join(dir, "."+filepath.Base(path)+".tmp"), err))
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
	if mode != 0o600 || !o.Locked { // a fixed temp file is created 0600
		if err := tmp.Chmod(mode); err != nil {
			return fmt.Errorf("cannot set mode of temp file: %w", err)
		}
	}
	if uid >= 0 {
		// Root editing a user's file must not leave it owned by root.
		if err := tmp.Chown(uid, gid); err != nil {
			return fmt.Errorf("cannot keep the owner of %s: %w", path, err)
		}
	}
	if err := writeSegments(tmp, data); err != nil {
		return fmt.Errorf("cannot write temp file: %w", withPath("write", tmp.Name(), err))
	}
	if err := failpoint("after-write"); err != nil {
		return err
	}
	if !o.NoFileSync {
		sync := o.SyncFile
		if sync == nil {
			sync = defaultSyncs.file
		}
		if err := sync(tmp); err != nil {
			return fmt.Errorf("cannot sync temp file: %w", withPath("sync", tmp.Name(), err))
		}
	}
	if err := failpoint("after-sync"); err != nil {
		return err
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("cannot close temp file: %w", withPath("close", tmp.Name(), err))
	}
	if err := failpoint("after-close"); err != nil {
		return err
	}
	if err := Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("cannot replace file: %w", err)
	}
	renamed = true
	if err := failpoint("after-rename"); err != nil {
		return err
	}
	if o.NoDirSync {
		return failpoint("after-relaxed-rename")
	}
	syncDir := o.SyncDir
	if syncDir == nil {
		syncDir = defaultSyncs.dir
	}
	if err := syncDir(dir); err != nil {
		return fmt.Errorf("cannot sync directory: %w", withPath("sync", dir, err))
	}
	return failpoint("after-dirsync")
}

// WriteFile atomically and durably replaces the file at path with data,
// for files that are not kept under a lock (reports, exports, backups,
// Claude Code's settings.json): see Replace. A new file gets mode, and the
// owner and group of owner if that is not nil. A symlink at path, or on the
// way to it, is followed, so that the link stays; but the state's rule
// holds (see Resolve and CheckLink): another user's symlink in a sticky
// world-writable directory such as /tmp is refused with ErrUnsafeLink, and
// nothing is written through it.
func WriteFile(path string, data []byte, mode os.FileMode, owner os.FileInfo) error {
	real, err := Resolve(path)
	if errors.Is(err, ErrUnsafeLink) {
		return err // it names the link
	}
	if err != nil {
		return fmt.Errorf("cannot write %s: %w", path, err)
	}
	return Replace(real, [][]byte{data}, Options{Mode: mode, Owner: owner})
}

// createFixedTemp creates ".NAME.tmp" beside path, mode 0600, O_EXCL, for
// a caller that holds the lock on path's writers. One that exists already
// was left by a writer that died before its rename (nobody else holds the
// lock): it is removed and made afresh.
func createFixedTemp(path string) (*os.File, error) {
	dir, base := filepath.Split(path)
	name := filepath.Join(dir, "."+base+".tmp")
	f, err := openFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if os.IsExist(err) {
		// Another user's file at the name, in a sticky world-writable
		// directory, cannot be removed: say whose it is (hostile-user-3
		// m1), not "operation not permitted".
		if fi, lerr := os.Lstat(name); lerr == nil {
			if err := CheckOwner(name, fi); err != nil {
				return nil, err
			}
		}
		if err := os.Remove(name); err != nil {
			return nil, err
		}
		f, err = openFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	}
	return f, err
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

// withPath makes err name path, as an *fs.PathError does, unless it names
// a file already: every failure to write a file says which, a full disk's
// "no space left on device" included, whichever command wrote it
// (hostile-user-3 m10).
func withPath(op, path string, err error) error {
	var pe *fs.PathError
	var le *os.LinkError
	var fe *ForeignFileError
	if errors.As(err, &pe) || errors.As(err, &le) || errors.As(err, &fe) {
		return err
	}
	return &fs.PathError{Op: op, Path: path, Err: err}
}
