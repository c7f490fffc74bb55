package breaker

import "time"

// A Budget allows at most Limit actions in any window of length Window,
// such as "2 restarts per 4 hours". It is decided by the same Window engine
// as a circuit's failure_window.
type Budget struct {
	Limit  int
	Window time.Duration
}

// A Verdict is a budget's answer at one moment.
type Verdict struct {
	Allowed bool
	Used    int // actions inside the window
	Limit   int
	// NextAllowed is when the next action will be allowed: now if it is
	// allowed already, and zero if it never will be (Limit 0).
	NextAllowed time.Time
}

// Check decides whether one more action is allowed at now, given the times
// of the actions taken so far. An action exactly Window old no longer
// counts.
func (b Budget) Check(times []time.Time, now time.Time) Verdict {
	return b.CheckN(times, now, 1)
}

// CheckN decides whether n more actions (a command that restarts a service
// three times) are allowed at now: they are if used+n <= Limit. Its
// NextAllowed is when there is room for all n, zero if there never is (n is
// over the limit).
func (b Budget) CheckN(times []time.Time, now time.Time, n int) Verdict {
	n = max(n, 1)
	w := Window{Length: b.Window}
	v := Verdict{Used: w.Count(times, now), Limit: b.Limit}
	if next, ok := w.NextRoom(times, now, b.Limit-n+1); ok {
		v.NextAllowed = next
		v.Allowed = !next.After(now)
	}
	return v
}

// HealthyCheck returns a service's healthy streak after one more healthy
// check, and whether the streak has reached resetAfter, in which case its
// budgets are to be cleared and the streak starts again from 0.
func HealthyCheck(streak, resetAfter int) (int, bool) {
	streak++
	if streak >= max(resetAfter, 1) {
		return 0, true
	}
	return streak, false
}
