package breaker

import (
	"fmt"
	"time"
)

// A Result is what a call that ran reports back.
type Result struct {
	Outcome Outcome
	Error   string // for a failure: what went wrong, e.g. "exit 1: ..."
	Probe   bool   // the call ran as a probe under Lease
	Lease   Lease
}

// Record applies the outcome of a call that ran.
//
// A call's outcome moves the circuit only when it can speak for the current
// state: any call while closed, and a probe whose lease is still held while
// half-open. A call admitted before the circuit opened, or a probe whose
// lease was reaped or cleared meanwhile, is counted in the totals and its
// error is kept, but it does not move the circuit.
func (c *Circuit) Record(s Settings, now time.Time, r Result) []Event {
	c.fixClock(now)
	c.LastRun = now
	if s.FailureWindow > 0 {
		c.Failures = Window{Length: s.FailureWindow}.Prune(c.Failures, now)
	} else {
		c.Failures = nil
	}
	probe := r.Probe && c.release(r.Lease)
	switch r.Outcome {
	case Success:
		c.Totals.Successes++
		return c.succeed(s, now, probe)
	case Failure, Abandoned:
		c.Totals.Failures++
		if r.Outcome == Abandoned {
			c.Totals.Abandoned++
		}
		return c.fail(s, now, r.Error, probe)
	case Ignored:
		c.Totals.Ignored++
	case Cancelled:
		c.Totals.Cancelled++
	}
	return nil
}

// Skip counts a call that the circuit did not allow to run.
func (c *Circuit) Skip() {
	c.Totals.Skips++
}

// Reject counts a call that was not run because the key's concurrency
// limit was reached. It moves nothing: a busy key is not a broken one.
func (c *Circuit) Reject() {
	c.Totals.Rejected++
}

// release drops the lease l, reporting whether it was still held.
func (c *Circuit) release(l Lease) bool {
	for i, m := range c.Leases {
		if m.same(l) {
			c.Leases = append(c.Leases[:i], c.Leases[i+1:]...)
			if len(c.Leases) == 0 {
				c.Leases = nil
			}
			return true
		}
	}
	return false
}

func (c *Circuit) succeed(s Settings, now time.Time, probe bool) []Event {
	c.LastSuccess = now
	switch c.state() {
	case Closed:
		c.ConsecutiveSuccesses++
		c.ConsecutiveFailures = 0
	case Open, HalfOpen:
		if s.Exclude {
			return []Event{c.close("the key is excluded")}
		}
		if !probe {
			return nil
		}
		c.ConsecutiveSuccesses++
		c.ConsecutiveFailures = 0
		if n := c.ConsecutiveSuccesses; n >= atLeastOne(s.SuccessThreshold) {
			reason := "1 successful probe"
			if n > 1 {
				reason = fmt.Sprintf("%d successful probes", n)
			}
			return []Event{c.close(reason)}
		}
	}
	return nil
}

// countFailure updates the failure counters that every failure moves.
func (c *Circuit) countFailure(now time.Time, msg string) {
	c.FailureCount++
	c.ConsecutiveFailures++
	c.ConsecutiveSuccesses = 0
	c.LastFailure = now
	if c.FirstFailure.IsZero() {
		c.FirstFailure = now
	}
	c.LastError = msg
}

func (c *Circuit) fail(s Settings, now time.Time, msg string, probe bool) []Event {
	c.countFailure(now, msg)
	switch c.state() {
	case Closed:
		n := c.ConsecutiveFailures
		if s.FailureWindow > 0 {
			c.Failures = append(c.Failures, now) // Record pruned the rest
			n = len(c.Failures)
		}
		if s.Exclude || n < atLeastOne(s.FailureThreshold) {
			return nil
		}
		c.Reopens = 0
		return []Event{c.open(s, now, tripReason(s, n))}
	case HalfOpen:
		if !probe {
			return nil
		}
		c.Reopens++
		return []Event{c.open(s, now, "a failed probe")}
	}
	return nil
}
