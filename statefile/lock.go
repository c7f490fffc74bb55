package statefile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/gofrs/flock"

	"guard/internal/atomicfile"
)

// Lock takes the exclusive lock on the sidecar file, creating the file (mode
// 0600) and its directory (mode 0700) if need be. It waits its turn behind
// the processes already waiting (see queue), and gives up with
// ErrLockTimeout after the lock timeout. The caller must call unlock.
func (f *File) Lock() (unlock func(), err error) { return f.LockWithin(f.opts.LockTimeout) }

// LockWithin is Lock, waiting at most timeout instead of the lock timeout:
// for a caller whose wait delays less than a wait before a command does
// (guard run's record of an outcome, after the command ran).
func (f *File) LockWithin(timeout time.Duration) (unlock func(), err error) {
	flag := os.O_CREATE | os.O_RDWR
	if !f.shared {
		flag |= NoFollow // a link is looked at only when the open meets one
	}
	if f.shared {
		// The state's rule for its lock too: another user's symlink is
		// refused, and none can be slipped in before the open.
		if fi, err := os.Lstat(f.LockPath()); err == nil && fi.Mode()&os.ModeSymlink != 0 {
			if err := checkLink(f.LockPath(), fi); err != nil {
				return nil, err
			}
		} else {
			flag |= NoFollow
		}
	}
	fl := flock.New(f.LockPath(), flock.SetFlag(flag), flock.SetPermissions(0o600))
	ok, err := fl.TryLock()
	var linkOwner uint32
	foreign := false
	if !f.shared && errors.Is(err, syscall.ELOOP) {
		// A link at the lock's name. Another user's (in their
		// directory) is followed only to a lock file of theirs that
		// exists: root must not create one where they point (see
		// openFollowing). Yours and root's are followed.
		flag &^= NoFollow
		if linkOwner, foreign = atomicfile.LinkOwner(f.LockPath()); foreign {
			if _, serr := os.Stat(f.LockPath()); serr != nil {
				return nil, fmt.Errorf("cannot lock state: %w", &atomicfile.ForeignLinkError{Path: f.LockPath(), UID: linkOwner})
			}
			flag &^= os.O_CREATE
		}
		fl = flock.New(f.LockPath(), flock.SetFlag(flag), flock.SetPermissions(0o600))
		ok, err = fl.TryLock()
	}
	if errors.Is(err, fs.ErrNotExist) {
		// Made by root for a user, the directory is the user's (see
		// MkdirAll), as the state and the lock made in it are.
		if err := MkdirAll(filepath.Dir(f.path), 0o700, ""); err != nil {
			return nil, fmt.Errorf("cannot create state directory: %w", err)
		}
		ok, err = fl.TryLock()
	}
	if f.shared {
		// Another user's lock file is never waited on: they could hold
		// it for ever (hostile-user-3 m1). Once the file is ours, no
		// other user can replace it, so one look is enough.
		if err != nil {
			return nil, fmt.Errorf("cannot lock state: %w", f.whose(f.LockPath(), err))
		}
		if fi, serr := fl.Stat(); serr == nil {
			if err := f.checkOwner(f.LockPath(), fi); err != nil {
				_ = fl.Close()
				return nil, fmt.Errorf("cannot lock state: %w", err)
			}
		}
	}
	if foreign && err == nil {
		if fi, serr := fl.Stat(); serr == nil {
			if err := atomicfile.CheckLinkTarget(f.LockPath(), linkOwner, fi); err != nil {
				_ = fl.Close()
				return nil, fmt.Errorf("cannot lock state: %w", err)
			}
		}
	}
	if err == nil && !ok {
		err = f.queue(fl, timeout)
	}
	if err != nil {
		if errors.Is(err, ErrLockTimeout) || errors.Is(err, ErrStopped) {
			return nil, err
		}
		return nil, fmt.Errorf("cannot lock state: %w", err)
	}
	GiveToOwnerOf(f.LockPath(), f.path)
	return func() { _ = fl.Unlock() }, nil
}
