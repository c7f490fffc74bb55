package breaker

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// A State is the state of a circuit.
type State string

// The states of a circuit, spelled as the state file spells them.
const (
	Closed   State = "closed"    // every call runs
	Open     State = "open"      // calls are skipped until RetryAfter
	HalfOpen State = "half_open" // probes run under a lease; other calls are skipped

	// Disabled is never stored as a circuit's State: it is how a circuit
	// that a person disabled (Circuit.Disabled) shows, whatever its State
	// underneath (see Circuit.Shown).
	Disabled State = "disabled"
)

// An Outcome is what became of one call.
type Outcome string

// The outcomes of a call.
const (
	Success   Outcome = "success"   // counts towards closing
	Failure   Outcome = "failure"   // counts towards tripping
	Ignored   Outcome = "ignored"   // counts as neither, e.g. a hook's deliberate exit 2
	Cancelled Outcome = "cancelled" // guard itself was interrupted; counts as neither
	Abandoned Outcome = "abandoned" // a probe whose holder never reported back; a failure
)

// Settings are the rules a circuit follows. A Settings is a plain value: the
// caller resolves it from the configuration for each key and each call.
type Settings struct {
	// FailureThreshold is how many failures trip the circuit. If it is 0,
	// one failure trips it.
	FailureThreshold int

	// FailureWindow, if set, makes the circuit trip when FailureThreshold
	// failures fall inside any window of this length, successes in between
	// or not. If it is 0, only consecutive failures count.
	FailureWindow time.Duration

	// SuccessThreshold is how many consecutive successful probes close a
	// half-open circuit. If it is 0, one success closes it.
	SuccessThreshold int

	// Cooldown is how long the circuit stays open after it first trips.
	// Each re-open in a row doubles it. If it is 0, the next call probes.
	Cooldown time.Duration

	// MaxCooldown caps the doubled cooldown. If it is below Cooldown,
	// Cooldown is the cap, which gives a fixed cooldown.
	MaxCooldown time.Duration

	// HalfOpenMaxCalls is how many probes may run at once while half-open.
	// If it is 0, one may.
	HalfOpenMaxCalls int

	// ProbeLease is how long a probe lease lasts before the next caller may
	// reap it as abandoned. If it is 0, leases never expire by time and are
	// reaped only when their holder is found dead.
	ProbeLease time.Duration

	// Exclude makes the circuit never trip and never skip: outcomes are
	// still counted.
	Exclude bool

	// OfLast, if set, makes the circuit trip when FailureThreshold of the
	// last OfLast calls failed ("k of the last n"), whenever they ran.
	OfLast int

	// FailureRate, if above 0 (a share, 0.5 for 50%), makes the circuit trip
	// when, of the calls that ended inside FailureWindow, at least
	// MinimumCalls did and that share of them failed; FailureThreshold is
	// then not used while closed. While half-open, the trials (up to
	// SuccessThreshold of them) then close or re-open it by the same rate
	// instead of on their first failure.
	FailureRate  float64
	MinimumCalls int

	// SlowCallRate, if above 0, makes the circuit trip when, of the calls
	// that ended inside FailureWindow (at least MinimumCalls), that share
	// was slow (Result.Slow), whether they succeeded or not.
	SlowCallRate float64

	// Observe says that the caller runs calls the circuit skips anyway
	// (observe mode): the circuit decides and records as usual, and its
	// skips are only what it would have done.
	Observe bool

	// Blocks says that the caller blocks the action of a call the circuit
	// skips (on_skip: block, for a hook that must fail closed) instead of
	// letting it through. It changes no decision: a skip is counted as
	// blocked or allowed by it (Totals).
	Blocks bool

	// MinInterval, if set, lets a call run at most once per MinInterval:
	// a call that would run less than MinInterval after the last one was
	// let run is skipped (SkipInterval), whatever the state. If it is 0,
	// calls run as often as they come, and Admit writes nothing for a
	// closed circuit.
	MinInterval time.Duration
}

// rates reports whether s has a rule that counts the calls in the window.
func (s Settings) rates() bool { return s.FailureRate > 0 || s.SlowCallRate > 0 }

func atLeastOne(n int) int {
	if n < 1 {
		return 1
	}
	return n
}

// A Lease lets one process run a probe while the circuit is half-open.
type Lease struct {
	Host string // the holder's host; "" for this one, in state from before hosts were recorded
	PID  int    // the holder's process ID
	// Start is the holder's start time as the OS reports it (clock ticks
	// since boot on Linux), so that a recycled PID is not taken for the
	// holder. Zero means unknown.
	Start    uint64
	Acquired time.Time
	Expires  time.Time // zero: never expires by time
}

// same reports whether l and m are the same lease. A process holds at most
// one lease on a circuit, so its PID and start time name the lease; times
// are not compared, because a state file stores them to the second.
func (l Lease) same(m Lease) bool {
	return l.Host == m.Host && l.PID == m.PID && l.Start == m.Start
}

// Totals count every outcome a circuit has seen. They survive Reset.
type Totals struct {
	Successes int64
	Failures  int64 // includes abandoned probes
	Ignored   int64
	Cancelled int64
	Abandoned int64
	Skips     int64 // calls not run because the circuit was open or probing
	Rejected  int64 // calls not run because max_concurrent runs were in flight
	// SkipsBlocked and RejectedBlocked are the Skips and Rejected whose
	// action was blocked (Settings.Blocks); the others let it through.
	// Skips counted before guard told them apart count as let through.
	SkipsBlocked    int64
	RejectedBlocked int64
	// RunTimes sums up how long the runs took, for a histogram that never
	// goes down (the event log's run times go when it rotates).
	RunTimes RunTimes
}

// Runs returns how many calls ran the child and reported back.
func (t Totals) Runs() int64 {
	return t.Successes + t.Failures - t.Abandoned + t.Ignored + t.Cancelled
}

// A Circuit is the persistent state of one key's circuit breaker. Its zero
// value is a closed circuit that has seen nothing.
//
// A Circuit is a plain value with no clock and no I/O: every method takes
// now, and returns what happened as Events for the caller to log. Methods
// are not safe for concurrent use; callers serialise them with the state
// file's lock.
type Circuit struct {
	State                State
	FailureCount         int // failures since the circuit last closed
	ConsecutiveFailures  int
	ConsecutiveSuccesses int
	FirstFailure         time.Time
	LastFailure          time.Time
	LastSuccess          time.Time
	LastError            string
	DisabledAt           time.Time // when the circuit last opened
	RetryAfter           time.Time // zero while open: forced until reset
	Reopens              int       // re-opens in a row; drives the back-off
	OpenReason           string    // why the circuit last opened, for people
	Forced               bool      // opened by Trip; never probes unless RetryAfter is set
	Failures             []time.Time
	Calls                []Bucket // the calls that ended inside FailureWindow, counted by bucket, for the rate rules
	Recent               string   // the last OfLast calls, oldest first: 'f' failed, 's' did not
	TrialFailures        int      // failed trials since the circuit went half-open, for FailureRate
	Leases               []Lease
	LastRun              time.Time // when an outcome was last recorded
	// LastStart is when a call was last let run, for MinInterval; zero
	// when no MinInterval was in force.
	LastStart time.Time
	// Disabled, if set, says that a person disabled the circuit by hand
	// (guard disable): every call runs unguarded and nothing moves the
	// circuit until Enable, which finds it as it was left. It is never
	// changed in place: Disable sets a new one.
	Disabled *Disable
	Totals   Totals
}

// A Disable says who disabled a circuit by hand, when and why.
type Disable struct {
	Since  time.Time
	User   string // the user name, or "uid N"
	Host   string
	PID    int
	Reason string
}

// Shown returns the state people see: Disabled for a circuit disabled by
// hand, else its State (Closed for a zero Circuit).
func (c *Circuit) Shown() State {
	if c.Disabled != nil {
		return Disabled
	}
	return c.state()
}

// An EventKind names something a circuit did.
type EventKind string

// The kinds of Event.
const (
	Transition EventKind = "transition" // the state changed
	Reaped     EventKind = "reaped"     // a dead or expired probe lease was removed
)

// An Event is something a circuit did that a caller may want to log.
type Event struct {
	Kind     EventKind
	From, To State
	Reason   string
	Lease    *Lease // for Reaped
}

func (c *Circuit) state() State {
	if c.State == "" {
		return Closed
	}
	return c.State
}

// transition moves the circuit to state to and describes the move.
func (c *Circuit) transition(to State, reason string) Event {
	from := c.state()
	c.State = to
	return Event{Kind: Transition, From: from, To: to, Reason: reason}
}

// backoff returns the cooldown for the nth re-open in a row.
func backoff(s Settings, n int) time.Duration {
	limit := max(s.MaxCooldown, s.Cooldown)
	d := s.Cooldown
	for i := 0; i < n && d < limit; i++ {
		d *= 2
	}
	return min(d, limit)
}

// open trips the circuit at now with the back-off for its re-open count.
func (c *Circuit) open(s Settings, now time.Time, reason string) Event {
	ev := c.transition(Open, reason)
	c.DisabledAt = now
	c.RetryAfter = now.Add(backoff(s, c.Reopens))
	c.OpenReason = reason
	c.Forced = false
	c.ConsecutiveSuccesses = 0
	c.TrialFailures = 0
	c.Leases = nil
	return ev
}

// close returns the circuit to closed and clears its failure counters.
func (c *Circuit) close(reason string) Event {
	ev := c.transition(Closed, reason)
	c.FailureCount = 0
	c.ConsecutiveFailures = 0
	c.ConsecutiveSuccesses = 0
	c.FirstFailure = time.Time{}
	c.LastError = ""
	c.DisabledAt = time.Time{}
	c.RetryAfter = time.Time{}
	c.Reopens = 0
	c.OpenReason = ""
	c.Forced = false
	c.Failures = nil
	c.Calls = nil
	c.Recent = ""
	c.TrialFailures = 0
	c.Leases = nil
	return ev
}

// fixClock repairs timestamps that lie in the future, which happens when the
// wall clock steps backwards. The open period and leases keep their length
// but restart at now, so a step of any size delays a probe by at most one
// cooldown, and a call under MinInterval by at most one interval. It
// reports whether it changed anything.
func (c *Circuit) fixClock(now time.Time) bool {
	changed := false
	if c.DisabledAt.After(now) {
		if !c.RetryAfter.IsZero() {
			c.RetryAfter = now.Add(c.RetryAfter.Sub(c.DisabledAt))
		}
		c.DisabledAt = now
		changed = true
	}
	if c.LastStart.After(now) {
		c.LastStart = now
		changed = true
	}
	for i := range c.Leases {
		l := &c.Leases[i]
		if l.Acquired.After(now) {
			if !l.Expires.IsZero() {
				l.Expires = now.Add(l.Expires.Sub(l.Acquired))
			}
			l.Acquired = now
			changed = true
		}
	}
	return changed
}

// note counts a call that ended while closed for the rules that look back
// over several calls.
func (c *Circuit) note(s Settings, now time.Time, failed, slow bool) {
	if s.rates() {
		c.Calls = Window{Length: s.FailureWindow}.AddCall(c.Calls, now, failed, slow)
	}
	if s.OfLast > 0 {
		flag := "s"
		if failed {
			flag = "f"
		}
		c.Recent += flag
		if len(c.Recent) > s.OfLast {
			c.Recent = c.Recent[len(c.Recent)-s.OfLast:]
		}
	}
	if s.FailureWindow > 0 && failed && !s.rates() && s.OfLast == 0 {
		c.Failures = append(c.Failures, now) // Record pruned the rest
	}
}

// share formats a share for people: 0.5 as 50%.
func share(f float64) string { return FormatPercent(f) }

// FormatPercent writes a share for people as a percentage: 0.5 as "50%",
// and a share read from "0.0001%" as "0.0001%", not in the noise of its
// binary value (9.999999999999999e-05%): 12 significant digits, more than
// anyone writes in a setting, in plain decimals.
func FormatPercent(f float64) string {
	r, err := strconv.ParseFloat(strconv.FormatFloat(f*100, 'g', 12, 64), 64)
	if err != nil {
		r = f * 100
	}
	return strconv.FormatFloat(r, 'f', -1, 64) + "%"
}

// Count writes n things for people: "1 failure", "3 failures", "2
// successes" (noun is the singular; the plural adds s, or es after an s).
func Count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	if strings.HasSuffix(noun, "s") {
		return strconv.Itoa(n) + " " + noun + "es"
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

// reachesRate reports whether n of total reach rate.
func reachesRate(n, total int, rate float64) bool {
	return n > 0 && float64(n) >= rate*float64(total)-1e-9
}

// tripReason says why a closed circuit trips now, under s's rules; "" if
// it does not.
func (c *Circuit) tripReason(s Settings) string {
	if s.Exclude {
		return ""
	}
	threshold := atLeastOne(s.FailureThreshold)
	calls, failed, slow := SumBuckets(c.Calls)
	switch {
	case s.OfLast > 0:
		if n := strings.Count(c.Recent, "f"); n >= threshold {
			return fmt.Sprintf("%s in the last %s", Count(n, "failure"), Count(len(c.Recent), "call"))
		}
	case s.FailureRate > 0:
		if calls >= atLeastOne(s.MinimumCalls) && reachesRate(failed, calls, s.FailureRate) {
			return fmt.Sprintf("%d of %d calls failed in %s (failure_rate %s)", failed, calls, s.FailureWindow, share(s.FailureRate))
		}
	case s.FailureWindow > 0:
		n := len(c.Failures)
		if s.rates() { // the calls in the window are kept, and are the failures too
			n = failed
		}
		if n >= threshold {
			return fmt.Sprintf("%s in %s", Count(n, "failure"), s.FailureWindow)
		}
	default:
		if n := c.ConsecutiveFailures; n >= threshold {
			if n == 1 {
				return "1 failure"
			}
			return fmt.Sprintf("%d consecutive failures", n)
		}
	}
	if s.SlowCallRate > 0 && calls >= atLeastOne(s.MinimumCalls) && reachesRate(slow, calls, s.SlowCallRate) {
		return fmt.Sprintf("%d of %d calls slow in %s (slow_call_rate %s)", slow, calls, s.FailureWindow, share(s.SlowCallRate))
	}
	return ""
}
