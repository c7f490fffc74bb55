package breaker

import (
	"errors"
	"time"
)

// ErrNotOpen is returned by Probe for a circuit that is closed.
var ErrNotOpen = errors.New("circuit is not open")

// Reset returns the circuit to closed and clears its counters, leases and
// any forced trip. Totals and the times of the last success, failure and
// run are history and are kept.
func (c *Circuit) Reset(now time.Time) Event {
	c.fixClock(now)
	return c.close("reset by hand")
}

// Trip forces the circuit open at now. If d is positive the circuit may
// probe again after d, as after any cooldown; otherwise it stays open until
// Reset or Probe. reason is kept for people to read.
func (c *Circuit) Trip(now time.Time, d time.Duration, reason string) Event {
	c.fixClock(now)
	if reason == "" {
		reason = "tripped by hand"
	}
	ev := c.transition(Open, reason)
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
