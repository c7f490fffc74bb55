package hookstate

import (
	"encoding/json"
	"time"

	"guard/breaker"
	"guard/internal/circuit"
	"guard/internal/store"
)

// The operations below apply one breaker step to one key (see package
// circuit, which every backend shares). Callers run them inside
// Store.Update. A Document is the store.CircuitTx of the JSON file.

// Admit asks key's circuit whether a call may run; see circuit.Admit.
func (d *Document) Admit(key string, s breaker.Settings, now time.Time, holder breaker.Lease, alive func(breaker.Lease) bool) (breaker.Decision, error) {
	dec, _, err := circuit.Admit(d, key, s, now, holder, alive)
	return dec, err
}

// A Run is what became of one run, for the event log.
type Run = circuit.Run

// Record applies the outcome of a call of key that ran; see circuit.Record.
func (d *Document) Record(key string, s breaker.Settings, now time.Time, r breaker.Result, run Run) ([]breaker.Event, error) {
	return circuit.Record(d, key, s, now, r, run)
}

// Reject counts a rejected call of key; see circuit.Reject.
func (d *Document) Reject(key string, now time.Time, reason string) error {
	return circuit.Reject(d, key, now, reason)
}

// Reset closes key's circuit; see circuit.Reset.
func (d *Document) Reset(key string, now time.Time) (breaker.Event, bool, error) {
	return circuit.Reset(d, key, now)
}

// Trip forces key's circuit open; see circuit.Trip.
func (d *Document) Trip(key string, now time.Time, dur time.Duration, reason string) (breaker.Event, error) {
	return circuit.Trip(d, key, now, dur, reason)
}

// Probe lets key's open circuit probe now; see circuit.Probe.
func (d *Document) Probe(key string, now time.Time) (breaker.Event, bool, error) {
	return circuit.Probe(d, key, now)
}

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

// Count adds to the totals of global_stats (store.CircuitTx).
func (d *Document) Count(executions, failures int) {
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

// tidy brings the document's bookkeeping up to date before a write: the
// version, the update time and, at most once every sweepEvery, the sweep:
// keys that have been closed, failure-free and idle for longer than
// retention (0 keeps every key) are pruned, and hooks_disabled is
// recounted (writes in between keep it in step themselves).
func (d *Document) tidy(now time.Time, retention time.Duration) { d.Tidy(now, retention) }

// Tidy brings the document's bookkeeping up to date before a write; see
// tidy. Another backend that keeps the document whole calls it too.
func (d *Document) Tidy(now time.Time, retention time.Duration) {
	d.Version = max(d.Version, Version)
	d.GlobalStats.LastUpdated.Time = now
	last := d.GlobalStats.LastSweep.Time
	if !last.IsZero() && now.Sub(last) < sweepEvery && !last.After(now) {
		return
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
		switch breaker.State(h.State) {
		case breaker.Open:
			open++
		case breaker.Closed, "":
			idle := h.lastActivity()
			if retention > 0 && h.FailureCount == 0 && len(h.ProbeLeases) == 0 &&
				!idle.IsZero() && now.Sub(idle) > retention {
				d.remove(e.key)
			}
		}
	}
	d.GlobalStats.HooksDisabled = open
}
