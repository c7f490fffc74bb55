package file

import (
	"errors"
	"os"
	"time"
)

// errLockBusy is a lock of the event log or the skip tally not obtained
// in time: such a lock is held for an append, a rotation or a fold's
// write, so a holder that keeps it longer is stopped or stuck (a guard
// stopped with SIGSTOP, another tool that locked the file), and no guard
// may wait on it for ever.
var errLockBusy = errors.New("held by another process, not obtained in time")

// lockWithin takes f's lock, trying until wait has passed (once if wait
// is 0 or less), with naps of 1 to 10ms; errLockBusy if it is not
// obtained by then.
func lockWithin(f *os.File, wait time.Duration) error {
	deadline := time.Now().Add(wait)
	for nap := time.Millisecond; ; nap = min(2*nap, 10*time.Millisecond) {
		ok, err := tryLockFile(f)
		switch {
		case err != nil:
			return err
		case ok:
			return nil
		case !time.Now().Before(deadline):
			return errLockBusy
		}
		time.Sleep(min(nap, time.Until(deadline)))
	}
}
