package dashboard

import (
	"math"
	"strconv"
	"strings"
	"time"

	"guard/breaker"
	"guard/internal/view"
)

// A Spark is a key's sparkline: its calls over a span of time scaled to
// the key's activity, so that a key that broke an hour ago shows that hour,
// not a week in which it is a hairline. One bar per step: the calls that
// ran and succeeded (grey), failed (red), and those not run whose action
// was allowed (amber) or blocked (purple), stacked; bands while the
// circuit was open (red) or half-open (amber); a line where it opened,
// began probing or closed; and a time axis. Path data is in a view box
// Bars wide and 20 high.
type Spark struct {
	Span                 string // the span it covers, ending now: "1h", "6h", "24h", "7 days"
	Step                 string // one bar's width: "1 min", "5 min", "1h"
	Bars                 int
	Ok                   string // bars: calls that ran and did not fail
	Fails                string
	Skips                string // not run, allowed
	Block                string // not run, blocked
	Open, HalfOpen       string // bands
	Opened, Probed, Shut string // marks
	Ticks                []Tick
	// What the span adds up to.
	Runs, Failed, Skipped, Blocked int
	Rate                           string // the share of the runs that failed: "30%"; "" without runs
	// The last 7 days, for the history beside the span.
	Runs7, Failed7, Skipped7, Blocked7, Opened7 int
}

// A Tick is a label on a Spark's time axis, At percent along it.
type Tick struct {
	At    float64
	Label string
}

// The spans a Spark may cover, shortest first, with their steps.
var spans = []struct {
	span, step time.Duration
	name       string
}{
	{time.Hour, time.Minute, "1h"},
	{6 * time.Hour, 5 * time.Minute, "6h"},
	{24 * time.Hour, time.Hour, "24h"},
	{Window, time.Hour, "7 days"},
}

// sparkHeight is the height of a Spark's view box.
const sparkHeight = 20

// spark draws a as of now, whose circuit's state is current. The span is
// the shortest that covers the key's activity in the window, and, if its
// circuit changed state in the window, twice the time since the last
// change (at least half an hour), so that the change shows with what came
// before it.
func (a *keyAgg) spark(now time.Time, current breaker.State) Spark {
	need := time.Duration(0)
	first := hourOf(now.Add(-Window))
	for n, h := range a.hours {
		if n >= first && h.calls+h.skips+h.blocked > 0 {
			need = max(need, now.Sub(time.Unix(n*3600, 0)))
		}
	}
	if need <= MinuteSpan-time.Hour {
		// All of it in the last hours: to the minute.
		need = 0
		for n, h := range a.minutes {
			if h.calls+h.skips+h.blocked > 0 {
				need = max(need, now.Sub(time.Unix(n*60, 0)))
			}
		}
	}
	if len(a.changes) > 0 {
		last := a.changes[len(a.changes)-1].at
		if since := now.Sub(last); since < Window {
			need = min(need, max(2*since, 30*time.Minute))
			need = max(need, since+time.Minute)
		}
	}
	pick := spans[len(spans)-1]
	for _, s := range spans {
		if need <= s.span {
			pick = s
			break
		}
	}
	sp := Spark{Span: pick.name, Step: view.Span(pick.step)}
	end := now.Truncate(pick.step).Add(pick.step)
	start := end.Add(-pick.span)
	sp.Bars = int(pick.span / pick.step)

	counts := make([]hourCount, sp.Bars)
	if pick.step == time.Minute || pick.step == 5*time.Minute {
		for n, c := range a.minutes {
			if i := int(time.Unix(n*60, 0).Sub(start) / pick.step); i >= 0 && i < sp.Bars {
				addCount(&counts[i], c)
			}
		}
	} else {
		for n, c := range a.hours {
			if i := int(time.Unix(n*3600, 0).Sub(start) / pick.step); i >= 0 && i < sp.Bars {
				addCount(&counts[i], c)
			}
		}
	}
	peak := 0
	for _, c := range counts {
		peak = max(peak, c.calls+c.skips+c.blocked)
		sp.Runs += c.calls
		sp.Failed += c.fails
		sp.Skipped += c.skips
		sp.Blocked += c.blocked
	}
	if sp.Runs > 0 {
		sp.Rate = percent(sp.Failed, sp.Runs)
	}
	var ok, fails, skips, block strings.Builder
	for i, c := range counts {
		total := c.calls + c.skips + c.blocked
		if total == 0 {
			continue
		}
		// Each part at least one unit high, the whole at most the box.
		y := sparkHeight
		for _, part := range []struct {
			n int
			b *strings.Builder
		}{{c.calls - c.fails, &ok}, {c.fails, &fails}, {c.skips, &skips}, {c.blocked, &block}} {
			if part.n <= 0 || y <= 0 {
				continue
			}
			h := min(max(1, int(math.Round(float64(part.n)/float64(peak)*(sparkHeight-1)))), y)
			part.b.WriteString("M" + strconv.Itoa(i) + ".5 " + strconv.Itoa(y) + "v-" + strconv.Itoa(h))
			y -= h
		}
	}
	sp.Ok, sp.Fails, sp.Skips, sp.Block = ok.String(), fails.String(), skips.String(), block.String()

	x := func(t time.Time) string {
		v := min(max(float64(t.Sub(start))/float64(pick.step), 0), float64(sp.Bars))
		return strconv.FormatFloat(math.Round(v*100)/100, 'f', -1, 64)
	}
	var open, half, opened, probed, shut strings.Builder
	band := func(s breaker.State, from, to time.Time) {
		if !to.After(start) {
			return
		}
		b := &open
		switch s {
		case breaker.Closed:
			return
		case breaker.HalfOpen:
			b = &half
		}
		b.WriteString("M" + x(from) + " 0H" + x(to) + "V" + strconv.Itoa(sparkHeight) + "H" + x(from) + "z")
	}
	state, since := current, start
	if len(a.changes) > 0 {
		state = a.changes[0].from
	}
	for _, c := range a.changes {
		if c.to == breaker.Open && !c.at.Before(now.Add(-Window)) {
			sp.Opened7++
		}
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
		case breaker.HalfOpen:
			mark = &probed
		}
		mark.WriteString("M" + x(c.at) + " 0v" + strconv.Itoa(sparkHeight))
	}
	band(current, since, now)
	sp.Open, sp.HalfOpen = open.String(), half.String()
	sp.Opened, sp.Probed, sp.Shut = opened.String(), probed.String(), shut.String()

	ago := pick.span
	sp.Ticks = []Tick{{0, view.Span(ago) + " ago"}, {50, view.Span(ago/2) + " ago"}, {100, "now"}}

	for n, h := range a.hours {
		if n >= first {
			sp.Runs7 += h.calls
			sp.Failed7 += h.fails
			sp.Skipped7 += h.skips
			sp.Blocked7 += h.blocked
		}
	}
	return sp
}

func addCount(to *hourCount, c *hourCount) {
	to.calls += c.calls
	to.fails += c.fails
	to.skips += c.skips
	to.blocked += c.blocked
}

// percent is n of total as a whole percentage, "0%" only for none.
func percent(n, total int) string {
	p := float64(n) / float64(total) * 100
	switch {
	case n == 0:
		return "0%"
	case p < 1:
		return "<1%"
	}
	return strconv.Itoa(int(math.Round(p))) + "%"
}

// recent counts the calls of the keys' last 24 hours as of now, for the
// summary.
func recent(aggs []*keyAgg, now time.Time) hourCount {
	var c hourCount
	from := hourOf(now.Add(-24 * time.Hour))
	for _, a := range aggs {
		for n, h := range a.hours {
			if n > from {
				addCount(&c, h)
			}
		}
	}
	return c
}
