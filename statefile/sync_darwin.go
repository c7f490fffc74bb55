//go:build darwin

package statefile

import (
	"os"

	"golang.org/x/sys/unix"
)

// barrierSync syncs the temp file of a relaxed write on macOS with
// fcntl(F_BARRIERFSYNC): the file's data goes to the drive, and a barrier
// keeps every write issued after it, the rename included, from reaching
// stable storage before it. That is the whole promise of a relaxed write
// (a power loss leaves the old file or the new one, whole; it may undo the
// write), at the price of an fsync rather than of F_FULLFSYNC, which waits
// for the drive to empty its whole cache. Where the filesystem refuses the
// barrier (SMB, some external disks), it falls back to os.File.Sync, that
// is F_FULLFSYNC. Durable writes always use F_FULLFSYNC.
var barrierSync = func(f *os.File) error {
	if _, err := unix.FcntlInt(f.Fd(), unix.F_BARRIERFSYNC, 0); err != nil {
		return f.Sync()
	}
	return nil
}
