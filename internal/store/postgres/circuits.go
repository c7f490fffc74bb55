package postgres

import (
	"time"

	"guard/breaker"
	"guard/internal/store"
	"guard/internal/store/hookstate"
	"guard/statefile"
)

// hooks is the name of the hook state's document.
const hooks = "hooks"

// Circuits is the hook state in the database, as a store.Circuits.
type Circuits struct {
	db        *DB
	retention time.Duration
	// OnSetAside, if set, hears of each entry an update set aside.
	OnSetAside func(a store.Aside, where string)
}

// Circuits returns the hook state; see hookstate.Store for retention.
func (db *DB) Circuits(retention time.Duration) *Circuits {
	return &Circuits{db: db, retention: retention}
}

// Peek returns key's circuit; see store.Circuits.
func (c *Circuits) Peek(key string) (breaker.Circuit, error) {
	doc, err := c.db.read(hooks)
	if err != nil || doc == nil {
		return breaker.Circuit{}, err
	}
	return hookstate.PeekData(doc, key)
}

// circuitTx is the hook state inside one transaction, with the database's
// clock.
type circuitTx struct {
	*hookstate.Document
	now time.Time
}

func (t circuitTx) Now() time.Time { return t.now }

// Update runs fn in one transaction; see store.Circuits. A document that
// does not parse is set aside whole, as the file backend sets a file
// aside, and the state starts afresh.
func (c *Circuits) Update(now time.Time, fn func(tx store.CircuitTx) (bool, error)) error {
	var aside []store.Aside
	err := c.db.update(hooks, now, func(doc []byte, now time.Time) ([]byte, []store.Event, []store.Aside, error) {
		d := &hookstate.Document{}
		var lost []store.Aside
		if doc != nil {
			if err := d.UnmarshalState(doc); err != nil {
				lost = append(lost, store.Aside{Key: "(the whole hook state)", Raw: doc, Err: err})
				d = &hookstate.Document{}
			}
		}
		changed, err := fn(circuitTx{d, now})
		if err != nil {
			return nil, nil, nil, err
		}
		events := d.Pending()
		aside = append(lost, d.Aside()...)
		for _, a := range aside {
			events = append(events, store.Event{Time: now, Event: store.EventQuarantine, Key: a.Key, File: "guard_quarantine", Error: a.Err.Error()})
		}
		if !changed && len(aside) == 0 {
			return nil, events, nil, nil
		}
		d.Tidy(now, hookstate.Retention{Idle: c.retention})
		c.db.relax = d.Relaxed() && len(lost) == 0
		out, err := d.MarshalState()
		return out, events, aside, err
	})
	if err == nil && c.OnSetAside != nil {
		for _, a := range aside {
			c.OnSetAside(a, "the table guard_quarantine")
		}
	}
	return err
}

// Snapshot returns the hook state; see store.Circuits.
func (c *Circuits) Snapshot() (store.CircuitView, error) {
	doc, err := c.db.read(hooks)
	if err != nil {
		return nil, err
	}
	d := &hookstate.Document{}
	if doc != nil {
		if err := d.UnmarshalState(doc); err != nil {
			return nil, statefile.Corrupt(err)
		}
	}
	return d, nil
}
