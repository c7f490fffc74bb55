package view

import (
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"time"

	"guard/internal/store"
)

// Durations sum up how long a key's runs took, over the runs the event log
// holds: how many, the 50th and 95th percentiles (nearest rank) and the
// longest, in milliseconds.
type Durations struct {
	Count int   `json:"count"`
	P50   int64 `json:"p50"`
	P95   int64 `json:"p95"`
	Max   int64 `json:"max"`

	samples []int64 // sorted
}

// Timings are the Durations of every key that ran.
type Timings map[string]*Durations

// TimingRuns bounds the runs RunTimings reads: the most recent ones, as
// many as a file's event log keeps, so that a database's log of millions
// of events is summed up in bounded time and memory.
const TimingRuns = 50000

// RunTimings reads the run events of events (every "run" with a duration,
// the TimingRuns most recent) and sums up each key's.
func RunTimings(events store.Events) (Timings, error) {
	res, err := store.Select(events, store.Query{
		Events: []string{store.EventRun},
		Keep:   func(e *store.Event) bool { return e.DurationMS != nil },
		Limit:  TimingRuns,
	})
	if err != nil {
		return nil, err
	}
	t := Timings{}
	for i := range res.Events {
		e := &res.Events[i]
		d := t[e.Key]
		if d == nil {
			d = &Durations{}
			t[e.Key] = d
		}
		d.samples = append(d.samples, max(*e.DurationMS, 0))
	}
	for _, d := range t {
		slices.Sort(d.samples)
		d.Count = len(d.samples)
		d.P50, d.P95, d.Max = rank(d.samples, 0.50), rank(d.samples, 0.95), d.samples[len(d.samples)-1]
	}
	return t, nil
}

// rank returns the q-th quantile of sorted by nearest rank.
func rank(sorted []int64, q float64) int64 {
	i := int(math.Ceil(q*float64(len(sorted)))) - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}

// Slowest returns the n keys whose runs are slowest (by p95, then max),
// slowest first; n <= 0 means all.
func (t Timings) Slowest(n int) []string {
	keys := make([]string, 0, len(t))
	for k := range t {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		a, b := t[keys[i]], t[keys[j]]
		if a.P95 != b.P95 {
			return a.P95 > b.P95
		}
		if a.Max != b.Max {
			return a.Max > b.Max
		}
		return keys[i] < keys[j]
	})
	if n > 0 && n < len(keys) {
		keys = keys[:n]
	}
	return keys
}

// ms shows a duration in milliseconds the way the tables do: 850ms, 4.2s,
// 3m10s.
func ms(n int64) string {
	d := time.Duration(n) * time.Millisecond
	switch {
	case d < time.Second:
		return fmt.Sprintf("%dms", n)
	case d < time.Minute:
		return fmt.Sprintf("%.1fs", d.Seconds())
	default:
		return d.Round(time.Second).String()
	}
}

// Brief is the status table's TIME column: p50/p95, or "-" for a key with
// no timed run.
func (d *Durations) Brief() string {
	if d == nil || d.Count == 0 {
		return "-"
	}
	return ms(d.P50) + "/" + ms(d.P95)
}

// A SlowHook is one line of guard report --slowest --format json.
type SlowHook struct {
	Key        string    `json:"key"`
	DurationMS Durations `json:"duration_ms"`
}

// SlowHooks lists the n slowest keys of t.
func SlowHooks(t Timings, n int) []SlowHook {
	out := []SlowHook{}
	for _, k := range t.Slowest(n) {
		out = append(out, SlowHook{Key: k, DurationMS: *t[k]})
	}
	return out
}

// WriteSlowest writes the n slowest hooks as a table.
func WriteSlowest(w io.Writer, t Timings, n int, keyWidth int) {
	hooks := SlowHooks(t, n)
	if len(hooks) == 0 {
		fmt.Fprintln(w, "no timed runs in the event log yet")
		return
	}
	tb := &table{header: []string{"RUNS", "P50", "P95", "MAX", "KEY"}}
	for _, h := range hooks {
		d := h.DurationMS
		tb.rows = append(tb.rows, []string{fmt.Sprint(d.Count), ms(d.P50), ms(d.P95), ms(d.Max), ellipsize(KeyText(h.Key), keyWidth)})
	}
	tb.write(w)
}
