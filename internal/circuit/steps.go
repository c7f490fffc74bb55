// The steps: one step of a key's circuit breaker inside a store
// transaction. Each reads the circuit, lets package breaker decide, puts the
// circuit back, keeps the totals in step and logs what happened, on any
// store.CircuitTx, so every backend gets the same steps and the same events.
// Protocol uses Admit, Record and Reject; the CLI's manual controls use
// Reset, Trip and Probe.

package circuit

import (
	"fmt"
	"time"

	"guard/breaker"
	"guard/internal/store"
)

// Admit asks key's circuit whether a call may run (see breaker.Circuit.Admit)
// and counts the call as skipped if it may not. It returns the decision and
// the circuit after it.
func Admit(tx store.CircuitTx, key string, s breaker.Settings, now time.Time, holder breaker.Lease, alive func(breaker.Lease) bool) (breaker.Decision, breaker.Circuit, error) {
	c, err := tx.Circuit(key)
	if err != nil {
		return breaker.Decision{}, c, err
	}
	dec := c.Admit(s, now, holder, witness(tx, key, alive))
	if !dec.Run {
		c.Skip(s.Blocks && !s.Observe)
	}
	reaped := 0
	for _, ev := range dec.Events {
		if ev.Kind == breaker.Reaped {
			reaped++
		}
	}
	tx.Count(key, 0, reaped)
	logBreaker(tx, key, now, &c, dec.Events)
	if !dec.Run {
		tx.Log(SkipEvent(key, s, dec, c, now))
	}
	if dec.Changed || !dec.Run {
		tx.Put(key, c)
	}
	if !dec.Run && !dec.Changed {
		// Only the skip count moved: the store may write it more cheaply
		// (docs/guarantees.md: "Durability").
		tx.Relax()
	}
	return dec, c, nil
}

// SkipEvent is the event of a call of key that dec skips, c its circuit
// (observe mode: one it would have skipped, which runs anyway).
func SkipEvent(key string, s breaker.Settings, dec breaker.Decision, c breaker.Circuit, now time.Time) store.Event {
	e := store.Event{Time: now, Event: store.EventSkip, Key: key, Reason: string(dec.Skip), State: string(c.State)}
	if s.Observe {
		e.Outcome = store.OutcomeObserved // it runs anyway
	} else {
		e.Verdict = store.VerdictOf(s.Blocks)
	}
	switch {
	case dec.Skip == breaker.SkipInterval:
		e.Until = store.Stamp(c.NextStart(s))
	case dec.Skip == breaker.SkipProbing:
		// Its cooldown has passed: the latest a probe of the key may
		// still run is when its lease runs out (none: no time to give).
		if end := leasesEnd(c.Leases); !end.IsZero() {
			e.Until = store.Stamp(end)
		}
	case !c.RetryAfter.IsZero():
		e.Until = store.Stamp(c.RetryAfter)
	}
	return e
}

// witness returns alive, asking tx first where it knows from the state
// whether a holder of key's lease is alive (store.Witness).
func witness(tx store.CircuitTx, key string, alive func(breaker.Lease) bool) func(breaker.Lease) bool {
	w, ok := tx.(store.Witness)
	if !ok {
		return alive
	}
	return func(l breaker.Lease) bool {
		if ok, known := w.Alive(key, store.Holder{Host: l.Host, PID: l.PID, Start: l.Start}); known {
			return ok
		}
		return alive == nil || alive(l)
	}
}

// A Run is what became of one run, for the event log.
type Run struct {
	Exit     int           // the status guard exits with
	Duration time.Duration // how long the command ran
	// Attempts are the runs before it that failed and were tried again
	// (retries), oldest first: each is logged, and only the last outcome,
	// this run's, counts.
	Attempts []Attempt
	// Of is how many runs the call could have had (1 + retries), for the
	// log; 0 when it had no retries.
	Of int
}

// An Attempt is a run that failed and was tried again.
type Attempt struct {
	Time     time.Time // when it ended
	Exit     int
	Duration time.Duration
	Error    string
	Wait     time.Duration // before the next try
}

// Record applies the outcome of a call of key that ran.
func Record(tx store.CircuitTx, key string, s breaker.Settings, now time.Time, r breaker.Result, run Run) ([]breaker.Event, error) {
	c, err := tx.Circuit(key)
	if err != nil {
		return nil, err
	}
	if r.Duration == 0 {
		r.Duration = run.Duration
	}
	healthy := c.State == "" || c.State == breaker.Closed
	healthy = healthy && c.ConsecutiveFailures == 0 && len(c.Leases) == 0
	events := c.Record(s, now, r)
	tx.Put(key, c)
	if healthy && len(events) == 0 && !r.Probe && r.Outcome != breaker.Failure && r.Outcome != breaker.Abandoned {
		// Only counters and timestamps of a closed, healthy circuit moved:
		// the store may write this one more cheaply (docs/guarantees.md: "Durability").
		tx.Relax()
	}
	failed := 0
	if r.Outcome == breaker.Failure || r.Outcome == breaker.Abandoned {
		failed = 1
	}
	tx.Count(key, 1, failed)
	for i, a := range run.Attempts {
		tx.Log(store.Event{
			Time: a.Time, Event: store.EventRetry, Key: key, Outcome: string(breaker.Failure),
			Exit: store.Int(a.Exit), DurationMS: store.Int64(a.Duration.Milliseconds()), Error: a.Error, Probe: r.Probe,
			Reason: fmt.Sprintf("attempt %d of %d failed; tried again %s later", i+1, run.Of, a.Wait.Round(time.Millisecond)),
		})
	}
	e := store.Event{
		Time: now, Event: store.EventRun, Key: key, Outcome: string(r.Outcome),
		Exit: store.Int(run.Exit), DurationMS: store.Int64(run.Duration.Milliseconds()),
		Error: r.Error, Probe: r.Probe, State: string(c.State),
	}
	if len(run.Attempts) > 0 {
		e.Reason = fmt.Sprintf("attempt %d of %d", len(run.Attempts)+1, run.Of)
	}
	tx.Log(e)
	logBreaker(tx, key, now, &c, events)
	return events, nil
}

// Reject counts a call of key that was not run because its concurrency
// limit was reached, and whether its action was blocked (on_skip: block).
func Reject(tx store.CircuitTx, key string, now time.Time, reason string, blocked bool) error {
	c, err := tx.Circuit(key)
	if err != nil {
		return err
	}
	c.Reject(blocked)
	tx.Put(key, c)
	tx.Log(store.Event{Time: now, Event: store.EventRejected, Key: key, Reason: reason, Verdict: store.VerdictOf(blocked)})
	return nil
}

// Reset closes key's circuit. It reports false if key has no state.
func Reset(tx store.CircuitTx, key string, now time.Time) (breaker.Event, bool, error) {
	if !tx.Has(key) {
		return breaker.Event{}, false, nil
	}
	c, err := tx.Circuit(key)
	if err != nil {
		return breaker.Event{}, false, err
	}
	from := c.State
	ev := c.Reset(now)
	tx.Put(key, c)
	tx.Log(store.Event{Time: now, Event: store.EventReset, Key: key, From: string(orClosed(from)), To: string(breaker.Closed), Reason: ev.Reason})
	return ev, true, nil
}

// Trip forces key's circuit open; see breaker.Circuit.Trip. A key with no
// state gets some, so a hook can be stopped before it first runs.
func Trip(tx store.CircuitTx, key string, now time.Time, dur time.Duration, reason string) (breaker.Event, error) {
	c, err := tx.Circuit(key)
	if err != nil {
		return breaker.Event{}, err
	}
	ev := c.Trip(now, dur, reason)
	tx.Put(key, c)
	e := store.Event{Time: now, Event: store.EventTrip, Key: key, From: string(ev.From), To: string(breaker.Open), Reason: ev.Reason}
	if dur > 0 {
		e.Until = store.Stamp(c.RetryAfter)
	}
	tx.Log(e)
	return ev, nil
}

// Probe lets key's open circuit probe now; see breaker.Circuit.Probe.
func Probe(tx store.CircuitTx, key string, now time.Time) (breaker.Event, bool, error) {
	c, err := tx.Circuit(key)
	if err != nil {
		return breaker.Event{}, false, err
	}
	ev, changed, err := c.Probe(now)
	if changed {
		tx.Put(key, c)
		tx.Log(store.Event{Time: now, Event: store.EventProbe, Key: key, From: string(ev.From), To: string(ev.To), Reason: ev.Reason})
	}
	return ev, changed, err
}

// A Manual is who gives a command by hand (guard disable, enable), for the
// event log.
type Manual struct {
	User   string
	Host   string
	PID    int
	Reason string
}

// Disable turns key's circuit off by hand; see breaker.Circuit.Disable. A
// key with no state gets some, so a hook can be turned off before it first
// runs. It reports false, changing nothing, for a key disabled already.
func Disable(tx store.CircuitTx, key string, now time.Time, by Manual) (breaker.Event, bool, error) {
	c, err := tx.Circuit(key)
	if err != nil {
		return breaker.Event{}, false, err
	}
	ev, changed := c.Disable(now, breaker.Disable{User: by.User, Host: by.Host, PID: by.PID, Reason: by.Reason})
	if changed {
		tx.Put(key, c)
		tx.Log(store.Event{Time: now, Event: store.EventDisable, Key: key, From: string(ev.From), To: string(ev.To), Reason: ev.Reason, User: by.User, PID: by.PID})
	}
	return ev, changed, nil
}

// Enable turns key's circuit back on; see breaker.Circuit.Enable. It
// reports false, changing nothing, for a key that is not disabled.
func Enable(tx store.CircuitTx, key string, now time.Time, by Manual) (breaker.Event, bool, error) {
	c, err := tx.Circuit(key)
	if err != nil {
		return breaker.Event{}, false, err
	}
	ev, changed := c.Enable(now, by.Reason)
	if changed {
		tx.Put(key, c)
		tx.Log(store.Event{Time: now, Event: store.EventEnable, Key: key, From: string(ev.From), To: string(ev.To), Reason: ev.Reason, User: by.User, PID: by.PID})
	}
	return ev, changed, nil
}

func orClosed(s breaker.State) breaker.State {
	if s == "" {
		return breaker.Closed
	}
	return s
}

// logBreaker logs what key's circuit did.
func logBreaker(tx store.CircuitTx, key string, now time.Time, c *breaker.Circuit, evs []breaker.Event) {
	for _, ev := range evs {
		e := store.Event{Time: now, Key: key, Reason: ev.Reason}
		switch ev.Kind {
		case breaker.Reaped:
			e.Event = store.EventReaped
			if ev.Lease != nil {
				e.PID = ev.Lease.PID
			}
		default:
			e.Event = store.EventTransition
			e.From, e.To = string(ev.From), string(ev.To)
			if ev.To == breaker.Open && !c.RetryAfter.IsZero() {
				e.Until = store.Stamp(c.RetryAfter)
			}
		}
		tx.Log(e)
	}
}

// A Closed is a circuit ResetKeys closed, and the state it was in.
type Closed struct {
	Key  string
	From breaker.State
}

// A NoStateError is a key that has no state, which ResetKeys was asked to
// reset. (A key may be anything, "" included: the error, not the key,
// says that one is missing.)
type NoStateError struct{ Key string }

func (e *NoStateError) Error() string { return "no state for key " + KeyWord(e.Key) }

// ResetKeys closes the circuits of keys, or of every key if all, in one
// transaction. It stops at the first key with no state, having reset
// nothing, with a *NoStateError.
func ResetKeys(tx store.CircuitTx, keys []string, all bool, now time.Time) (closed []Closed, err error) {
	if all {
		keys = tx.Keys()
	}
	for _, k := range keys {
		if !tx.Has(k) {
			return nil, &NoStateError{Key: k}
		}
	}
	for _, k := range keys {
		c, err := tx.Circuit(k)
		if err != nil {
			return nil, err
		}
		if _, _, err := Reset(tx, k, now); err != nil {
			return nil, err
		}
		closed = append(closed, Closed{k, orClosed(c.State)})
	}
	return closed, nil
}

// leasesEnd is when the first of leases runs out; zero if none has an end.
func leasesEnd(leases []breaker.Lease) time.Time {
	var end time.Time
	for _, l := range leases {
		if !l.Expires.IsZero() && (end.IsZero() || l.Expires.Before(end)) {
			end = l.Expires
		}
	}
	return end
}
