//go:build windows

package file

import (
	"os"

	"golang.org/x/sys/windows"
)

// lockRange is the byte of a file that guard's locks on Windows cover:
// the last one a file could have, which no read or write of its content
// ever reaches. LockFileEx locks are mandatory, for reads and writes of
// every other handle, so a lock over the content (as gofrs/flock takes on
// the state's lock file, which has none) would make a reader of the event
// log fail while an append is made.
func lockRange() *windows.Overlapped {
	return &windows.Overlapped{Offset: 0xFFFFFFFE, OffsetHigh: 0x7FFFFFFF}
}

// lockFile takes an exclusive lock on f with LockFileEx, waiting for it:
// Windows' counterpart of flock(2). The system releases it when f is
// closed, or its process dies, though not always at once; closeLocked
// releases it first.
func lockFile(f *os.File) error {
	return windows.LockFileEx(windows.Handle(f.Fd()), windows.LOCKFILE_EXCLUSIVE_LOCK, 0, 1, 0, lockRange())
}

// tryLockFile takes the lock if no one holds it: it reports false, and no
// error, if someone does.
func tryLockFile(f *os.File) (bool, error) {
	err := windows.LockFileEx(windows.Handle(f.Fd()),
		windows.LOCKFILE_EXCLUSIVE_LOCK|windows.LOCKFILE_FAIL_IMMEDIATELY, 0, 1, 0, lockRange())
	if err == windows.ERROR_LOCK_VIOLATION || err == windows.ERROR_IO_PENDING {
		return false, nil
	}
	return err == nil, err
}

// closeLocked releases f's lock and closes it: Windows may release the
// lock of a closed handle only later ("depends upon available system
// resources", LockFileEx's documentation), and the next writer should not
// wait for that.
func closeLocked(f *os.File) error {
	_ = windows.UnlockFileEx(windows.Handle(f.Fd()), 0, 1, 0, lockRange())
	return f.Close()
}
