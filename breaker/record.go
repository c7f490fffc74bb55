package breaker

import (
	"fmt"
	"time"
)

// A Result is what a call that ran reports back.
type Result struct {
	Outcome Outcome
	Slow    bool   // the call took longer than slow_call, for SlowCallRate
	Error   string // for a failure: what went wrong, e.g. "exit 1: ..."
	Probe   bool   // the call ran as a probe under Lease
	Lease   Lease
	// Duration is how long the call ran, for Totals.RunTimes; zero for an
	// outcome that was not timed.
	Duration time.Duration
}

// Record applies the outcome of a call that ran.
//
// A call's outcome moves the circuit only when it can speak for the current
// state: any call while closed, and a probe whose lease is still held while
// half-open. A call admitted before the circuit opened, or a probe whose
// lease was reaped or cleared meanwhile, is counted in the totals and its
// error is kept, but it does not move the circuit. A call admitted before
// the circuit was disabled by hand is counted in the totals only, and
// releases its lease.
func (c *Circuit) Record(s Settings, now time.Time, r Result) []Event {
	c.fixClock(now)
	c.LastRun = now
	if c.Disabled != nil {
		if r.Probe {
			c.release(r.Lease)
		}
		c.count(r)
		return nil
	}
	if s.MinInterval <= 0 {
		c.LastStart = time.Time{}
	}
	if s.FailureWindow > 0 && !s.rates() && s.OfLast == 0 {
		c.Failures = Window{Length: s.FailureWindow}.Prune(c.Failures, now)
	} else {
		c.Failures = nil
	}
	if s.rates() {
		c.Calls = Window{Length: s.FailureWindow}.PruneBuckets(c.Calls, now)
	} else {
		c.Calls = nil
	}
	if s.OfLast == 0 {
		c.Recent = ""
	}
	probe := r.Probe && c.release(r.Lease)
	if r.Duration > 0 {
		c.Totals.RunTimes.Add(r.Duration)
	}
	switch r.Outcome {
	case Success:
		c.Totals.Successes++
		return c.succeed(s, now, probe, r.Slow)
	case Failure, Abandoned:
		c.Totals.Failures++
		if r.Outcome == Abandoned {
			c.Totals.Abandoned++
		}
		return c.fail(s, now, r.Error, probe, r.Slow)
	case Ignored:
		c.Totals.Ignored++
	case Cancelled:
		c.Totals.Cancelled++
	}
	return nil
}

// Refused applies the outcome of a call the circuit did not let run, that
// ran anyway (guard record of a call made while the circuit was open, as
// gobreaker's two-step breaker would have refused it): it is counted in
// the totals, and a failure's error kept as the last one, but it moves
// nothing: no counter, no state, no lease.
func (c *Circuit) Refused(now time.Time, r Result) {
	c.fixClock(now)
	c.LastRun = now
	c.count(r)
	switch r.Outcome {
	case Success:
		c.LastSuccess = now
	case Failure:
		c.LastFailure = now
		c.LastError = r.Error
	}
}

// count adds an outcome, and its run time, to the totals, and nothing
// else.
func (c *Circuit) count(r Result) {
	if r.Duration > 0 {
		c.Totals.RunTimes.Add(r.Duration)
	}
	switch o := r.Outcome; o {
	case Success:
		c.Totals.Successes++
	case Failure, Abandoned:
		c.Totals.Failures++
		if o == Abandoned {
			c.Totals.Abandoned++
		}
	case Ignored:
		c.Totals.Ignored++
	case Cancelled:
		c.Totals.Cancelled++
	}
}

// Skip counts a call that the circuit did not allow to run, and whether
// its action was blocked (see Settings.Blocks).
func (c *Circuit) Skip(blocked bool) {
	c.Totals.Skips++
	if blocked {
		c.Totals.SkipsBlocked++
	}
}

// Reject counts a call that was not run because the key's concurrency
// limit was reached, and whether its action was blocked. It moves nothing:
// a busy key is not a broken one.
func (c *Circuit) Reject(blocked bool) {
	c.Totals.Rejected++
	if blocked {
		c.Totals.RejectedBlocked++
	}
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

func (c *Circuit) succeed(s Settings, now time.Time, probe, slow bool) []Event {
	c.LastSuccess = now
	switch c.state() {
	case Closed:
		c.ConsecutiveSuccesses++
		c.ConsecutiveFailures = 0
		c.note(s, now, false, slow)
		if why := c.tripReason(s); why != "" { // a slow_call_rate reached
			c.Reopens = 0
			return []Event{c.open(s, now, why)}
		}
	case Open, HalfOpen:
		if s.Exclude {
			return []Event{c.close("the key is excluded")}
		}
		if !probe {
			return nil
		}
		c.ConsecutiveSuccesses++
		c.ConsecutiveFailures = 0
		if s.FailureRate > 0 {
			return c.judgeTrials(s, now)
		}
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

// judgeTrials closes or re-opens a half-open circuit under FailureRate once
// SuccessThreshold trials have ended: re-opens it if their failures reach
// the rate, else closes it.
func (c *Circuit) judgeTrials(s Settings, now time.Time) []Event {
	ended := c.ConsecutiveSuccesses + c.TrialFailures
	if ended < atLeastOne(s.SuccessThreshold) {
		return nil
	}
	if reachesRate(c.TrialFailures, ended, s.FailureRate) {
		c.Reopens++
		return []Event{c.open(s, now, fmt.Sprintf("%d of %d trials failed (failure_rate %s)", c.TrialFailures, ended, share(s.FailureRate)))}
	}
	return []Event{c.close(fmt.Sprintf("%d of %d trials succeeded", c.ConsecutiveSuccesses, ended))}
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

func (c *Circuit) fail(s Settings, now time.Time, msg string, probe, slow bool) []Event {
	successes := c.ConsecutiveSuccesses
	c.countFailure(now, msg)
	switch c.state() {
	case Closed:
		c.note(s, now, true, slow)
		why := c.tripReason(s)
		if why == "" {
			return nil
		}
		c.Reopens = 0
		return []Event{c.open(s, now, why)}
	case HalfOpen:
		if !probe {
			return nil
		}
		if s.FailureRate > 0 {
			c.ConsecutiveSuccesses = successes // trials keep their successes
			c.TrialFailures++
			return c.judgeTrials(s, now)
		}
		c.Reopens++
		return []Event{c.open(s, now, "a failed probe")}
	}
	return nil
}
