package dashboard

import (
	"strings"
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

func run(h float64, outcome string) store.Event {
	return store.Event{Time: at(h), Event: store.EventRun, Key: "k", Outcome: outcome, DurationMS: store.Int64(5)}
}

func skip(h float64, verdict string) store.Event {
	return store.Event{Time: at(h), Event: store.EventSkip, Key: "k", Reason: "open", Verdict: verdict}
}

func move(h float64, event, from, to string) store.Event {
	return store.Event{Time: at(h), Event: event, Key: "k", From: from, To: to}
}

// TestSparkScalesToActivity: a sparkline covers the key's activity, and a
// recent change with what came before it, so that a key that broke an
// hour ago shows that hour, not a hairline at the end of a week
// (newcomer-and-mission part B, issue 33 #4).
func TestSparkScalesToActivity(t *testing.T) {
	now := at(167.5)
	for _, tc := range []struct {
		name      string
		events    []store.Event
		current   breaker.State
		span      string
		bars      int
		runs      int
		failed    int
		skipped   int
		blocked   int
		rate      string
		wantPaths []string // path data that must be there
	}{{
		name: "nothing", current: breaker.Closed, span: "1h", bars: 60,
	}, {
		name:    "busy all week, opened 50 minutes ago: six hours of five-minute bars",
		events:  append(weekOf(run, "success"), run(166.7, "failure"), run(166.7, "failure"), run(166.7, "failure"), move(166.7, store.EventTransition, "closed", "open"), skip(167, "allowed"), skip(167.2, "blocked")),
		current: breaker.Open, span: "6h", bars: 72, runs: 3, failed: 3, skipped: 1, blocked: 1, rate: "100%",
		wantPaths: []string{"M0 0v20"},
	}, {
		name:    "first called 40 minutes ago: the last hour by the minute",
		events:  []store.Event{run(166.85, "success"), run(167.4, "failure")},
		current: breaker.Closed, span: "1h", bars: 60, runs: 2, failed: 1, rate: "50%",
	}, {
		name:    "a quiet week: seven days of hours",
		events:  weekOf(run, "success"),
		current: breaker.Closed, span: "7 days", bars: 168, runs: 17, rate: "0%",
	}, {
		name:    "observe mode's would-be skips ran: not counted as not run",
		events:  []store.Event{run(167.3, "success"), {Time: at(167.3), Event: store.EventSkip, Key: "k", Outcome: store.OutcomeObserved}},
		current: breaker.Closed, span: "1h", bars: 60, runs: 1, rate: "0%",
	}} {
		t.Run(tc.name, func(t *testing.T) {
			var a keyAgg
			for i := range tc.events {
				a.add(&tc.events[i], now.Add(-MinuteSpan))
			}
			sp := a.spark(now, tc.current)
			if sp.Span != tc.span || sp.Bars != tc.bars {
				t.Errorf("span %s in %d bars; want %s in %d", sp.Span, sp.Bars, tc.span, tc.bars)
			}
			if sp.Runs != tc.runs || sp.Failed != tc.failed || sp.Skipped != tc.skipped || sp.Blocked != tc.blocked || sp.Rate != tc.rate {
				t.Errorf("counts: %d runs, %d failed (%s), %d skipped, %d blocked; want %d, %d (%s), %d, %d",
					sp.Runs, sp.Failed, sp.Rate, sp.Skipped, sp.Blocked, tc.runs, tc.failed, tc.rate, tc.skipped, tc.blocked)
			}
			if tc.blocked > 0 && sp.Block == "" || tc.skipped > 0 && sp.Skips == "" || tc.failed > 0 && sp.Fails == "" {
				t.Errorf("a count has no bars: %+v", sp)
			}
			if tc.current == breaker.Open && (sp.Open == "" || sp.Opened == "") {
				t.Errorf("open, with no band or mark: %+v", sp)
			}
			if len(sp.Ticks) != 3 || sp.Ticks[2].Label != "now" || !strings.HasSuffix(sp.Ticks[0].Label, " ago") {
				t.Errorf("ticks %+v", sp.Ticks)
			}
		})
	}
}

// weekOf is a call every ten hours over the week, made by f.
func weekOf(f func(float64, string) store.Event, outcome string) []store.Event {
	var evs []store.Event
	for h := 0.5; h < 167; h += 10 {
		evs = append(evs, f(h, outcome))
	}
	return evs
}

// TestPrune: what leaves the window leaves the sparkline and the run
// times.
func TestPrune(t *testing.T) {
	var a keyAgg
	for _, h := range []float64{-30, -2, 1, 5} {
		ev := store.Event{Time: at(h), Event: store.EventRun, Key: "k", Outcome: "success", DurationMS: store.Int64(int64(h + 100))}
		a.add(&ev, at(0))
	}
	a.prune(winStart, at(3))
	if n, p50, _, most := a.durations(); n != 2 || p50 != 101 || most != 105 {
		t.Errorf("durations after prune = %d runs, p50 %d, max %d; want 2, 101, 105", n, p50, most)
	}
	if len(a.hours) != 2 || len(a.minutes) != 1 {
		t.Errorf("%d hours and %d minutes kept; want 2 and 1", len(a.hours), len(a.minutes))
	}
}
