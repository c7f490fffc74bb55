package statefile

import (
	"fmt"
	"sync/atomic"
	"time"

	"github.com/gofrs/flock"
)

// stopEvery is how often a wait for the lock asks Options.Stop.
const stopEvery = 5 * time.Millisecond

// The states of a wait in the queue: who decides what becomes of a lock
// the kernel grants.
const (
	waiting   int32 = iota
	granted         // the waiter got it, and hands it to Lock
	abandoned       // Lock gave up: the waiter releases a lock it gets
)

// queue waits for fl's lock in the kernel's queue: a blocking flock (on
// Windows, LockFileEx) on a descriptor of its own, in a goroutine, so that
// waiters are served as the holder lets go, in the kernel's order, instead
// of each polling and losing the race to whoever polls at the right moment
// (performance-2 D1, faults #5: 64 callers polling with naps of up to
// 10 ms lost their outcomes, some after waiting out the whole lock
// timeout while others came and went). A process that holds the lock
// only for the short read-modify-write of an update is then waited on for
// at most the holds of the processes ahead of it.
//
// At the deadline, or once Options.Stop says so, queue gives up and leaves
// the goroutine waiting: a lock it gets after that is released at once,
// so a lock won after giving up is never held while the caller goes on
// (guard run runs its command unguarded after a timeout, and the lock must
// not be held while it runs). The goroutine ends when its flock returns
// (when the holder lets go, or with the process).
func (f *File) queue(fl *flock.Flock, timeout time.Duration) error {
	var state atomic.Int32
	got := make(chan error, 1)
	go func() {
		err := fl.Lock()
		if !state.CompareAndSwap(waiting, granted) {
			_ = fl.Unlock() // given up on: release it (and close it) at once
			return
		}
		got <- err
	}()
	// giveUp returns err if the wait could be abandoned, or else what the
	// waiter got, which came meanwhile.
	giveUp := func(err error) error {
		if state.CompareAndSwap(waiting, abandoned) {
			return err
		}
		return <-got
	}
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	var ask <-chan time.Time
	if f.opts.Stop != nil {
		t := time.NewTicker(stopEvery)
		defer t.Stop()
		ask = t.C
	}
	for {
		select {
		case err := <-got:
			return err
		case <-deadline.C:
			return giveUp(fmt.Errorf("cannot lock %s within %s: %w", f.LockPath(), timeout, ErrLockTimeout))
		case <-ask:
			if f.opts.Stop() {
				return giveUp(fmt.Errorf("cannot lock %s: %w", f.LockPath(), ErrStopped))
			}
		}
	}
}
