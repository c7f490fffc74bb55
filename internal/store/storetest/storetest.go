// Package storetest is an in-memory backend of the store interfaces, for
// tests: the test double that shows the run protocol and the budget rules
// depend on nothing but the interfaces. It keeps everything in maps under
// one mutex; a transaction works on a copy, committed only when its
// function succeeds and reports a change. It is safe for concurrent use.
package storetest

import (
	"maps"
	"slices"
	"sort"
	"sync"
	"time"

	"guard/breaker"
	"guard/internal/store"
)

// Circuits is an in-memory store.Circuits.
type Circuits struct {
	mu       sync.Mutex
	circuits map[string]breaker.Circuit
	stats    store.Stats
	events   []store.Event
	updates  int // transactions committed
	relaxed  int // of which relaxed (store.CircuitTx.Relax)
}

// NewCircuits returns an empty store.
func NewCircuits() *Circuits { return &Circuits{circuits: map[string]breaker.Circuit{}} }

// Peek returns key's circuit.
func (c *Circuits) Peek(key string) (breaker.Circuit, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return clone(c.circuits[key]), nil
}

// Update runs fn on a copy of the state and commits it if fn succeeds and
// reports a change; fn's events are logged either way unless it failed.
func (c *Circuits) Update(now time.Time, fn func(tx store.CircuitTx) (bool, error)) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := &tx{circuits: maps.Clone(c.circuits), stats: c.stats}
	changed, err := fn(t)
	if err != nil {
		return err
	}
	if changed {
		t.stats.LastUpdated = now
		c.circuits, c.stats = t.circuits, t.stats
		c.updates++
		if t.relaxed {
			c.relaxed++
		}
	}
	c.events = append(c.events, t.events...)
	return nil
}

// Snapshot returns a copy of the state.
func (c *Circuits) Snapshot() (store.CircuitView, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return &tx{circuits: maps.Clone(c.circuits), stats: c.stats}, nil
}

// Events returns the events logged so far.
func (c *Circuits) Events() []store.Event {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.events)
}

// Relaxed returns how many of the transactions that changed the state were
// relaxed.
func (c *Circuits) Relaxed() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.relaxed
}

// Updates returns how many transactions changed the state.
func (c *Circuits) Updates() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.updates
}

type tx struct {
	circuits map[string]breaker.Circuit
	stats    store.Stats
	events   []store.Event
	relaxed  bool
}

func (t *tx) Keys() []string {
	keys := slices.Collect(maps.Keys(t.circuits))
	sort.Strings(keys)
	return keys
}
func (t *tx) Has(key string) bool { _, ok := t.circuits[key]; return ok }
func (t *tx) Circuit(key string) (breaker.Circuit, error) {
	return clone(t.circuits[key]), nil
}
func (t *tx) Stats() store.Stats     { return t.stats }
func (t *tx) Aside() []store.Aside   { return nil }
func (t *tx) Log(evs ...store.Event) { t.events = append(t.events, evs...) }
func (t *tx) Count(_ string, executions, failures int) {
	t.stats.TotalExecutions += int64(executions)
	t.stats.TotalFailures += int64(failures)
}

// Relax counts relaxed transactions (see Circuits.Relaxed).
func (t *tx) Relax() { t.relaxed = true }

func (t *tx) Rename(from, to string) (bool, error) {
	c, ok := t.circuits[from]
	if _, taken := t.circuits[to]; !ok || taken || from == to {
		return false, nil
	}
	t.circuits[to] = c
	delete(t.circuits, from)
	return true, nil
}

func (t *tx) Put(key string, c breaker.Circuit) {
	wasOpen := t.circuits[key].State == breaker.Open
	t.circuits[key] = clone(c)
	if isOpen := c.State == breaker.Open; isOpen != wasOpen {
		if isOpen {
			t.stats.HooksDisabled++
		} else {
			t.stats.HooksDisabled--
		}
	}
}

// clone copies c's slices, so that the caller's changes stay its own.
func clone(c breaker.Circuit) breaker.Circuit {
	c.Failures = slices.Clone(c.Failures)
	c.Leases = slices.Clone(c.Leases)
	return c
}

// Runs is an in-memory store.Runs. A slot's holder never dies by itself:
// List asks alive, and Release frees it.
type Runs struct {
	mu   sync.Mutex
	next int
	runs map[int]store.Run
}

// NewRuns returns a Runs with no run in flight.
func NewRuns() *Runs { return &Runs{runs: map[int]store.Run{}} }

// Acquire takes a slot for r; see store.Runs.
func (rs *Runs) Acquire(r store.Run, limit int, wait time.Duration, stop func() bool) (store.Slot, error) {
	deadline := time.Now().Add(wait)
	for {
		rs.mu.Lock()
		n := 0
		for _, o := range rs.runs {
			if o.Key == r.Key {
				n++
			}
		}
		if limit <= 0 || n < limit {
			rs.next++
			id := rs.next
			rs.runs[id] = r
			rs.mu.Unlock()
			return &slot{rs: rs, id: id}, nil
		}
		rs.mu.Unlock()
		if stop != nil && stop() {
			return nil, store.ErrStopped
		}
		if !time.Now().Before(deadline) {
			return nil, store.ErrFull
		}
		time.Sleep(time.Millisecond)
	}
}

// List returns the runs in flight whose holder alive accepts.
func (rs *Runs) List(alive func(store.Holder) bool) ([]store.Run, error) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	var out []store.Run
	for _, r := range rs.runs {
		if alive(r.Holder) {
			out = append(out, r)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Started.Before(out[j].Started) })
	return out, nil
}

type slot struct {
	rs *Runs
	id int
}

func (s *slot) Started(childPID int) {
	s.rs.mu.Lock()
	defer s.rs.mu.Unlock()
	if r, ok := s.rs.runs[s.id]; ok {
		r.ChildPID = childPID
		s.rs.runs[s.id] = r
	}
}

func (s *slot) Release() {
	s.rs.mu.Lock()
	defer s.rs.mu.Unlock()
	delete(s.rs.runs, s.id)
}

var (
	_ store.Circuits  = (*Circuits)(nil)
	_ store.CircuitTx = (*tx)(nil)
	_ store.Runs      = (*Runs)(nil)
)
