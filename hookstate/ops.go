package hookstate

import (
	"time"

	"guard/breaker"
)

// The operations below apply one breaker step to one key and keep the
// document's global stats in step. Callers run them inside Store.Update.

// Admit asks key's circuit whether a call may run (see breaker.Circuit.Admit)
// and counts the call as skipped if it may not.
func (d *Document) Admit(key string, s breaker.Settings, now time.Time, holder breaker.Lease, alive func(breaker.Lease) bool) breaker.Decision {
	c := d.Circuit(key)
	dec := c.Admit(s, now, holder, alive)
	if !dec.Run {
		c.Skip()
	}
	for _, ev := range dec.Events {
		if ev.Kind == breaker.Reaped {
			d.GlobalStats.TotalFailures++
		}
	}
	if dec.Changed || !dec.Run {
		d.put(key, c)
	}
	return dec
}

// Record applies the outcome of a call of key that ran.
func (d *Document) Record(key string, s breaker.Settings, now time.Time, r breaker.Result) []breaker.Event {
	c := d.Circuit(key)
	events := c.Record(s, now, r)
	d.put(key, c)
	d.GlobalStats.TotalExecutions++
	if r.Outcome == breaker.Failure || r.Outcome == breaker.Abandoned {
		d.GlobalStats.TotalFailures++
	}
	return events
}

// Reject counts a call of key that was not run because its concurrency
// limit was reached.
func (d *Document) Reject(key string) {
	c := d.Circuit(key)
	c.Reject()
	d.put(key, c)
}

// Reset closes key's circuit. It reports false if key has no entry.
func (d *Document) Reset(key string, now time.Time) (breaker.Event, bool) {
	if d.Hooks[key] == nil {
		return breaker.Event{}, false
	}
	c := d.Circuit(key)
	ev := c.Reset(now)
	d.put(key, c)
	return ev, true
}

// Trip forces key's circuit open; see breaker.Circuit.Trip. A key with no
// entry gets one, so a hook can be stopped before it first runs.
func (d *Document) Trip(key string, now time.Time, dur time.Duration, reason string) breaker.Event {
	c := d.Circuit(key)
	ev := c.Trip(now, dur, reason)
	d.put(key, c)
	return ev
}

// Probe lets key's open circuit probe now; see breaker.Circuit.Probe.
func (d *Document) Probe(key string, now time.Time) (breaker.Event, bool, error) {
	c := d.Circuit(key)
	ev, changed, err := c.Probe(now)
	if changed {
		d.put(key, c)
	}
	return ev, changed, err
}

// tidy brings the document's bookkeeping up to date before a write: the
// version, the count of open circuits, the update time, and the pruning of
// keys that have been closed, failure-free and idle for longer than
// retention (0 keeps every key).
func (d *Document) tidy(now time.Time, retention time.Duration) {
	d.Version = max(d.Version, Version)
	open := 0
	for key, h := range d.Hooks {
		if h == nil {
			delete(d.Hooks, key)
			continue
		}
		switch breaker.State(h.State) {
		case breaker.Open:
			open++
		case breaker.Closed, "":
			idle := h.lastActivity()
			if retention > 0 && h.FailureCount == 0 && len(h.ProbeLeases) == 0 &&
				!idle.IsZero() && now.Sub(idle) > retention {
				delete(d.Hooks, key)
			}
		}
	}
	d.GlobalStats.HooksDisabled = open
	d.GlobalStats.LastUpdated.Time = now
}
