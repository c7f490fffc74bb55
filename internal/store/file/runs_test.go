package file

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"guard/internal/store"
	"guard/internal/supervise"
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
	// The limited key's slot leaves no file behind; the pool's stays for
	// the next run of any key, blank.
	var names []string
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if want := []string{filepath.Base(stale), "run-0.slot"}; !slices.Equal(names, want) {
		t.Errorf("slot directory holds %v; want %v", names, want)
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

	// A file a killed guard left is taken over; a shorter record over its
	// longer one still reads back.
	leftover := poolSlot(dir, 0)
	os.WriteFile(leftover, []byte(`{"key":"k","pid":999999,"child_pid":424242,"started":"2026-01-01T00:00:00Z","deadline":"2026-01-01T01:00:00Z"}`+"\n"), 0o600)
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
	if runs[0].Slot != "run-0.slot" {
		t.Errorf("took slot %s; want the first one again", runs[0].Slot)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		t.Errorf("slot directory holds %d files; want the 2 that ran at once", len(entries))
	}
}

// TestReleasedSlotsLeaveNoFiles covers hostile-user-2 m6: a key with no
// run in flight has no slot file of its own, however many keys came and
// went (one a session under scope: session); the pool unlimited keys
// share holds as many files as runs once went on at once, here one.
func TestReleasedSlotsLeaveNoFiles(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state.json.runs")
	for i := range 50 {
		for _, limit := range []int{0, 2} {
			s, err := acquire(dir, limit, 0, slotRecord{Key: fmt.Sprintf("session %d", i), PID: os.Getpid(), Started: time.Now()})
			if err != nil {
				t.Fatal(err)
			}
			s.Release()
		}
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 || entries[0].Name() != "run-0.slot" {
		t.Errorf("after every release the slot directory holds %v; want only the pool's one file", entries)
	}
	if data, _ := os.ReadFile(poolSlot(dir, 0)); strings.TrimSpace(strings.SplitN(string(data), "\n", 2)[0]) != "" {
		t.Errorf("a released pool slot still names its run: %q", data)
	}
}

// TestRemovedSlotIsNeverHeldTwice hammers one slot of a key with limit 1
// from many callers that acquire and release it: a caller that opened the
// file just before its holder removed it must not take the removed file
// for the slot, so no two ever hold it at once.
func TestRemovedSlotIsNeverHeldTwice(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state.json.runs")
	var holders, most atomic.Int32
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 200 {
				s, err := acquire(dir, 1, time.Minute, slotRecord{Key: "one", PID: os.Getpid(), Started: time.Now()})
				if err != nil {
					t.Error(err)
					return
				}
				n := holders.Add(1)
				for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
				}
				holders.Add(-1)
				s.Release()
			}
		}()
	}
	wg.Wait()
	if m := most.Load(); m != 1 {
		t.Errorf("%d callers held the one slot at once", m)
	}
}

// A slot file left by a killed guard, an hour old and held by nobody, is
// swept; one a run holds is not, however old.
func TestSweepRemovesOnlyStaleFreeSlots(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state.json.runs")
	held, err := acquire(dir, 0, 0, slotRecord{Key: "running", PID: os.Getpid(), Started: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	defer held.Release()
	stale := filepath.Join(dir, keyHash("dead")+"-u0.slot")
	fresh := filepath.Join(dir, keyHash("just died")+"-u0.slot")
	os.WriteFile(stale, []byte("{}\n"), 0o600)
	os.WriteFile(fresh, []byte("{}\n"), 0o600)
	old := time.Now().Add(-2 * time.Hour)
	os.Chtimes(stale, old, old)
	os.Chtimes(held.path, old, old)
	sweepRuns(dir, time.Now())
	if exists(stale) || !exists(fresh) || !exists(held.path) {
		t.Errorf("after the sweep: stale %v, fresh %v, held %v; want only the stale file gone", exists(stale), exists(fresh), exists(held.path))
	}
}

// Slot files follow the state's rule in a sticky world-writable
// directory (hostile-user-2 M5): the slot directory may not be another
// user's symlink there, and a slot file is never followed as a symlink.
func TestSlotsRefuseSymlinks(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state.json.runs")
	os.Mkdir(dir, 0o700)
	victim := filepath.Join(t.TempDir(), "victim")
	os.WriteFile(victim, []byte("precious\n"), 0o600)
	// A limited key's slot name that is a symlink is refused; a pool
	// slot's is passed over (every unlimited key shares the pool), and
	// the next one taken. Neither is followed.
	os.Symlink(victim, filepath.Join(dir, keyHash("k")+"-0.slot"))
	if _, err := acquire(dir, 1, 0, slotRecord{Key: "k", PID: os.Getpid(), Started: time.Now()}); err == nil {
		t.Error("acquire through a symlinked slot file succeeded")
	}
	os.Symlink(victim, poolSlot(dir, 0))
	s, err := acquire(dir, 0, 0, slotRecord{Key: "k", PID: os.Getpid(), Started: time.Now()})
	if err != nil || s.path != poolSlot(dir, 1) {
		t.Errorf("acquire with a symlink at the pool's first slot: %v, %v; want the second slot", s, err)
	} else {
		s.Release()
	}
	if data, _ := os.ReadFile(victim); string(data) != "precious\n" {
		t.Errorf("the link's target was written: %q", data)
	}
}

// BenchmarkListARun is what every guard run of an unlimited key pays to be
// listed for 'guard status': a pool slot file opened, locked and written,
// then blanked.
func BenchmarkListARun(b *testing.B) {
	dir := filepath.Join(b.TempDir(), "state.json.runs")
	r := slotRecord{Key: "uv run check.py", PID: os.Getpid(), Started: time.Now()}
	for b.Loop() {
		s, err := acquire(dir, 0, 0, r)
		if err != nil {
			b.Fatal(err)
		}
		s.Started(4242)
		s.Release()
	}
}

// TestOrphanedCommandKeepsItsSlot covers faults #2 and newcomer-and-mission
// #17: a slot whose guard died (its lock is free) while the command it
// started still runs is taken until that command ends; List shows the run
// in flight, orphaned; the hourly sweep leaves it; a record whose command
// is dead, or names a PID since reused by another process (its start time
// differs), frees the slot.
func TestOrphanedCommandKeepsItsSlot(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state.json.runs")
	cmd := exec.Command("sleep", "300")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	child := cmd.Process.Pid
	start, err := supervise.StartTime(child)
	if err != nil {
		t.Fatal(err)
	}
	// A guard that died holding the slot: its record, no lock.
	dead := slotRecord{Key: "k", PID: 999999999, StartTicks: 1, Started: time.Now()}
	s, err := acquire(dir, 1, 0, dead)
	if err != nil {
		t.Fatal(err)
	}
	s.run.ChildPID, s.run.ChildStart = child, start
	s.write()
	s.f.Close() // guard dies: the kernel lets go of its lock, the file stays

	run := slotRecord{Key: "k", PID: os.Getpid(), Started: time.Now()}
	if _, err := acquire(dir, 1, 0, run); !errors.Is(err, store.ErrFull) {
		t.Fatalf("Acquire while the orphaned command runs = %v; want store.ErrFull", err)
	}
	runs, _ := Runs{Dir: dir}.List(func(store.Holder) bool { return false })
	if len(runs) != 1 || !runs[0].Orphaned || runs[0].ChildPID != child {
		t.Errorf("List = %+v; want the orphaned run", runs)
	}
	sweepRuns(dir, time.Now().Add(2*staleSlot))
	if _, err := acquire(dir, 1, 0, run); !errors.Is(err, store.ErrFull) {
		t.Fatalf("after the sweep, Acquire = %v; want store.ErrFull still", err)
	}

	// Another process with the command's PID (a start time that differs)
	// is not the command.
	s2 := mustReadRecord(t, dir)
	s2.ChildStart = start + 1
	rewriteRecord(t, dir, s2)
	got, err := acquire(dir, 1, 0, run)
	if err != nil {
		t.Fatalf("Acquire with a reused PID = %v; want the slot", err)
	}
	got.Release()

	// And once the command has ended (a zombie is dead), the slot is free.
	dead2 := dead
	s, err = acquire(dir, 1, 0, dead2)
	if err != nil {
		t.Fatal(err)
	}
	s.run.ChildPID, s.run.ChildStart = child, start
	s.write()
	s.f.Close()
	cmd.Process.Kill()
	cmd.Process.Wait()
	got, err = acquire(dir, 1, 0, run)
	if err != nil {
		t.Fatalf("Acquire after the command ended = %v; want the slot", err)
	}
	got.Release()
}

func mustReadRecord(t *testing.T, dir string) slotRecord {
	t.Helper()
	runs, err := listRuns(dir, func(int, uint64) bool { return true })
	if err != nil || len(runs) != 1 {
		t.Fatalf("listRuns = %v, %v", runs, err)
	}
	return runs[0]
}

func rewriteRecord(t *testing.T, dir string, r slotRecord) {
	t.Helper()
	f, err := os.OpenFile(filepath.Join(dir, r.Slot), os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	(&slotFile{f: f, run: r}).write()
}
