package statefile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestLockStops: a wait for the lock ends with ErrStopped as soon as Stop
// says so, not at the lock timeout (an hour here), and the state is not
// touched (hostile-user-2 m9: a signal to guard run must not wait out
// lock_timeout).
func TestLockStops(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.json")
	holder := open(t, path)
	unlock, err := holder.Lock()
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()

	var asked atomic.Int32
	f, _ := Open(path, Options{LockTimeout: time.Hour, Stop: func() bool { return asked.Add(1) >= 3 }})
	err = Update(f, increment)
	if !errors.Is(err, ErrStopped) {
		t.Fatalf("Update while locked, stopped = %v; want ErrStopped", err)
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Error("state written without the lock")
	}

	// Stop is not asked when the lock is free.
	unlock()
	f, _ = Open(path, Options{Stop: func() bool { return true }})
	if err := Update(f, increment); err != nil {
		t.Errorf("Update with the lock free and Stop true = %v; want it done", err)
	}
}

// TestLockWithinWaitsItsOwnTime: LockWithin waits its own timeout, not the
// File's (guard run's record of an outcome waits record_timeout).
func TestLockWithinWaitsItsOwnTime(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.json")
	holder := open(t, path)
	unlock, err := holder.Lock()
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	f, _ := Open(path, Options{LockTimeout: time.Hour})
	_, err = f.LockWithin(30 * time.Millisecond)
	if !errors.Is(err, ErrLockTimeout) || !strings.Contains(err.Error(), "within 30ms") {
		t.Errorf("LockWithin(30ms) while held = %v; want ErrLockTimeout within 30ms", err)
	}
	err = UpdateWithin(f, 30*time.Millisecond, increment, nil)
	if !errors.Is(err, ErrLockTimeout) || !strings.Contains(err.Error(), "within 30ms") {
		t.Errorf("UpdateWithin(30ms) while held = %v; want ErrLockTimeout within 30ms", err)
	}
}
