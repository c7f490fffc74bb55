//go:build unix

package file

import (
	"errors"
	"os"
	"syscall"
)

// lockFile takes an exclusive flock(2) on f, waiting for it. The system
// releases it when f is closed, or its process dies.
func lockFile(f *os.File) error {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		if err != syscall.EINTR {
			return err
		}
	}
}

// tryLockFile takes an exclusive flock(2) on f if no one holds one: it
// reports false, and no error, if someone does.
func tryLockFile(f *os.File) (bool, error) {
	err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return false, nil
	}
	return err == nil, err
}

// closeLocked closes f, which releases its lock at once.
func closeLocked(f *os.File) error { return f.Close() }
