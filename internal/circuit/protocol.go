package circuit

import (
	"errors"
	"fmt"
	"time"

	"guard/breaker"
	"guard/config"
	"guard/internal/store"
	"guard/internal/supervise"
)

// A Protocol runs calls of keys against one store.
type Protocol struct {
	Circuits store.Circuits
	Runs     store.Runs
	Live     store.Liveness
	// Self is this guard process. Its Start, which costs a read of /proc,
	// is found when a call first needs it (a lease, a slot).
	Self store.Holder
	// KillGrace is how long a run's command gets from SIGTERM to SIGKILL:
	// a slot that may be lost stops it that long before it must be gone
	// (store.Losing).
	KillGrace time.Duration
	// Moved, if set, hears of what a key's circuit did (transitions,
	// reaped leases) in an Admit or Record, with the circuit after it,
	// once the store has taken the change: for on_state_change.
	Moved func(key string, c breaker.Circuit, evs []breaker.Event)

	// RecordWait is how long Record may wait for the store's lock, on a
	// store that queues for its own (store.OutcomeRecorder): guard run's
	// record_timeout, cut to fit before its caller's timeout. 0: as long
	// as any update.
	RecordWait time.Duration

	// SkipBlocks, if set, is asked, before any lock is taken, whether a
	// call the lock-free read does not show as a plain run would block if
	// skipped, though its settings do not say so (guard run: a skipped
	// WorktreeCreate hook fails, so Claude Code creates no worktree); it
	// is then the verdict of its skip, in its count and its event.
	SkipBlocks func() bool

	// Ready, if set, is called once, before the protocol first takes
	// anything a signal must not kill the process holding: a lock, a
	// lease, a slot, a count. guard run waits there for its signal
	// handlers, so that a call decided from the lock-free read alone (a
	// closed circuit) reads its state while they are being set up.
	Ready func()

	slot store.Slot // the slot Start took, while it is held
}

// moved tells Moved of evs, if there are any.
func (p *Protocol) moved(key string, c breaker.Circuit, evs []breaker.Event) {
	if p.Moved != nil && len(evs) > 0 {
		p.Moved(key, c, evs)
	}
}

// ready calls Ready, the first time.
func (p *Protocol) ready() {
	if p.Ready != nil {
		p.Ready()
		p.Ready = nil
	}
}

// Holder returns this process as a holder, with its start time.
func (p *Protocol) Holder() store.Holder { return p.self() }

// self returns this process as a holder, with its start time.
func (p *Protocol) self() store.Holder {
	if p.Self.Start == 0 {
		p.Self.Start, _ = supervise.StartTime(p.Self.PID)
	}
	return p.Self
}

// An UnrecordedSkipError is Admit's skip of a call, decided from the
// lock-free read, when the update that would count it failed with Err (the
// lock did not come in time): the call is skipped all the same.
type UnrecordedSkipError struct{ Err error }

func (e *UnrecordedSkipError) Error() string { return "skip not recorded: " + e.Err.Error() }
func (e *UnrecordedSkipError) Unwrap() error { return e.Err }

// Admit decides whether key may run now, and returns the circuit it
// decided on.
//
// A call the lock-free read shows may run, changing nothing (a closed
// circuit), is decided from it alone. Every other call is decided again
// under the lock; but a skip the lock-free read already showed (an open
// circuit not yet due for a probe, probes in flight), changing nothing, is
// not turned into a run when the lock does not come (held by a stopped
// guard, say): the call is skipped all the same, and Admit returns that
// decision with an *UnrecordedSkipError, since the skip was not counted
// (faults #4). A tripped hook never runs unguarded while its circuit is
// known to be open. On a store that counts skips without its lock
// (store.SkipCounter: the file), such a skip of a key that holds no slot
// takes no lock at all, and writes no state.
func (p *Protocol) Admit(key string, s breaker.Settings, now time.Time) (breaker.Decision, breaker.Circuit, error) {
	var peeked *breaker.Decision
	var pc breaker.Circuit
	if c, err := p.Circuits.Peek(key); err == nil {
		d := c.Admit(s, now, breaker.Lease{Host: p.Self.Host, PID: p.Self.PID}, p.Live.Lease)
		if d.Run && !d.Changed {
			return d, c, nil
		}
		if !d.Run && !d.Changed && len(d.Events) == 0 {
			peeked, pc = &d, c
		}
	}
	if !s.Blocks && !s.Observe && p.SkipBlocks != nil && p.SkipBlocks() {
		// Not a plain run by the lock-free read: a skip it shows, or one
		// the update may decide (a probe due that another call takes
		// first, a read that failed).
		s.Blocks = true
	}
	p.ready()
	if sc, ok := p.Circuits.(store.SkipCounter); ok && peeked != nil && p.slot == nil && !s.Observe {
		// A skip with nothing else to change (no probe due, no lease to
		// reap, no slot to give back) is counted without the state's lock,
		// and without a write of the state (store.SkipCounter); if it
		// cannot be, it is counted under the lock.
		if err := sc.CountSkip(key, s.Blocks, SkipEvent(key, s, *peeked, pc, now)); err == nil {
			return *peeked, pc, nil
		}
	}
	h := p.self()
	holder := breaker.Lease{Host: h.Host, PID: h.PID, Start: h.Start}
	var dec breaker.Decision
	var c breaker.Circuit
	err := p.Circuits.Update(now, func(tx store.CircuitTx) (bool, error) {
		var err error
		dec, c, err = Admit(tx, key, s, store.TxNow(tx, now), holder, p.Live.Lease)
		if err == nil && !dec.Run {
			// The release rides with the skip's write: with this attempt's
			// only, where the store can (store.SlotReleaser), so that an
			// attempt after a conflict that decides a probe keeps its run.
			if r, ok := tx.(store.SlotReleaser); !ok || p.slot == nil || !r.ReleaseSlot(p.slot) {
				p.releaseQueued()
			}
		}
		return dec.Changed || !dec.Run, err
	})
	if err == nil && !dec.Run {
		p.slot = nil // released with the skip
	}
	if err == nil {
		p.moved(key, c, dec.Events)
	}
	if err != nil && peeked != nil && errors.Is(err, store.ErrBusy) {
		return *peeked, pc, &UnrecordedSkipError{Err: err}
	}
	return dec, c, err
}

// releaseQueued releases the slot Start took if the store sends its
// release with its next transaction (store.Queued).
func (p *Protocol) releaseQueued() {
	if q, ok := p.slot.(store.Queued); ok {
		q.ReleaseLater()
		p.slot = nil
	}
}

// Start takes a slot for a run of key that may go on until deadline (zero:
// no timeout) among limit slots, waiting up to wait; see store.Runs. With
// limit 0 it takes nothing, and returns nil: call Register once the
// command has started; except on a store that lists runs ahead
// (store.Lister), where it lists the run now, to ride with Admit's peek.
func (p *Protocol) Start(key string, limit int, wait time.Duration, now, deadline time.Time, stop func() bool) (store.Slot, error) {
	if limit <= 0 {
		if _, ok := p.Runs.(store.Lister); !ok {
			return nil, nil
		}
	}
	p.ready()
	slot, err := p.Runs.Acquire(store.Run{Key: key, Holder: p.self(), Started: now, Deadline: deadline, KillGrace: p.KillGrace}, max(limit, 0), wait, stop)
	if err == nil {
		p.slot = slot
	}
	return slot, err
}

// Register lists a started run of an unlimited key, so that status shows
// it. It is best effort: it returns nil if the run could not be listed.
func (p *Protocol) Register(key string, now, deadline time.Time, childPID int) store.Slot {
	p.ready()
	slot, err := p.Runs.Acquire(store.Run{Key: key, Holder: p.self(), ChildPID: childPID, Started: now, Deadline: deadline}, 0, 0, nil)
	if err != nil {
		return nil
	}
	return slot
}

// Classify turns what became of a run into the breaker's result, with b's
// exit codes and slow_call: a run that did not start, timed out or died of
// a signal failed; so did one that exited non-zero only because it could
// not start (supervise.Result.LaunchFailure: "not started: ..."), whatever
// its status; one interrupted by a signal guard passed on was cancelled; a
// success slower than slow_call failed.
func Classify(res *supervise.Result, b config.Breaker, dec breaker.Decision) breaker.Result {
	slow := b.SlowCall > 0 && res.Ran() && !res.TimedOut && res.Signal == 0 && res.Elapsed > b.SlowCall
	r := breaker.Result{Outcome: outcome(res, b), Slow: slow, Probe: dec.Probe, Lease: dec.Lease}
	if line := res.LaunchFailure(); line != "" {
		// It never started, whatever its status says (2 is no block then).
		r.Outcome, r.Error = breaker.Failure, notStarted+line
		return r
	}
	if r.Outcome == breaker.Failure {
		r.Error = res.Describe(b.Timeout)
		if res.Ran() && !res.TimedOut && res.Signal == 0 && b.Classify(res.ExitCode) == breaker.Success {
			r.Error = fmt.Sprintf("slow call: took %s, over slow_call %s", res.Elapsed.Round(time.Millisecond), config.FormatDuration(b.SlowCall))
		}
	}
	return r
}

func outcome(res *supervise.Result, b config.Breaker) breaker.Outcome {
	switch {
	case res.Interrupted != nil, res.Stopped && !res.TimedOut:
		// A signal guard passed on, or guard's own stop of a command
		// whose slot it could not keep: neither says anything of the
		// command.
		return breaker.Cancelled
	case !res.Ran(), res.TimedOut, res.Signal != 0:
		return breaker.Failure
	}
	o := b.Classify(res.ExitCode)
	if o == breaker.Success && b.SlowCall > 0 && res.Elapsed > b.SlowCall && b.SlowCallRate == 0 {
		return breaker.Failure // with no slow_call_rate, a slow call is a failure
	}
	return o
}

// Record applies the result of a run of key, in one transaction, with the
// release of its slot where the store sends that with it (store.Queued).
func (p *Protocol) Record(key string, s breaker.Settings, now time.Time, r breaker.Result, run Run) error {
	p.ready()
	p.releaseQueued()
	var evs []breaker.Event
	var c breaker.Circuit
	record := func(tx store.CircuitTx) (bool, error) {
		var err error
		evs, err = Record(tx, key, s, store.TxNow(tx, now), r, run)
		if err == nil && p.Moved != nil && len(evs) > 0 {
			c, err = tx.Circuit(key)
		}
		return true, err
	}
	var err error
	if o, ok := p.Circuits.(store.OutcomeRecorder); ok && p.RecordWait > 0 {
		// The command has run: a wait for the lock now delays only guard's
		// exit, and giving up would lose the outcome.
		err = o.UpdateOutcome(now, p.RecordWait, record)
	} else {
		err = p.Circuits.Update(now, record)
	}
	if err == nil {
		p.moved(key, c, evs)
	}
	return err
}

// Reject counts a call of key that found every slot taken, and whether
// its action was blocked.
func (p *Protocol) Reject(key string, now time.Time, reason string, blocked bool) error {
	p.ready()
	return p.Circuits.Update(now, func(tx store.CircuitTx) (bool, error) {
		return true, Reject(tx, key, store.TxNow(tx, now), reason, blocked)
	})
}
