package hookstate

import (
	"encoding/json"
	"time"

	"guard/breaker"
	"guard/eventlog"
	"guard/statefile"
)

// The operations below apply one breaker step to one key and keep the
// document's global stats in step. Callers run them inside Store.Update.
// Each returns an error matching statefile.ErrCorrupt if key's entry does
// not decode.

// Admit asks key's circuit whether a call may run (see breaker.Circuit.Admit)
// and counts the call as skipped if it may not.
func (d *Document) Admit(key string, s breaker.Settings, now time.Time, holder breaker.Lease, alive func(breaker.Lease) bool) (breaker.Decision, error) {
	c, err := d.Circuit(key)
	if err != nil {
		return breaker.Decision{}, err
	}
	dec := c.Admit(s, now, holder, alive)
	if !dec.Run {
		c.Skip()
	}
	for _, ev := range dec.Events {
		if ev.Kind == breaker.Reaped {
			d.GlobalStats.TotalFailures++
		}
	}
	d.noteBreaker(key, now, &c, dec.Events)
	if !dec.Run {
		e := eventlog.Event{Time: now, Event: "skip", Key: key, Reason: string(dec.Skip), State: string(c.State)}
		if !c.RetryAfter.IsZero() {
			e.Until = statefile.TimeOf(ceilSecond(c.RetryAfter)).UTC().Format(statefile.TimeLayout)
		}
		d.Note(e)
	}
	if dec.Changed || !dec.Run {
		d.put(key, c)
	}
	return dec, nil
}

// A Run is what became of one run, for the event log.
type Run struct {
	Exit     int           // the status guard exits with
	Duration time.Duration // how long the command ran
}

// Record applies the outcome of a call of key that ran.
func (d *Document) Record(key string, s breaker.Settings, now time.Time, r breaker.Result, run Run) ([]breaker.Event, error) {
	c, err := d.Circuit(key)
	if err != nil {
		return nil, err
	}
	events := c.Record(s, now, r)
	d.put(key, c)
	d.GlobalStats.TotalExecutions++
	if r.Outcome == breaker.Failure || r.Outcome == breaker.Abandoned {
		d.GlobalStats.TotalFailures++
	}
	d.Note(eventlog.Event{
		Time: now, Event: "run", Key: key, Outcome: string(r.Outcome),
		Exit: eventlog.Int(run.Exit), DurationMS: eventlog.Int64(run.Duration.Milliseconds()),
		Error: r.Error, Probe: r.Probe, State: string(c.State),
	})
	d.noteBreaker(key, now, &c, events)
	return events, nil
}

// Reject counts a call of key that was not run because its concurrency
// limit was reached.
func (d *Document) Reject(key string, now time.Time, reason string) error {
	c, err := d.Circuit(key)
	if err != nil {
		return err
	}
	c.Reject()
	d.put(key, c)
	d.Note(eventlog.Event{Time: now, Event: "rejected", Key: key, Reason: reason})
	return nil
}

// Reset closes key's circuit. It reports false if key has no entry.
func (d *Document) Reset(key string, now time.Time) (breaker.Event, bool, error) {
	if !d.Has(key) {
		return breaker.Event{}, false, nil
	}
	c, err := d.Circuit(key)
	if err != nil {
		return breaker.Event{}, false, err
	}
	from := c.State
	ev := c.Reset(now)
	d.put(key, c)
	d.Note(eventlog.Event{Time: now, Event: "reset", Key: key, From: string(orClosed(from)), To: string(breaker.Closed), Reason: ev.Reason})
	return ev, true, nil
}

func orClosed(s breaker.State) breaker.State {
	if s == "" {
		return breaker.Closed
	}
	return s
}

// Trip forces key's circuit open; see breaker.Circuit.Trip. A key with no
// entry gets one, so a hook can be stopped before it first runs.
func (d *Document) Trip(key string, now time.Time, dur time.Duration, reason string) (breaker.Event, error) {
	c, err := d.Circuit(key)
	if err != nil {
		return breaker.Event{}, err
	}
	from := c.State
	ev := c.Trip(now, dur, reason)
	d.put(key, c)
	e := eventlog.Event{Time: now, Event: "trip", Key: key, From: string(orClosed(from)), To: string(breaker.Open), Reason: ev.Reason}
	if dur > 0 {
		e.Until = statefile.TimeOf(ceilSecond(c.RetryAfter)).UTC().Format(statefile.TimeLayout)
	}
	d.Note(e)
	return ev, nil
}

// Probe lets key's open circuit probe now; see breaker.Circuit.Probe.
func (d *Document) Probe(key string, now time.Time) (breaker.Event, bool, error) {
	c, err := d.Circuit(key)
	if err != nil {
		return breaker.Event{}, false, err
	}
	ev, changed, err := c.Probe(now)
	if changed {
		d.put(key, c)
		d.Note(eventlog.Event{Time: now, Event: "probe", Key: key, From: string(ev.From), To: string(ev.To), Reason: ev.Reason})
	}
	return ev, changed, err
}

// sweepEvery is how often a write also sweeps the whole document: a pass
// that decodes every entry, prunes idle ones and recounts the open
// circuits. Between sweeps a write touches only the entries it changed.
const sweepEvery = time.Hour

// tidy brings the document's bookkeeping up to date before a write: the
// version, the update time and, at most once every sweepEvery, the sweep:
// keys that have been closed, failure-free and idle for longer than
// retention (0 keeps every key) are pruned, and hooks_disabled is
// recounted (writes in between keep it in step themselves).
func (d *Document) tidy(now time.Time, retention time.Duration) {
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
