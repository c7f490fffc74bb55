package dashboard

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"time"

	"guard/breaker"
	"guard/internal/cooldown"
	"guard/internal/store"
	"guard/internal/view"
)

// A Model is the dashboard's content: every key's circuit and what its
// events in the window add up to, the runs in flight, the budgets. New
// reads it all once; each Refresh reads only what changed, and dates what
// it changed with a version, so that a live page fetches only that.
//
// A Model is not safe for concurrent use.
type Model struct {
	src  *Source
	tail store.Tail // nil: the log cannot be tailed, and is read whole

	now, end time.Time // the last refresh, and the end of its window
	version  int64
	// base is the version before which a page must be fetched whole: the
	// window moved (every timeline shifted), or keys were forgotten.
	base int64

	keys    map[string]*keyModel
	nextID  int
	removed map[int]int64 // ids of keys gone, and when

	runs      []store.Run
	cooldown  *store.Cooldown
	budgets   []BudgetRow
	budgetsAt int64 // version of the last change
	hostsAt   int64
	fprint    string
	resynced  time.Time
	warnings  []string
}

// A keyModel is one key.
type keyModel struct {
	id      int
	key     string
	circuit breaker.Circuit
	known   bool // the state has an entry for it
	runs    []store.Run
	agg     keyAgg
	at      int64 // version of its last change
}

// New reads the state src names, and the events of the window that ends
// at now.
func New(src *Source, now time.Time) (*Model, error) {
	m := &Model{src: src, keys: map[string]*keyModel{}, removed: map[int]int64{}}
	if t, ok := src.Events.(store.Tailer); ok {
		m.tail = t.Tail(m.inWindow)
	}
	if _, err := m.Refresh(now); err != nil {
		return nil, err
	}
	return m, nil
}

// inWindow is the filter of the events the Model reads: those of the
// window, and none of the kinds it does not show.
func (m *Model) inWindow(ev *store.Event) bool {
	return !ev.Time.Before(m.end.Add(-Window))
}

// Version is the version of the Model's content.
func (m *Model) Version() int64 { return m.version }

// Refresh brings the Model up to date at now, reading only what changed:
// the events appended since the last refresh, the circuits of the keys
// they name, the runs in flight, the budgets if their log moved. It
// reports whether anything changed; if so, the version went up.
func (m *Model) Refresh(now time.Time) (bool, error) {
	next := m.version + 1
	changed := false
	touch := func(k *keyModel) { k.at, changed = next, true }
	first := m.end.IsZero()
	prev := m.now
	m.now = now
	if end := now.Truncate(time.Hour).Add(time.Hour); !end.Equal(m.end) {
		// Another hour: every timeline moves along.
		m.end = end
		for _, k := range m.keys {
			k.agg.prune(end.Add(-Window), now.Add(-MinuteSpan))
			touch(k)
		}
		m.base, m.hostsAt, changed = next, next, true
		clear(m.removed) // a page older than base is fetched whole
	}

	// What the log says happened.
	dirty := map[string]bool{}
	budgets, resync := first, first
	events := 0
	handle := func(ev *store.Event) {
		events++
		switch ev.Event {
		case store.EventCooldown, store.EventCooldownRecord, store.EventCooldownHealth, store.EventMark:
			budgets = true
			return
		case store.EventImport, store.EventQuarantine:
			resync, budgets = true, true
		}
		if ev.Key == "" {
			return
		}
		k := m.key(ev.Key)
		k.agg.add(ev, now.Add(-MinuteSpan))
		dirty[ev.Key] = true
		if ev.Host != "" && (ev.Event == store.EventTrip || ev.Event == store.EventTransition && ev.To == string(breaker.Open)) {
			m.hostsAt, changed = next, true
		}
	}
	var err error
	if m.tail != nil {
		err = m.tail.Next(handle)
	} else if m.src.Events != nil {
		err = m.readAll(handle)
	}
	if err != nil {
		return false, fmt.Errorf("cannot read the event log: %w", err)
	}

	// The circuits: those of the keys the log named, or every one if the
	// state changed in a way the log does not explain.
	if m.src.Fingerprint != nil {
		if f := m.src.Fingerprint(); f != m.fprint {
			m.fprint = f
			if events == 0 {
				resync, budgets = true, true
			}
		}
	} else if now.Sub(m.resynced) >= Resync || now.Before(m.resynced) {
		resync = true
	}
	if resync || len(dirty) > peekLimit {
		if err := m.readCircuits(touch); err != nil {
			return false, err
		}
		m.resynced = now
	} else {
		for key := range dirty {
			c, err := m.src.Hooks.Circuits.Peek(key)
			if err != nil {
				continue // set aside by the next update; the next resync says so
			}
			k := m.keys[key]
			k.circuit, k.known = c, k.known || !reflect.DeepEqual(c, breaker.Circuit{})
		}
	}
	for key := range dirty {
		touch(m.keys[key])
	}

	// The runs in flight.
	runs, err := m.src.Hooks.Runs.List(m.src.Alive)
	if err == nil && !reflect.DeepEqual(runs, m.runs) {
		m.runs = runs
		byKey := map[string][]store.Run{}
		for _, r := range runs {
			byKey[r.Key] = append(byKey[r.Key], r)
		}
		for key, k := range m.keys {
			if !reflect.DeepEqual(k.runs, byKey[key]) {
				k.runs = byKey[key]
				touch(k)
			}
			delete(byKey, key)
		}
		for key, rs := range byKey { // a first run, before its key has state
			k := m.key(key)
			k.runs = rs
			touch(k)
		}
		m.hostsAt, changed = next, true
	}

	// What time alone changes: an open circuit whose retry time came; a
	// sparkline of the last hours, which moves along every few minutes.
	moved := !now.Truncate(5 * time.Minute).Equal(prev.Truncate(5 * time.Minute))
	for _, k := range m.keys {
		if ra := k.circuit.RetryAfter; k.circuit.State == breaker.Open && ra.After(prev) && !ra.After(now) {
			touch(k)
		}
		if moved && k.agg.recent(now) {
			k.agg.prune(m.end.Add(-Window), now.Add(-MinuteSpan))
			touch(k)
		}
	}

	// The budgets: when their log moved, or a slot may have freed.
	for _, b := range m.budgets {
		if b.Full && !b.next.IsZero() && b.next.After(prev) && !b.next.After(now) {
			budgets = true
		}
	}
	if budgets {
		rows, err := m.readBudgets(now)
		if err != nil {
			m.warn(fmt.Sprintf("budgets left out: %v", view.ErrorLine(err)))
		} else if !reflect.DeepEqual(rows, m.budgets) {
			m.budgets, m.budgetsAt, changed = rows, next, true
		}
	}
	if changed {
		m.version = next
	}
	return changed, nil
}

// key returns key's model, made if it is new.
func (m *Model) key(key string) *keyModel {
	k := m.keys[key]
	if k == nil {
		m.nextID++
		k = &keyModel{id: m.nextID, key: key}
		m.keys[key] = k
	}
	return k
}

// readAll reads the window's events whole, for an Events that cannot be
// tailed, and starts every key's aggregate afresh.
func (m *Model) readAll(fn func(*store.Event)) error {
	res, err := m.src.Events.Read(m.inWindow)
	if err != nil {
		return err
	}
	for _, k := range m.keys {
		k.agg = keyAgg{}
	}
	for i := range res.Events {
		fn(&res.Events[i])
	}
	return nil
}

// readCircuits reads every circuit, and touches the keys whose circuit
// changed, came or went.
func (m *Model) readCircuits(touch func(*keyModel)) error {
	v, err := m.src.Hooks.Circuits.Snapshot()
	if errors.Is(err, store.ErrCorrupt) {
		return fmt.Errorf("%w; the next guard run will move it aside", err)
	}
	if err != nil {
		return fmt.Errorf("cannot read state: %w", err)
	}
	seen := map[string]bool{}
	for _, key := range v.Keys() {
		c, err := v.Circuit(key)
		if err != nil {
			continue // set aside (see Aside)
		}
		seen[key] = true
		k := m.key(key)
		if !k.known || !reflect.DeepEqual(c, k.circuit) {
			k.circuit, k.known = c, true
			touch(k)
		}
	}
	m.warnings = m.warnings[:0]
	for _, a := range v.Aside() {
		m.warnings = append(m.warnings, view.AsideWarning(a))
	}
	for key, k := range m.keys {
		if seen[key] {
			continue
		}
		if k.known {
			// Gone from the state (pruned, or a state imported).
			k.known, k.circuit = false, breaker.Circuit{}
			touch(k)
		}
		if k.agg.empty() && len(k.runs) == 0 {
			m.removed[k.id] = m.version + 1
			delete(m.keys, key)
		}
	}
	return nil
}

// warn keeps a warning for the page.
func (m *Model) warn(s string) {
	if !slices.Contains(m.warnings, s) {
		m.warnings = append(m.warnings, s)
	}
}

// readBudgets reads the budgets of every service, as 'guard cooldown
// status' has them.
func (m *Model) readBudgets(now time.Time) ([]BudgetRow, error) {
	if m.cooldown == nil && m.src.Cooldown != nil {
		cd, err := m.src.Cooldown()
		if err != nil || cd == nil {
			return nil, err
		}
		m.cooldown = cd
	}
	if m.cooldown == nil {
		return nil, nil
	}
	v, err := m.cooldown.Budgets.Snapshot()
	if err != nil {
		return nil, err
	}
	var rows []BudgetRow
	for _, service := range v.ServiceNames() {
		for _, a := range m.cooldown.Actions {
			verdict, err := cooldown.Check(v, service, a, 1, now)
			if err != nil {
				return nil, err
			}
			rows = append(rows, budgetRow(service, a, verdict, now))
		}
	}
	sort.SliceStable(rows, func(i, j int) bool { return rows[i].Full && !rows[j].Full })
	return rows, nil
}
