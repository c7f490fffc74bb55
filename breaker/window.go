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

// A Bucket counts the calls that ended in one stretch of a window: the
// rate rules keep these instead of a stamp per call, so that a busy key's
// state stays small (resilience4j's time-based window does the same).
type Bucket struct {
	Start  time.Time // a whole number of bucket widths since the Unix epoch
	Calls  int
	Failed int
	Slow   int
}

// BucketsPerWindow is how many buckets a window is cut into.
const BucketsPerWindow = 60

// BucketWidth returns the width of w's buckets: a sixtieth of its length,
// rounded up to a whole second (timestamps are kept to the second), and at
// least one second. A window of a minute or less counts to the second.
func (w Window) BucketWidth() time.Duration {
	width := (w.Length + BucketsPerWindow - 1) / BucketsPerWindow
	return max(time.Second, (width + time.Second - 1).Truncate(time.Second))
}

// bucketStart returns the start of the bucket t falls in.
func (w Window) bucketStart(t time.Time) time.Time {
	width := int64(w.BucketWidth() / time.Second)
	s := t.Unix()
	s -= ((s % width) + width) % width
	return time.Unix(s, 0).UTC()
}

// PruneBuckets drops the buckets that have left the window ending at now,
// and merges buckets stamped after now (the clock stepped back) into now's.
// A bucket leaves when its start does: its calls leave together, up to one
// width before each would on its own. Buckets of another width (the window
// changed, or stamps a second each) are counted into buckets of w's. bs
// must be in time order; it is pruned in place, and the shortened slice
// returned.
func (w Window) PruneBuckets(bs []Bucket, now time.Time) []Bucket {
	if w.Length <= 0 {
		return bs[:0]
	}
	cur := w.bucketStart(now)
	kept := bs[:0]
	for _, b := range bs {
		b.Start = w.bucketStart(b.Start)
		if b.Start.After(cur) {
			b.Start = cur
		}
		if !w.In(b.Start, now) {
			continue
		}
		if n := len(kept); n > 0 && kept[n-1].Start.Equal(b.Start) {
			kept[n-1].Calls += b.Calls
			kept[n-1].Failed += b.Failed
			kept[n-1].Slow += b.Slow
			continue
		}
		kept = append(kept, b)
	}
	clear(bs[len(kept):])
	return kept
}

// AddCall counts a call that ended at now in its bucket, after pruning bs
// to the window ending at now.
func (w Window) AddCall(bs []Bucket, now time.Time, failed, slow bool) []Bucket {
	bs = w.PruneBuckets(bs, now)
	cur := w.bucketStart(now)
	if n := len(bs); n == 0 || !bs[n-1].Start.Equal(cur) {
		bs = append(bs, Bucket{Start: cur})
	}
	b := &bs[len(bs)-1]
	b.Calls++
	if failed {
		b.Failed++
	}
	if slow {
		b.Slow++
	}
	return bs
}

// SumBuckets returns the calls, failed calls and slow calls bs count.
func SumBuckets(bs []Bucket) (calls, failed, slow int) {
	for _, b := range bs {
		calls += b.Calls
		failed += b.Failed
		slow += b.Slow
	}
	return calls, failed, slow
}
