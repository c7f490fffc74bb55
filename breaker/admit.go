package breaker

import (
	"fmt"
	"time"
)

// A SkipReason says why a call was not allowed to run.
type SkipReason string

// The reasons a call is skipped.
const (
	SkipOpen    SkipReason = "open"    // the circuit is open until RetryAfter
	SkipForced  SkipReason = "forced"  // the circuit was tripped by hand
	SkipProbing SkipReason = "probing" // half-open, and every probe lease is taken
	// SkipInterval: the last call was let run less than MinInterval ago.
	SkipInterval SkipReason = "min_interval"
)

// A Decision is a circuit's answer to a call that asks to run.
type Decision struct {
	Run   bool       // run the child
	Skip  SkipReason // why not, when Run is false
	Probe bool       // the call holds Lease and must report with it
	Lease Lease
	// Disabled says that the circuit is disabled by hand: the call runs
	// unguarded, and its outcome is not recorded.
	Disabled bool

	// Changed is true when Admit modified the circuit, which the caller must
	// then save. A decision that changes nothing can be taken on a snapshot
	// read without the lock.
	Changed bool
	Events  []Event
}

// Admit decides whether a call may run now.
//
// holder identifies the calling process (PID and Start); if the call becomes
// a probe, Admit stamps the lease's times and records it. alive reports
// whether a lease's holder still runs; Admit reaps leases whose holder is
// dead or whose time is up, and records each as an abandoned failure. A nil
// alive treats every holder as alive.
//
// A circuit disabled by hand lets every call run, Disabled, and changes
// nothing. Under MinInterval, a call that would run is skipped if the last
// one was let run less than MinInterval ago, and otherwise stamps
// LastStart (a change to save).
func (c *Circuit) Admit(s Settings, now time.Time, holder Lease, alive func(Lease) bool) Decision {
	var d Decision
	if c.Disabled != nil {
		d.Run, d.Disabled = true, true
		return d
	}
	d.Changed = c.fixClock(now)
	if s.Exclude {
		d.Run = true
		return d
	}
	if evs, changed := c.reap(s, now, alive); changed {
		d.Events = append(d.Events, evs...)
		d.Changed = true
	}

	if c.state() == Open {
		switch {
		case c.Forced && c.RetryAfter.IsZero():
			d.Skip = SkipForced
			return d
		case now.Before(c.RetryAfter):
			d.Skip = SkipOpen
			if c.Forced {
				d.Skip = SkipForced
			}
			return d
		}
		d.Events = append(d.Events, c.enterHalfOpen("cooldown elapsed"))
		d.Changed = true
	}
	if c.state() != HalfOpen {
		if c.tooSoon(s, now) {
			d.Skip = SkipInterval
			return d
		}
		d.Run = true
		d.Changed = c.started(s, now) || d.Changed
		return d
	}

	if len(c.Leases) >= atLeastOne(s.HalfOpenMaxCalls) {
		d.Skip = SkipProbing
		return d
	}
	if c.tooSoon(s, now) {
		d.Skip = SkipInterval
		return d
	}
	c.started(s, now)
	l := holder
	l.Acquired = now
	l.Expires = time.Time{}
	if s.ProbeLease > 0 {
		l.Expires = now.Add(s.ProbeLease)
	}
	c.Leases = append(c.Leases, l)
	d.Run, d.Probe, d.Lease, d.Changed = true, true, l, true
	return d
}

// tooSoon reports whether a call now comes less than MinInterval after the
// last one let run.
func (c *Circuit) tooSoon(s Settings, now time.Time) bool {
	return s.MinInterval > 0 && !c.LastStart.IsZero() && now.Sub(c.LastStart) < s.MinInterval
}

// started stamps a call let run now, under MinInterval; it reports whether
// it changed the circuit.
func (c *Circuit) started(s Settings, now time.Time) bool {
	if s.MinInterval <= 0 {
		return false
	}
	c.LastStart = now
	return true
}

// NextStart returns when a call may next run under s's MinInterval; zero
// if it may run now as far as MinInterval goes.
func (c *Circuit) NextStart(s Settings) time.Time {
	if s.MinInterval <= 0 || c.LastStart.IsZero() {
		return time.Time{}
	}
	return c.LastStart.Add(s.MinInterval)
}

// enterHalfOpen lets the next callers probe.
func (c *Circuit) enterHalfOpen(reason string) Event {
	ev := c.transition(HalfOpen, reason)
	c.Forced = false
	c.ConsecutiveSuccesses = 0
	c.ConsecutiveFailures = 0
	c.TrialFailures = 0
	return ev
}

// reap removes the leases whose holder is dead or whose time is up, and
// records each as an abandoned probe, which re-opens the circuit. A probe
// whose lease ran out hung, as a failing hook does: the cooldown doubles,
// as after a failed probe. A probe whose holder died (guard killed, its
// host gone) says nothing of the hook: the circuit re-opens with the
// cooldown it had, so that a crash costs one cooldown, not a doubled one.
// Leases on a circuit that is not half-open are left over from a reset or
// a trip, and are dropped quietly.
func (c *Circuit) reap(s Settings, now time.Time, alive func(Lease) bool) (events []Event, changed bool) {
	if c.state() != HalfOpen {
		changed = len(c.Leases) > 0
		c.Leases = nil
		return nil, changed
	}
	var why string
	expired := false
	kept := c.Leases[:0]
	for _, l := range c.Leases {
		switch {
		case !l.Expires.IsZero() && !now.Before(l.Expires):
			why = fmt.Sprintf("probe lease of pid %d expired after %s", l.PID, l.Expires.Sub(l.Acquired))
			expired = true
		case alive != nil && !alive(l):
			why = fmt.Sprintf("probe holder pid %d%s died without reporting", l.PID, onHost(l.Host))
		default:
			kept = append(kept, l)
			continue
		}
		reaped := l
		events = append(events, Event{Kind: Reaped, From: HalfOpen, To: HalfOpen, Reason: why, Lease: &reaped})
	}
	if events == nil {
		return nil, false
	}
	c.Leases = kept
	n := int64(len(events))
	c.Totals.Abandoned += n
	c.Totals.Failures += n
	c.countFailure(now, "abandoned: "+why)
	if expired {
		c.Reopens++
	}
	return append(events, c.open(s, now, "an abandoned probe")), true
}

// onHost names a lease holder's host in a message, if it has one.
func onHost(host string) string {
	if host == "" {
		return ""
	}
	return " on " + host
}
