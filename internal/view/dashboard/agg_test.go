package dashboard

import (
	"testing"
	"time"

	"guard/breaker"
	"guard/internal/store"
)

// The window of these tests: 2026-01-01T00:00Z to 2026-01-08T00:00Z.
var (
	winStart = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	winEnd   = winStart.Add(Window)
)

func at(h float64) time.Time { return winStart.Add(time.Duration(h * float64(time.Hour))) }

func TestTimeline(t *testing.T) {
	fail := func(h float64) store.Event {
		return store.Event{Time: at(h), Event: store.EventRun, Key: "k", Outcome: "failure", DurationMS: store.Int64(5)}
	}
	ok := func(h float64) store.Event {
		return store.Event{Time: at(h), Event: store.EventRun, Key: "k", Outcome: "success"}
	}
	move := func(h float64, event, from, to string) store.Event {
		return store.Event{Time: at(h), Event: event, Key: "k", From: from, To: to}
	}
	for _, tc := range []struct {
		name    string
		events  []store.Event
		now     time.Time
		current breaker.State
		want    Timeline
	}{{
		name:    "nothing",
		now:     at(167.5),
		current: breaker.Closed,
	}, {
		name:    "open the whole window, since before it",
		now:     at(167.5),
		current: breaker.Open,
		want:    Timeline{Open: "M0 0H167.5V10H0z"},
	}, {
		name: "opened, probed, closed",
		events: []store.Event{fail(10.5), move(10.5, store.EventTransition, "closed", "open"),
			move(12, store.EventProbe, "open", "half_open"), ok(12.25), move(12.25, store.EventTransition, "half_open", "closed")},
		now:     at(167.5),
		current: breaker.Closed,
		want: Timeline{Open: "M10.5 0H12V10H10.5z", HalfOpen: "M12 0H12.25V10H12z",
			Calls: "M10.5 10v-9m2 9v-9", Fails: "M10.5 10v-9",
			Opened: "M10.5 0v10", Probed: "M12 0v10", Shut: "M12.25 0v10",
			Calls7: 2, Fails7: 1, Opened7: 1},
	}, {
		name:    "bars scaled to the busiest hour; the last 24 hours counted apart",
		events:  []store.Event{ok(3.1), ok(3.2), ok(150), ok(150.1), ok(150.2), fail(150.3)},
		now:     at(167.5),
		current: breaker.Closed,
		want:    Timeline{Calls: "M3.5 10v-5m147 5v-9", Fails: "M150.5 10v-2", Calls7: 6, Fails7: 1, Calls24: 4, Fails24: 1},
	}, {
		name:    "tripped by hand and still open",
		events:  []store.Event{move(100, store.EventTrip, "closed", "open")},
		now:     at(167.5),
		current: breaker.Open,
		want:    Timeline{Open: "M100 0H167.5V10H100z", Opened: "M100 0v10", Opened7: 1},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			var a keyAgg
			for i := range tc.events {
				a.add(&tc.events[i])
			}
			if got := a.timeline(winEnd, tc.now, tc.current); got != tc.want {
				t.Errorf("timeline =\n%+v\nwant\n%+v", got, tc.want)
			}
		})
	}
}

// TestPrune: what leaves the window leaves the timeline and the run
// times.
func TestPrune(t *testing.T) {
	var a keyAgg
	for _, h := range []float64{-30, -2, 1, 5} {
		ev := store.Event{Time: at(h), Event: store.EventRun, Key: "k", Outcome: "success", DurationMS: store.Int64(int64(h + 100))}
		a.add(&ev)
	}
	a.prune(winStart)
	if n, p50, _, most := a.durations(); n != 2 || p50 != 101 || most != 105 {
		t.Errorf("durations after prune = %d runs, p50 %d, max %d; want 2, 101, 105", n, p50, most)
	}
	if len(a.hours) != 2 {
		t.Errorf("%d hours kept; want 2", len(a.hours))
	}
}
