package statefile

import (
	"os"
	"path/filepath"

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
// renameKeepsData), or with a cheaper sync that only orders it before the
// rename where the system has one (barrierSync, on macOS): either way, a
// power loss leaves the old file or the new one, whole. The sequence
// itself is atomicfile.Replace's.
func (f *File) write(durable bool, data ...[]byte) error {
	dir := filepath.Dir(f.path)
	o := atomicfile.Options{
		Locked:    true,
		NoDirSync: !durable,
		Failpoint: failpoint,
		SyncFile:  syncFile,
		SyncDir:   syncDir,
	}
	if !durable {
		o.NoFileSync = renameKeepsData(dir, f.LockPath())
		if barrierSync != nil {
			o.SyncFile = barrierSync
		}
	}
	if os.Geteuid() == 0 {
		// A new file belongs to the directory's owner.
		o.Owner, _ = os.Stat(dir)
	}
	return atomicfile.Replace(f.path, data, o)
}
