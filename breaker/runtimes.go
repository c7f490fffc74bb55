package breaker

import "time"

// RunTimeBounds are the upper bounds of the buckets RunTimes counts run
// times in, in milliseconds: from a millisecond, for a hook that only
// checks something, to ten minutes, Claude Code's default hook timeout.
// A stored RunTimes counts by these bounds, so they never change.
var RunTimeBounds = [...]int64{1, 5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10000, 30000, 60000, 120000, 300000, 600000}

// RunTimes sums up run times as a histogram does, cumulatively over a
// circuit's life: Buckets[i] counts the runs that took at most
// RunTimeBounds[i] and more than the bound before, and the last counts
// those over the last bound. Its zero value has seen no run.
type RunTimes struct {
	Buckets [len(RunTimeBounds) + 1]int64
	SumMS   int64 // the runs' times added up, in milliseconds
}

// Add counts a run that took d (rounded to the millisecond, as the event
// log has it).
func (t *RunTimes) Add(d time.Duration) {
	ms := max(d.Milliseconds(), 0)
	i := 0
	for i < len(RunTimeBounds) && ms > RunTimeBounds[i] {
		i++
	}
	t.Buckets[i]++
	t.SumMS += ms
}

// Count returns how many runs t counts.
func (t *RunTimes) Count() int64 {
	var n int64
	for _, b := range t.Buckets {
		n += b
	}
	return n
}
