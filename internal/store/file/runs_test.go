package file

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"guard/internal/store"
)

func alive(pid int, _ uint64) bool { return pid == os.Getpid() }

func TestLimitHolds(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state.json.runs")
	run := slotRecord{Key: "k", PID: os.Getpid(), Started: time.Now()}
	a, err := acquire(dir, 2, 0, run)
	if err != nil {
		t.Fatal(err)
	}
	b, err := acquire(dir, 2, 0, run)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := acquire(dir, 2, 0, run); !errors.Is(err, store.ErrFull) {
		t.Fatalf("third Acquire = %v; want store.ErrFull", err)
	}
	// Another key has slots of its own.
	other := run
	other.Key = "other"
	o, err := acquire(dir, 1, 0, other)
	if err != nil {
		t.Fatalf("Acquire for another key: %v", err)
	}
	o.Release()

	a.Release()
	c, err := acquire(dir, 2, 0, run)
	if err != nil {
		t.Fatalf("Acquire after a release: %v", err)
	}
	b.Release()
	c.Release()
}

func TestAcquireWaitsForASlot(t *testing.T) {
	dir := t.TempDir()
	run := slotRecord{Key: "k", PID: os.Getpid()}
	held, err := acquire(dir, 1, 0, run)
	if err != nil {
		t.Fatal(err)
	}
	released := make(chan struct{})
	go func() {
		time.Sleep(50 * time.Millisecond)
		close(released)
		held.Release()
	}()
	s, err := acquire(dir, 1, time.Minute, run)
	if err != nil {
		t.Fatalf("Acquire with a wait: %v", err)
	}
	select {
	case <-released:
	default:
		t.Error("got the slot while it was still held")
	}
	s.Release()
}

func TestListShowsLiveRunsOnly(t *testing.T) {
	dir := t.TempDir()
	now := time.Now()
	mine := slotRecord{Key: "mine", PID: os.Getpid(), Started: now, Deadline: now.Add(time.Minute)}
	s, err := acquire(dir, 0, 0, mine)
	if err != nil {
		t.Fatal(err)
	}
	s.Started(4242)
	limited, err := acquire(dir, 3, 0, slotRecord{Key: "limited", PID: os.Getpid(), Started: now.Add(-time.Second)})
	if err != nil {
		t.Fatal(err)
	}
	// A record left by a guard that was killed.
	stale := filepath.Join(dir, keyHash("dead")+"-u0.slot")
	os.WriteFile(stale, []byte(`{"key":"dead","pid":999999,"started":"2026-01-01T00:00:00Z"}`+"\n"), 0o600)

	runs, err := listRuns(dir, alive)
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 2 || runs[0].Key != "limited" || runs[1].Key != "mine" {
		t.Fatalf("List = %+v; want limited then mine", runs)
	}
	if runs[1].ChildPID != 4242 || !runs[1].Deadline.Equal(mine.Deadline) {
		t.Errorf("mine = %+v", runs[1])
	}
	s.Release()
	limited.Release()
	runs, _ = listRuns(dir, alive)
	if len(runs) != 0 {
		t.Errorf("after release List = %+v; want none", runs)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 3 { // slot files stay, to be reused
		t.Errorf("slot directory holds %d files; want 3", len(entries))
	}
}

func TestUnlimitedSlotsAreReused(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state.json.runs")
	long := slotRecord{Key: "k", PID: os.Getpid(), StartTicks: 123456789, Started: time.Now(), Deadline: time.Now().Add(time.Hour)}
	a, err := acquire(dir, 0, 0, long)
	if err != nil {
		t.Fatal(err)
	}
	a.Started(99999999)
	b, err := acquire(dir, 0, 0, long)
	if err != nil {
		t.Fatal(err)
	}
	if runs, _ := listRuns(dir, alive); len(runs) != 2 {
		t.Fatalf("two runs at once: List = %+v", runs)
	}
	a.Release()
	b.Release()
	if runs, _ := listRuns(dir, alive); len(runs) != 0 {
		t.Fatalf("after release List = %+v; want none", runs)
	}

	// A shorter record over a longer one still reads back.
	short := slotRecord{Key: "k", PID: os.Getpid(), Started: time.Now()}
	c, err := acquire(dir, 0, 0, short)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Release()
	runs, err := listRuns(dir, alive)
	if err != nil || len(runs) != 1 || runs[0].ChildPID != 0 || !runs[0].Deadline.IsZero() {
		t.Fatalf("List = %+v, %v; want the short record", runs, err)
	}
	if runs[0].Slot != keyHash("k")+"-u0.slot" {
		t.Errorf("took slot %s; want the first one again", runs[0].Slot)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		t.Errorf("slot directory holds %d files; want 2", len(entries))
	}
}
