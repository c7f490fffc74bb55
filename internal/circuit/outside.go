// Outcomes from outside: guard record reports the outcome of a call that
// guard did not run (a hook dispatcher that runs its own commands), under
// the rules of guard run.

package circuit

import (
	"fmt"
	"time"

	"guard/breaker"
	"guard/config"
	"guard/internal/store"
)

// An Outside is the outcome of a call guard did not run.
type Outside struct {
	Outcome  breaker.Outcome // Success or Failure
	Error    string          // for a failure: what went wrong
	Duration time.Duration   // how long it ran; 0: not known
}

// Result is the breaker's view of o under b: a success slower than
// slow_call is a failure, as for a run, unless slow_call_rate counts slow
// calls apart; a failure with no error says it was recorded.
func (o Outside) Result(b config.Breaker) breaker.Result {
	r := breaker.Result{Outcome: o.Outcome, Error: o.Error, Duration: o.Duration}
	slow := b.SlowCall > 0 && o.Duration > b.SlowCall
	r.Slow = slow
	switch {
	case o.Outcome == breaker.Failure && r.Error == "":
		r.Error = "failure recorded by guard record"
	case o.Outcome == breaker.Success && slow && b.SlowCallRate == 0:
		r.Outcome = breaker.Failure
		r.Error = fmt.Sprintf("slow call: took %s, over slow_call %s", o.Duration.Round(time.Millisecond), config.FormatDuration(b.SlowCall))
	}
	return r
}

// A Recorded is what RecordOutside made of an outcome.
type Recorded struct {
	// Counted says that the outcome moved the circuit as a run's would
	// have: the circuit would have let the call run. Probe says that it
	// counted as the probe of a half-open circuit.
	Counted, Probe bool
	// Skip is why it did not count, when the circuit would have skipped
	// the call: it is then in the totals and last_error only.
	Skip breaker.SkipReason
	// Disabled says that the key is disabled by hand: nothing was recorded.
	Disabled bool
	Events   []breaker.Event // what the circuit did
	Circuit  breaker.Circuit // the circuit after
}

// RecordOutside applies r, the outcome of a call of key that guard did not
// run, as guard run would have had it run the call now, in one step: the
// circuit decides as for a call (reaping dead leases, going half-open once
// the cooldown has passed), and if it would have let the call run, r
// counts as that run's outcome, as a probe if the call would have been
// one. A call the circuit would not have let run (open, tripped by hand, a
// probe running elsewhere) is like gobreaker's two-step breaker refusing
// it: its outcome does not move the circuit (not even a count of failures
// in a row), and is kept only in the totals and last_error.
// min_interval does not apply: the call has run already. A key disabled by
// hand records nothing.
func RecordOutside(tx store.CircuitTx, key string, s breaker.Settings, now time.Time, holder breaker.Lease, alive func(breaker.Lease) bool, r breaker.Result, d time.Duration) (Recorded, error) {
	c, err := tx.Circuit(key)
	if err != nil {
		return Recorded{}, err
	}
	if c.Disabled != nil {
		return Recorded{Disabled: true, Circuit: c}, nil
	}
	alive = witness(tx, key, alive)
	admit := s
	admit.MinInterval = 0
	dec := c.Admit(admit, now, holder, alive)
	rec := Recorded{Counted: dec.Run, Probe: dec.Probe, Skip: dec.Skip, Events: dec.Events}
	reaped := 0
	for _, ev := range dec.Events {
		if ev.Kind == breaker.Reaped {
			reaped++
		}
	}
	var evs []breaker.Event
	if dec.Run {
		r.Probe, r.Lease = dec.Probe, dec.Lease
		evs = c.Record(s, now, r)
	} else {
		c.Refused(now, r)
	}
	rec.Events = append(rec.Events, evs...)
	rec.Circuit = c
	tx.Put(key, c)
	failed := 0
	if r.Outcome == breaker.Failure {
		failed = 1
	}
	tx.Count(key, 1, failed+reaped)
	logBreaker(tx, key, now, &c, dec.Events)
	e := store.Event{Time: now, Event: store.EventRun, Key: key, Outcome: string(r.Outcome),
		Error: r.Error, Probe: r.Probe, State: string(c.State), Reason: "recorded by guard record"}
	if d > 0 {
		e.DurationMS = store.Int64(d.Milliseconds())
	}
	if !dec.Run {
		e.Reason += fmt.Sprintf(" while the circuit would have skipped it (%s): it does not move the circuit", dec.Skip)
	}
	tx.Log(e)
	logBreaker(tx, key, now, &c, evs)
	return rec, nil
}
