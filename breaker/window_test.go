package breaker

import (
	"slices"
	"testing"
	"time"
)

var t0 = time.Date(2026, 2, 10, 12, 0, 0, 0, time.UTC)

func ago(ds ...time.Duration) []time.Time {
	var ts []time.Time
	for _, d := range ds {
		ts = append(ts, t0.Add(-d))
	}
	return ts
}

func TestWindowEdges(t *testing.T) {
	w := Window{Length: 4 * time.Hour}
	tests := []struct {
		name string
		age  time.Duration
		want bool
	}{
		{"exactly the length old", 4 * time.Hour, false},
		{"a minute younger", 3*time.Hour + 59*time.Minute, true},
		{"a nanosecond younger", 4*time.Hour - 1, true},
		{"just now", 0, true},
		{"an hour in the future", -time.Hour, true},
		{"a day old", 24 * time.Hour, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := w.In(t0.Add(-tc.age), t0); got != tc.want {
				t.Errorf("In(now-%s) = %v; want %v", tc.age, got, tc.want)
			}
		})
	}
}

func TestWindowZeroLengthHoldsNothing(t *testing.T) {
	w := Window{}
	if n := w.Count(ago(0, time.Second, -time.Hour), t0); n != 0 {
		t.Errorf("Count = %d; want 0", n)
	}
}

func TestWindowCount(t *testing.T) {
	w := Window{Length: time.Hour}
	times := ago(2*time.Hour, time.Hour, 59*time.Minute, time.Minute, -time.Minute)
	if n := w.Count(times, t0); n != 3 {
		t.Errorf("Count = %d; want 3", n)
	}
}

func TestWindowPrune(t *testing.T) {
	w := Window{Length: time.Hour}
	times := ago(2*time.Hour, 30*time.Minute, time.Hour, time.Minute, -time.Hour)
	got := w.Prune(times, t0)
	want := ago(30*time.Minute, time.Minute, 0) // the future one is stamped now
	if !slices.EqualFunc(got, want, time.Time.Equal) {
		t.Errorf("Prune = %v; want %v", got, want)
	}
}

func TestWindowNextRoom(t *testing.T) {
	w := Window{Length: 4 * time.Hour}
	tests := []struct {
		name   string
		times  []time.Time
		limit  int
		want   time.Time
		wantOK bool
	}{
		{"empty", nil, 2, t0, true},
		{"one of two used", ago(time.Hour), 2, t0, true},
		{"two of two used", ago(3*time.Hour, time.Hour), 2, t0.Add(time.Hour), true},
		{"order does not matter", ago(time.Hour, 3*time.Hour), 2, t0.Add(time.Hour), true},
		{"three over a limit of two", ago(3*time.Hour, 2*time.Hour, time.Hour), 2, t0.Add(2 * time.Hour), true},
		{"expired ones ignored", ago(5*time.Hour, time.Hour), 1, t0.Add(3 * time.Hour), true},
		{"future counts as now", ago(-time.Hour), 1, t0.Add(4 * time.Hour), true},
		{"limit zero never has room", nil, 0, time.Time{}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := w.NextRoom(tc.times, t0, tc.limit)
			if !got.Equal(tc.want) || ok != tc.wantOK {
				t.Errorf("NextRoom = %v, %v; want %v, %v", got, ok, tc.want, tc.wantOK)
			}
		})
	}
}

func BenchmarkWindowCount(b *testing.B) {
	w := Window{Length: time.Hour}
	times := make([]time.Time, 16)
	for i := range times {
		times[i] = t0.Add(-time.Duration(i) * 5 * time.Minute)
	}
	for b.Loop() {
		w.Count(times, t0)
	}
}
