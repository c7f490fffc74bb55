package dashboard

import (
	"math"
	"slices"
	"sort"
	"time"

	"guard/breaker"
	"guard/internal/store"
)

// A keyAgg is what a key's events in the window add up to: runs,
// failures and calls not run (by verdict) per hour, and per minute over
// the last MinuteSpan, its changes of state, and its run times. Events are
// added as they are read and pruned as they leave the window, so that
// neither costs more as the log grows older.
type keyAgg struct {
	hours   map[int64]*hourCount // by Unix hour
	minutes map[int64]*hourCount // by Unix minute, over the last MinuteSpan
	changes []change             // in time order
	samples []sample             // in time order
}

// An hourCount counts the calls of an hour (or a minute): those that ran
// and of them those that failed, and those not run (skipped or rejected)
// whose action was allowed, or blocked.
type hourCount struct{ calls, fails, skips, blocked int }

// MinuteSpan is how far back a key's calls are counted by the minute, for
// a sparkline of its last hours.
const MinuteSpan = 7 * time.Hour

// A change is an event that moved a circuit: a transition, a trip, a
// reset or a probe.
type change struct {
	at       time.Time
	event    string
	from, to breaker.State
	host     string
}

// A sample is one run's duration.
type sample struct {
	at time.Time
	ms int64
}

// add counts ev, one of the key's events; by the minute too if it is not
// before minutesFrom.
func (a *keyAgg) add(ev *store.Event, minutesFrom time.Time) {
	count := func(f func(c *hourCount)) {
		f(a.hour(ev.Time))
		if !ev.Time.Before(minutesFrom) {
			f(a.minute(ev.Time))
		}
	}
	switch ev.Event {
	case store.EventRun:
		failed := ev.Outcome == string(breaker.Failure) || ev.Outcome == string(breaker.Abandoned)
		count(func(c *hourCount) {
			c.calls++
			if failed {
				c.fails++
			}
		})
		if ev.DurationMS != nil {
			a.samples = insertSorted(a.samples, sample{ev.Time, max(*ev.DurationMS, 0)}, func(s sample) time.Time { return s.at })
		}
	case store.EventSkip, store.EventRejected:
		if ev.Outcome == store.OutcomeObserved {
			return // it ran: its run event counts it
		}
		blocked := ev.Verdict == store.VerdictBlocked
		count(func(c *hourCount) {
			if blocked {
				c.blocked++
			} else {
				c.skips++
			}
		})
	case store.EventTransition, store.EventTrip, store.EventReset, store.EventProbe:
		c := change{at: ev.Time, event: ev.Event, from: stateOf(ev.From), to: stateOf(ev.To), host: ev.Host}
		a.changes = insertSorted(a.changes, c, func(c change) time.Time { return c.at })
	}
}

// insertSorted inserts v in time order; events come nearly in order, so
// it looks from the end.
func insertSorted[T any](s []T, v T, at func(T) time.Time) []T {
	i := len(s)
	for i > 0 && at(s[i-1]).After(at(v)) {
		i--
	}
	return slices.Insert(s, i, v)
}

func (a *keyAgg) hour(t time.Time) *hourCount {
	if a.hours == nil {
		a.hours = map[int64]*hourCount{}
	}
	return bucket(a.hours, hourOf(t))
}

func (a *keyAgg) minute(t time.Time) *hourCount {
	if a.minutes == nil {
		a.minutes = map[int64]*hourCount{}
	}
	return bucket(a.minutes, minuteOf(t))
}

func bucket(m map[int64]*hourCount, n int64) *hourCount {
	h := m[n]
	if h == nil {
		h = &hourCount{}
		m[n] = h
	}
	return h
}

// prune forgets what happened before start, and the minutes before
// minutesFrom.
func (a *keyAgg) prune(start, minutesFrom time.Time) {
	first := hourOf(start)
	for n := range a.hours {
		if n < first {
			delete(a.hours, n)
		}
	}
	firstMinute := minuteOf(minutesFrom)
	for n := range a.minutes {
		if n < firstMinute {
			delete(a.minutes, n)
		}
	}
	i := sort.Search(len(a.changes), func(i int) bool { return !a.changes[i].at.Before(start) })
	a.changes = slices.Delete(a.changes, 0, i)
	j := sort.Search(len(a.samples), func(i int) bool { return !a.samples[i].at.Before(start) })
	a.samples = slices.Delete(a.samples, 0, j)
}

// recent reports whether anything happened to the key in the last
// MinuteSpan: its sparkline then covers hours, and moves as time passes.
func (a *keyAgg) recent(now time.Time) bool {
	return len(a.minutes) > 0 || len(a.changes) > 0 && now.Sub(a.changes[len(a.changes)-1].at) < MinuteSpan
}

func (a *keyAgg) empty() bool {
	return len(a.hours) == 0 && len(a.changes) == 0 && len(a.samples) == 0
}

func hourOf(t time.Time) int64 { return int64(math.Floor(float64(t.Unix()) / 3600)) }

func minuteOf(t time.Time) int64 { return int64(math.Floor(float64(t.Unix()) / 60)) }

func stateOf(s string) breaker.State {
	if s == "" {
		return breaker.Closed
	}
	return breaker.State(s)
}

// durations returns the run times' count, p50, p95 and max (nearest
// rank, as guard status has them).
func (a *keyAgg) durations() (n int, p50, p95, most int64) {
	if len(a.samples) == 0 {
		return 0, 0, 0, 0
	}
	ms := make([]int64, len(a.samples))
	for i, s := range a.samples {
		ms[i] = s.ms
	}
	slices.Sort(ms)
	rank := func(q float64) int64 {
		i := int(math.Ceil(q*float64(len(ms)))) - 1
		return ms[min(max(i, 0), len(ms)-1)]
	}
	return len(ms), rank(0.5), rank(0.95), ms[len(ms)-1]
}
