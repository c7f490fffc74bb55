package file

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"guard/breaker"
	"guard/internal/circuit"
	"guard/internal/store"
	"guard/internal/store/hookstate"
	"guard/statefile"
)

// tallyStore is a state with key "k" tripped open and key "ok" closed.
func tallyStore(t *testing.T) (*Circuits, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "hook_state.json")
	s, err := openCircuits(path, statefile.Options{LockTimeout: 5 * time.Second}, hookstate.Retention{}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	err = s.Update(t0, func(tx store.CircuitTx) (bool, error) {
		if _, err := circuit.Record(tx, "ok", settings, t0, breaker.Result{Outcome: breaker.Success}, circuit.Run{}); err != nil {
			return false, err
		}
		c := breaker.Circuit{}
		c.Trip(t0, 0, "by hand")
		tx.Put("k", c)
		return true, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return s, path
}

// totals returns key's skips and blocked skips as a snapshot shows them,
// and as the state file itself holds them.
func totals(t *testing.T, s *Circuits, key string) (shown, blocked, inFile int64) {
	t.Helper()
	v, err := s.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	c, _ := v.Circuit(key)
	d, err := s.document()
	if err != nil {
		t.Fatal(err)
	}
	f, _ := d.Circuit(key)
	return c.Totals.Skips, c.Totals.SkipsBlocked, f.Totals.Skips
}

func update(t *testing.T, s *Circuits) {
	t.Helper()
	err := s.Update(t0, func(tx store.CircuitTx) (bool, error) {
		_, err := circuit.Record(tx, "ok", settings, t0, breaker.Result{Outcome: breaker.Success}, circuit.Run{})
		return true, err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestSkipTallyCountsWithoutWriting (issue 36 item 3): a skip counted
// without the lock leaves the state file as it was; every snapshot counts
// it; the next update folds it in, once, however many updates follow.
func TestSkipTallyCountsWithoutWriting(t *testing.T) {
	s, path := tallyStore(t)
	before, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		if err := s.CountSkip("k", i == 0, store.Event{Time: t0, Event: store.EventSkip, Key: "k"}); err != nil {
			t.Fatal(err)
		}
	}
	after, _ := os.Stat(path)
	if !os.SameFile(before, after) || !after.ModTime().Equal(before.ModTime()) {
		t.Error("counting a skip rewrote the state file")
	}
	if shown, blocked, inFile := totals(t, s, "k"); shown != 3 || blocked != 1 || inFile != 0 {
		t.Errorf("before a fold: snapshot %d skips (%d blocked), file %d; want 3 (1), 0", shown, blocked, inFile)
	}
	for range 3 {
		update(t, s)
		if shown, blocked, inFile := totals(t, s, "k"); shown != 3 || blocked != 1 || inFile != 3 {
			t.Errorf("after a fold: snapshot %d skips (%d blocked), file %d; want 3 (1), 3", shown, blocked, inFile)
		}
	}
	s.CountSkip("k", false, store.Event{Time: t0, Event: store.EventSkip, Key: "k"})
	if shown, _, inFile := totals(t, s, "k"); shown != 4 || inFile != 3 {
		t.Errorf("a skip after the fold: snapshot %d, file %d; want 4, 3", shown, inFile)
	}
	// A key the state no longer has takes none, and breaks nothing.
	s.CountSkip("gone", false, store.Event{Time: t0, Event: store.EventSkip, Key: "gone"})
	update(t, s)
	if shown, _, inFile := totals(t, s, "k"); shown != 4 || inFile != 4 {
		t.Errorf("after the second fold: snapshot %d, file %d; want 4, 4", shown, inFile)
	}
	if v, _ := s.Snapshot(); v.Has("gone") {
		t.Error("a skip of a key with no entry made one")
	}
}

// TestSkipTallyRotates: once folded past tallyRotateAt, the tally starts
// afresh (a new ID); nothing is lost or counted twice across rotations,
// and a tally cut short by a crash loses its torn line only.
func TestSkipTallyRotates(t *testing.T) {
	s, path := tallyStore(t)
	key := strings.Repeat("x", 200) // so that a few hundred skips pass tallyRotateAt
	s.Update(t0, func(tx store.CircuitTx) (bool, error) {
		c := breaker.Circuit{}
		c.Trip(t0, 0, "by hand")
		tx.Put(key, c)
		return true, nil
	})
	want := int64(0)
	var ids []string
	for round := range 4 {
		for range tallyRotateAt/200 + 1 {
			if err := s.CountSkip(key, false, store.Event{}); err != nil {
				t.Fatal(err)
			}
			want++
		}
		data, _ := os.ReadFile(tallyPath(path))
		ids = append(ids, strings.SplitN(string(data), "\n", 2)[0])
		update(t, s)
		if shown, _, inFile := totals(t, s, key); shown != want || inFile != want {
			t.Fatalf("round %d: snapshot %d, file %d; want %d", round, shown, inFile, want)
		}
		if fi, _ := os.Stat(tallyPath(path)); fi.Size() > int64(len(tallyHeader)+17) {
			t.Fatalf("round %d: the tally was not started afresh once folded (%d bytes)", round, fi.Size())
		}
	}
	for i := 1; i < len(ids); i++ {
		if ids[i] == ids[i-1] {
			t.Errorf("the tally kept its ID %q across a rotation", ids[i])
		}
	}
	// A line a crash cut short, then more: the torn one alone is lost.
	s.CountSkip(key, false, store.Event{})
	f, _ := os.OpenFile(tallyPath(path), os.O_WRONLY|os.O_APPEND, 0)
	f.WriteString(`0 "` + key[:10])
	f.Close()
	s.CountSkip(key, true, store.Event{})
	s.CountSkip(key, false, store.Event{})
	if shown, blocked, _ := totals(t, s, key); shown != want+2 || blocked != 0 {
		// The torn line swallows the record appended after it.
		t.Errorf("after a torn line: %d skips (%d blocked); want %d (0)", shown, blocked, want+2)
	}
}

// TestSkipTallyUnderConcurrency: skips counted from many goroutines while
// updates fold: the state ends up with every one, once, and the totals a
// snapshot shows never go down.
func TestSkipTallyUnderConcurrency(t *testing.T) {
	s, path := tallyStore(t)
	const skippers, each = 8, 100
	var wg sync.WaitGroup
	for range skippers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// Each its own Circuits, as each guard process has its own.
			s, err := openCircuits(path, statefile.Options{LockTimeout: 5 * time.Second}, hookstate.Retention{}, nil, nil)
			if err != nil {
				t.Error(err)
				return
			}
			for range each {
				if err := s.CountSkip("k", false, store.Event{}); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	var last int64
	for running := true; running; {
		select {
		case <-done:
			running = false
		default:
		}
		update(t, s)
		shown, _, _ := totals(t, s, "k")
		if shown < last {
			t.Fatalf("the skips a snapshot shows went down: %d after %d", shown, last)
		}
		last = shown
	}
	update(t, s)
	if shown, _, inFile := totals(t, s, "k"); shown != skippers*each || inFile != skippers*each {
		t.Errorf("after %d skips: snapshot %d, file %d", skippers*each, shown, inFile)
	}
}

// TestImportStartsTheTallyAfresh: an imported state counts the skips after
// the import only, whatever its own mark says.
func TestImportStartsTheTallyAfresh(t *testing.T) {
	s, _ := tallyStore(t)
	s.CountSkip("k", false, store.Event{})
	update(t, s)
	exported, err := s.Export()
	if err != nil {
		t.Fatal(err)
	}
	s.CountSkip("k", false, store.Event{}) // the replaced state's, not folded
	if err := s.Import(exported, t0, "x", func([]byte) (string, error) { return "", nil }); err != nil {
		t.Fatal(err)
	}
	if shown, _, _ := totals(t, s, "k"); shown != 1 {
		t.Errorf("after the import: %d skips; want the export's 1", shown)
	}
	s.CountSkip("k", true, store.Event{})
	update(t, s)
	if shown, blocked, inFile := totals(t, s, "k"); shown != 2 || blocked != 1 || inFile != 2 {
		t.Errorf("a skip after the import: snapshot %d (%d blocked), file %d; want 2 (1), 2", shown, blocked, inFile)
	}
}

// TestSkipTallyLockHeldElsewhere: a tally whose lock a stopped process
// holds makes no guard wait for ever: a skip gives up within the state's
// lock timeout (then counted under the state's lock), and an update,
// which holds the state's lock, does not wait for it at all and folds
// later (review of b7d9749).
func TestSkipTallyLockHeldElsewhere(t *testing.T) {
	s, path := tallyStore(t) // lock_timeout 5s
	if err := s.CountSkip("k", false, store.Event{Time: t0, Event: store.EventSkip, Key: "k"}); err != nil {
		t.Fatal(err)
	}
	held, err := os.OpenFile(tallyPath(path), os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := lockFile(held); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 2)
	go func() {
		done <- s.CountSkip("k", false, store.Event{Time: t0, Event: store.EventSkip, Key: "k"})
	}()
	go func() {
		done <- s.Update(t0, func(tx store.CircuitTx) (bool, error) {
			_, err := circuit.Record(tx, "ok", settings, t0, breaker.Result{Outcome: breaker.Success}, circuit.Run{})
			return true, err
		})
	}()
	var errs []error
	for range 2 {
		select {
		case err := <-done:
			errs = append(errs, err)
		case <-time.After(time.Minute):
			t.Fatal("a skip or an update waited on the tally's lock")
		}
	}
	busy, ok := 0, 0
	for _, err := range errs {
		switch {
		case err == nil:
			ok++
		case strings.Contains(err.Error(), "skip tally"):
			busy++
		}
	}
	if busy != 1 || ok != 1 {
		t.Errorf("got %v; want the skip refused (the tally's lock) and the update done", errs)
	}
	closeLocked(held)
	update(t, s)
	if shown, _, inFile := totals(t, s, "k"); shown != 1 || inFile != 1 {
		t.Errorf("once the lock is let go: snapshot %d, file %d; want the first skip, folded: 1, 1", shown, inFile)
	}
}
