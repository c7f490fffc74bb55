package hookstate

import (
	"encoding/json"
	"time"

	"guard/breaker"
	"guard/internal/store"
)

// A Document is the JSON file's store.CircuitTx: the methods below are
// what package circuit's steps use inside an update.

// Rename moves from's entry, whole (members guard does not know
// included), to the key to, if from has one and to has none
// (store.CircuitTx).
func (d *Document) Rename(from, to string) (bool, error) {
	if from == to || !d.Has(from) || d.Has(to) {
		return false, nil
	}
	h, err := d.Hook(from)
	if err != nil || h == nil {
		return false, err
	}
	d.setHook(to, h)
	d.remove(from)
	return true, nil
}

// Put stores c as key's circuit (store.CircuitTx).
func (d *Document) Put(key string, c breaker.Circuit) { d.put(key, c) }

// Count adds to the totals of global_stats (store.CircuitTx): the file
// keeps them there, whatever the key.
func (d *Document) Count(_ string, executions, failures int) {
	d.GlobalStats.TotalExecutions += int64(executions)
	d.GlobalStats.TotalFailures += int64(failures)
}

// Log queues events for the next write (store.CircuitTx); see Note.
func (d *Document) Log(events ...store.Event) { d.Note(events...) }

// Stats returns global_stats (store.CircuitView).
func (d *Document) Stats() store.Stats {
	g := &d.GlobalStats
	return store.Stats{TotalExecutions: g.TotalExecutions, TotalFailures: g.TotalFailures, HooksDisabled: g.HooksDisabled, LastUpdated: g.LastUpdated.Time}
}

var _ store.CircuitTx = (*Document)(nil)

// sweepEvery is how often a write also sweeps the whole document: a pass
// that decodes every entry, prunes idle ones and recounts the open
// circuits. Between sweeps a write touches only the entries it changed.
const sweepEvery = time.Hour

// Retention says which idle keys a sweep prunes.
type Retention struct {
	// Idle: a key closed, failure-free and idle for longer is pruned (0:
	// none is).
	Idle time.Duration
	// Session: a session's key (store.KeySession) idle for longer is pruned
	// whatever its state, unless a probe of it is running: its session
	// has ended (0: as Idle).
	Session time.Duration
}

// Tidy brings the document's bookkeeping up to date before a write: the
// version, the update time and, at most once every sweepEvery, the sweep:
// idle keys are pruned (see Retention), and hooks_disabled is recounted
// (writes in between keep it in step themselves). It reports whether it
// swept.
func (d *Document) Tidy(now time.Time, retention Retention) (swept bool) {
	d.Version = max(d.Version, Version)
	d.GlobalStats.LastUpdated.Time = now
	last := d.GlobalStats.LastSweep.Time
	if !last.IsZero() && now.Sub(last) < sweepEvery && !last.After(now) {
		return false
	}
	d.GlobalStats.LastSweep.Time = now
	d.listAll()
	open := 0
	for _, e := range d.entries {
		if e.gone {
			continue
		}
		h := e.hook
		if h == nil {
			// Look without keeping the decoded entry, so that the write
			// still copies the entry's bytes as they were.
			h = &Hook{}
			if json.Unmarshal(e.raw, h) != nil {
				continue // not guard's to judge; a write that touches it will
			}
		}
		if t := h.PruneAfter(e.key, retention); !t.IsZero() && now.After(t) {
			d.remove(e.key)
			continue
		}
		if breaker.State(h.State) == breaker.Open {
			open++
		}
	}
	d.GlobalStats.HooksDisabled = open
	return true
}

// AddSkips adds skips calls not run, blocked of them blocked, to the
// totals of key's circuit, if key has an entry: the skips guard run
// counted in the skip tally, without the state's lock, folded in. It
// reports whether key has an entry (a key gone since, pruned or removed,
// takes none). A snapshot's totals take them the same way, unwritten.
func (d *Document) AddSkips(key string, skips, blocked int64) (bool, error) {
	if !d.Has(key) {
		return false, nil
	}
	c, err := d.Circuit(key)
	if err != nil {
		return false, err
	}
	c.Totals.Skips += skips
	c.Totals.SkipsBlocked += blocked
	d.put(key, c)
	return true, nil
}
