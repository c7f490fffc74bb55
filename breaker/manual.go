package breaker

import (
	"errors"
	"time"
)

// ErrNotOpen is returned by Probe for a circuit that is closed.
var ErrNotOpen = errors.New("circuit is not open")

// Reset returns the circuit to closed and clears its counters, leases and
// any forced trip. Totals and the times of the last success, failure and
// run are history and are kept, and so is a Disable: a reset (of every key,
// say) must not turn guard back on for a key a person turned off. The
// event's From is the state underneath.
func (c *Circuit) Reset(now time.Time) Event {
	c.fixClock(now)
	return c.close("reset by hand")
}

// Trip forces the circuit open at now. If d is positive the circuit may
// probe again after d, as after any cooldown; otherwise it stays open until
// Reset or Probe. reason is kept for people to read. A circuit disabled by
// hand is enabled: the last command given by hand wins, and a trip that
// left calls running would do nothing.
func (c *Circuit) Trip(now time.Time, d time.Duration, reason string) Event {
	c.fixClock(now)
	if reason == "" {
		reason = "tripped by hand"
	}
	from := c.Shown()
	c.Disabled = nil
	ev := c.transition(Open, reason)
	ev.From = from
	c.DisabledAt = now
	c.RetryAfter = time.Time{}
	if d > 0 {
		c.RetryAfter = now.Add(d)
	}
	c.OpenReason = reason
	c.Forced = true
	c.Reopens = 0
	c.ConsecutiveSuccesses = 0
	c.Leases = nil
	return ev
}

// Probe moves an open circuit to half-open now, so that the next call runs
// as a probe. It does nothing to a circuit that is already half-open, and
// returns ErrNotOpen for a closed one.
func (c *Circuit) Probe(now time.Time) (Event, bool, error) {
	c.fixClock(now)
	switch c.state() {
	case Open:
		c.RetryAfter = now
		return c.enterHalfOpen("probe requested by hand"), true, nil
	case HalfOpen:
		return Event{}, false, nil
	}
	return Event{}, false, ErrNotOpen
}

// Disable turns the circuit off by hand at now, with who and why in d:
// every call then runs unguarded, and the circuit is left as it is, to
// resume from there on Enable. It reports false, and changes nothing, if
// the circuit is disabled already. The event goes from the state shown
// before to Disabled.
func (c *Circuit) Disable(now time.Time, d Disable) (Event, bool) {
	c.fixClock(now)
	if c.Disabled != nil {
		return Event{}, false
	}
	d.Since = now
	if d.Reason == "" {
		d.Reason = "disabled by hand"
	}
	from := c.state()
	c.Disabled = &d
	return Event{Kind: Transition, From: from, To: Disabled, Reason: d.Reason}, true
}

// Enable ends a Disable: the circuit goes on from the state it was left
// in (an open circuit whose cooldown has passed probes on the next call).
// It reports false, and changes nothing, if the circuit is not disabled.
func (c *Circuit) Enable(now time.Time, reason string) (Event, bool) {
	c.fixClock(now)
	if c.Disabled == nil {
		return Event{}, false
	}
	if reason == "" {
		reason = "enabled by hand"
	}
	c.Disabled = nil
	return Event{Kind: Transition, From: Disabled, To: c.state(), Reason: reason}, true
}
