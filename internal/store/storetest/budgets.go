package storetest

import (
	"maps"
	"slices"
	"sort"
	"sync"
	"time"

	"guard/internal/store"
)

// Budgets is an in-memory store.Budgets: each service's records by action
// name and its streak, and the stamps. It keeps nothing of a file's forms
// (no bare, foreign or unreadable records), which is what shows that the
// rules need none of them.
type Budgets struct {
	mu     sync.Mutex
	state  budgetState
	events []store.Event
}

type budgetState struct {
	services map[string]*service
	stamps   map[string]time.Time
}

type service struct {
	records map[string][]store.Record
	streak  int
}

// NewBudgets returns an empty store.
func NewBudgets() *Budgets {
	return &Budgets{state: budgetState{services: map[string]*service{}, stamps: map[string]time.Time{}}}
}

// clone copies st deeply: a transaction works on a copy.
func (st budgetState) clone() budgetState {
	out := budgetState{services: map[string]*service{}, stamps: maps.Clone(st.stamps)}
	for name, s := range st.services {
		c := &service{records: map[string][]store.Record{}, streak: s.streak}
		for a, rs := range s.records {
			c.records[a] = slices.Clone(rs)
		}
		out.services[name] = c
	}
	return out
}

// Update runs fn on a copy of the state and commits it if fn succeeds and
// reports a change; fn's events are logged either way unless it failed.
func (b *Budgets) Update(now time.Time, fn func(tx store.BudgetTx) (bool, error)) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	t := &budgetTx{budgetState: b.state.clone()}
	changed, err := fn(t)
	if err != nil {
		return err
	}
	if changed {
		b.state = t.budgetState
	}
	b.events = append(b.events, t.events...)
	return nil
}

// Snapshot returns a copy of the state.
func (b *Budgets) Snapshot() (store.BudgetView, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return &budgetTx{budgetState: b.state.clone()}, nil
}

// Events returns the events logged so far.
func (b *Budgets) Events() []store.Event {
	b.mu.Lock()
	defer b.mu.Unlock()
	return slices.Clone(b.events)
}

type budgetTx struct {
	budgetState
	events []store.Event
}

func (t *budgetTx) ServiceNames() []string {
	names := slices.Collect(maps.Keys(t.services))
	sort.Strings(names)
	return names
}

func (t *budgetTx) Loaded() []string { return t.ServiceNames() }

func (t *budgetTx) Records(service string, a store.Action) ([]store.Record, error) {
	s := t.services[service]
	if s == nil {
		return nil, nil
	}
	rs := slices.Clone(s.records[a.Name])
	for i := range rs {
		rs[i].Ref = int64(i + 1)
	}
	return rs, nil
}

func (t *budgetTx) PutRecords(service string, a store.Action, rs []store.Record) error {
	rs = slices.Clone(rs)
	for i := range rs {
		rs[i].Ref = 0
	}
	t.service(service).records[a.Name] = rs
	return nil
}

func (t *budgetTx) service(name string) *service {
	s := t.services[name]
	if s == nil {
		s = &service{records: map[string][]store.Record{}}
		t.services[name] = s
	}
	return s
}

func (t *budgetTx) Streak(service string) int {
	if s := t.services[service]; s != nil {
		return s.streak
	}
	return 0
}

func (t *budgetTx) PutStreak(service string, n int) error {
	t.service(service).streak = n
	return nil
}

func (t *budgetTx) Last(name string) (time.Time, error) { return t.stamps[name], nil }

func (t *budgetTx) Stamps() []string {
	names := slices.Collect(maps.Keys(t.stamps))
	sort.Strings(names)
	return names
}

func (t *budgetTx) PutStamp(name string, at time.Time) error {
	t.stamps[name] = at
	return nil
}

func (t *budgetTx) Log(evs ...store.Event) { t.events = append(t.events, evs...) }

var (
	_ store.Budgets  = (*Budgets)(nil)
	_ store.BudgetTx = (*budgetTx)(nil)
)
