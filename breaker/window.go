package breaker

import (
	"slices"
	"time"
)

// A Window is a sliding time window of a fixed length. An event counts while
// it is younger than Length: an event exactly Length old has left the window.
//
// An event stamped after now (the wall clock stepped backwards since it was
// recorded) is treated as if it happened at now. It therefore counts, which
// is the cautious choice for both failures and action budgets, and it leaves
// the window at most Length after the step, so a large step cannot wedge a
// circuit or a budget.
//
// A Window with a zero Length holds nothing.
//
// The window engine is shared: circuits use it for failure_window, and
// service cooldowns use it for their action budgets.
type Window struct {
	Length time.Duration
}

// at returns when an event stamped t counts as having happened.
func at(t, now time.Time) time.Time {
	if t.After(now) {
		return now
	}
	return t
}

// In reports whether an event stamped t is inside the window that ends at now.
func (w Window) In(t, now time.Time) bool {
	if w.Length <= 0 {
		return false
	}
	return at(t, now).After(now.Add(-w.Length))
}

// Count returns how many of times are inside the window that ends at now.
func (w Window) Count(times []time.Time, now time.Time) int {
	n := 0
	for _, t := range times {
		if w.In(t, now) {
			n++
		}
	}
	return n
}

// Prune removes the times that have left the window ending at now, and
// stamps times from the future with now. It works in place, keeps the order
// of what remains, and returns the shortened slice.
func (w Window) Prune(times []time.Time, now time.Time) []time.Time {
	kept := times[:0]
	for _, t := range times {
		if w.In(t, now) {
			kept = append(kept, at(t, now))
		}
	}
	clear(times[len(kept):])
	return kept
}

// NextRoom returns the earliest time, not before now, at which fewer than
// limit events are inside the window. It returns now when there is room
// already, and false when there can never be room (limit < 1).
func (w Window) NextRoom(times []time.Time, now time.Time, limit int) (time.Time, bool) {
	if limit < 1 {
		return time.Time{}, false
	}
	var in []time.Time
	for _, t := range times {
		if w.In(t, now) {
			in = append(in, at(t, now))
		}
	}
	if len(in) < limit {
		return now, true
	}
	slices.SortFunc(in, func(a, b time.Time) int { return a.Compare(b) })
	// Room appears when all but limit-1 of the events have left; the last of
	// those to leave is the (len-limit)th oldest, counting from zero.
	return in[len(in)-limit].Add(w.Length), true
}
