package dashboard

import (
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"guard/breaker"
	"guard/internal/store"
)

// A keyAgg is what a key's events in the window add up to: calls and
// failures per hour, its changes of state, and its run times. Events are
// added as they are read and pruned as they leave the window, so that
// neither costs more as the log grows older.
type keyAgg struct {
	hours   map[int64]*hourCount // by Unix hour
	changes []change             // in time order
	samples []sample             // in time order
}

type hourCount struct{ calls, fails int }

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

// add counts ev, one of the key's events.
func (a *keyAgg) add(ev *store.Event) {
	switch ev.Event {
	case store.EventRun:
		h := a.hour(ev.Time)
		h.calls++
		if ev.Outcome == string(breaker.Failure) || ev.Outcome == string(breaker.Abandoned) {
			h.fails++
		}
		if ev.DurationMS != nil {
			a.samples = insertSorted(a.samples, sample{ev.Time, max(*ev.DurationMS, 0)}, func(s sample) time.Time { return s.at })
		}
	case store.EventSkip, store.EventRejected:
		a.hour(ev.Time).calls++
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
	n := hourOf(t)
	h := a.hours[n]
	if h == nil {
		h = &hourCount{}
		a.hours[n] = h
	}
	return h
}

// prune forgets what happened before start.
func (a *keyAgg) prune(start time.Time) {
	first := hourOf(start)
	for n := range a.hours {
		if n < first {
			delete(a.hours, n)
		}
	}
	i := sort.Search(len(a.changes), func(i int) bool { return !a.changes[i].at.Before(start) })
	a.changes = slices.Delete(a.changes, 0, i)
	j := sort.Search(len(a.samples), func(i int) bool { return !a.samples[i].at.Before(start) })
	a.samples = slices.Delete(a.samples, 0, j)
}

func (a *keyAgg) empty() bool {
	return len(a.hours) == 0 && len(a.changes) == 0 && len(a.samples) == 0
}

func hourOf(t time.Time) int64 { return int64(math.Floor(float64(t.Unix()) / 3600)) }

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

// A Timeline is a key's last 7 days drawn as SVG path data, in a view box
// 168 hours wide (x: hours since the window's start) and 10 high: bands
// where the circuit was open or half-open, a bar per hour for the calls
// and one for the failures (stroked, 0.8 wide), and a mark at each change
// of state. The 24-hour view is the last 24 of the same 168.
type Timeline struct {
	Open, HalfOpen       string // bands
	Calls, Fails         string // bars
	Opened, Probed, Shut string // marks: to open, to half-open, to closed
	// The counts, for people and for a chart that cannot be seen.
	Calls24, Fails24, Calls7, Fails7, Opened7 int
}

// timelineHours is the window in hours: the view box's width.
const timelineHours = 168

// timeline draws a as of now in the window that ends at end (the hour
// after now's), whose last state is current.
func (a *keyAgg) timeline(end, now time.Time, current breaker.State) Timeline {
	var tl Timeline
	start := end.Add(-Window)
	first := hourOf(start)
	peak := 0
	var hours []int64
	for n, h := range a.hours {
		if n < first || n >= first+timelineHours {
			continue
		}
		hours = append(hours, n)
		peak = max(peak, h.calls)
		tl.Calls7 += h.calls
		tl.Fails7 += h.fails
		if n >= first+timelineHours-24 {
			tl.Calls24 += h.calls
			tl.Fails24 += h.fails
		}
	}
	slices.Sort(hours)
	height := func(n int) int { return max(1, int(math.Round(float64(n)/float64(peak)*9))) }
	var calls, fails bars
	for _, n := range hours {
		h := a.hours[n]
		x := int(n - first)
		if h.calls > 0 {
			calls.add(x, height(h.calls))
		}
		if h.fails > 0 {
			fails.add(x, height(h.fails))
		}
	}
	tl.Calls, tl.Fails = calls.String(), fails.String()

	x := func(t time.Time) string {
		v := min(max(t.Sub(start).Hours(), 0), timelineHours)
		return strconv.FormatFloat(math.Round(v*100)/100, 'f', -1, 64)
	}
	var open, half, opened, probed, shut strings.Builder
	band := func(s breaker.State, from, to time.Time) {
		b := &open
		switch s {
		case breaker.Closed:
			return
		case breaker.HalfOpen:
			b = &half
		}
		b.WriteString("M" + x(from) + " 0H" + x(to) + "V10H" + x(from) + "z")
	}
	state, since := current, start
	if len(a.changes) > 0 {
		state = a.changes[0].from
	}
	for _, c := range a.changes {
		if c.at.Before(start) {
			state = c.to
			continue
		}
		band(state, since, c.at)
		state, since = c.to, c.at
		mark := &shut
		switch c.to {
		case breaker.Open:
			mark = &opened
			tl.Opened7++
		case breaker.HalfOpen:
			mark = &probed
		}
		mark.WriteString("M" + x(c.at) + " 0v10")
	}
	band(current, since, now)
	tl.Open, tl.HalfOpen = open.String(), half.String()
	tl.Opened, tl.Probed, tl.Shut = opened.String(), probed.String(), shut.String()
	return tl
}

// bars writes bars standing on y=10, each at its hour's middle, as one
// path of relative moves: "M3.5 10v-4m1 4v-2" (about 7 bytes a bar).
type bars struct {
	b       strings.Builder
	x, h    int
	started bool
}

func (b *bars) add(x, h int) {
	if !b.started {
		b.b.WriteString("M" + strconv.Itoa(x) + ".5 10v-" + strconv.Itoa(h))
		b.started = true
	} else {
		b.b.WriteString("m" + strconv.Itoa(x-b.x) + " " + strconv.Itoa(b.h) + "v-" + strconv.Itoa(h))
	}
	b.x, b.h = x, h
}

func (b *bars) String() string { return b.b.String() }
