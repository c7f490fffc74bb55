package breaker

import (
	"testing"
	"time"
)

func TestBudgetWindowEdges(t *testing.T) {
	restart := Budget{Limit: 2, Window: 4 * time.Hour}
	tests := []struct {
		name     string
		times    []time.Time
		allowed  bool
		used     int
		nextFrom time.Duration // NextAllowed - now
	}{
		{"none yet", nil, true, 0, 0},
		{"one", ago(time.Hour), true, 1, 0},
		{"two: spent", ago(3*time.Hour+59*time.Minute, time.Hour), false, 2, time.Minute},
		{"one exactly 4h old no longer counts", ago(4*time.Hour, time.Hour), true, 1, 0},
		{"one 3h59m old still counts", ago(3*time.Hour+59*time.Minute, 2*time.Hour), false, 2, time.Minute},
		{"old ones ignored", ago(10*time.Hour, 5*time.Hour, 3*time.Hour), true, 1, 0},
		{"three after a clock step", ago(-time.Hour, time.Hour, 2*time.Hour), false, 3, 3 * time.Hour},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v := restart.Check(tc.times, t0)
			if v.Allowed != tc.allowed || v.Used != tc.used || v.Limit != 2 || !v.NextAllowed.Equal(t0.Add(tc.nextFrom)) {
				t.Errorf("Check = %+v; want allowed %v, used %d, next in %s", v, tc.allowed, tc.used, tc.nextFrom)
			}
		})
	}
}

func TestBudgetLimitZeroNeverAllows(t *testing.T) {
	v := Budget{Limit: 0, Window: time.Hour}.Check(nil, t0)
	if v.Allowed || !v.NextAllowed.IsZero() {
		t.Errorf("Check = %+v; want never allowed", v)
	}
}

func TestHealthyCheck(t *testing.T) {
	steps := []struct {
		streak, resetAfter int
		want               int
		reset              bool
	}{
		{0, 2, 1, false},
		{1, 2, 0, true},
		{0, 1, 0, true},
		{5, 0, 0, true}, // 0 behaves as 1
	}
	for i, s := range steps {
		got, reset := HealthyCheck(s.streak, s.resetAfter)
		if got != s.want || reset != s.reset {
			t.Errorf("step %d: HealthyCheck(%d, %d) = %d, %v; want %d, %v", i, s.streak, s.resetAfter, got, reset, s.want, s.reset)
		}
	}
}

func TestBudgetCheckNCountsEveryAction(t *testing.T) {
	restart := Budget{Limit: 3, Window: 4 * time.Hour}
	tests := []struct {
		name     string
		times    []time.Time
		n        int
		allowed  bool
		nextFrom time.Duration // NextAllowed - now; -1: never
	}{
		{"three fit an unused budget", nil, 3, true, 0},
		{"four never fit a limit of 3", nil, 4, false, -1},
		{"two fit beside one", ago(time.Hour), 2, true, 0},
		{"three do not fit beside one: room when it leaves", ago(time.Hour), 3, false, 3 * time.Hour},
		{"two beside two: room when the older leaves", ago(2*time.Hour, time.Hour), 2, false, 2 * time.Hour},
		{"n below 1 is one", ago(time.Hour, time.Hour), 0, true, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v := restart.CheckN(tc.times, t0, tc.n)
			want := t0.Add(tc.nextFrom)
			if tc.nextFrom < 0 {
				want = time.Time{}
			}
			if v.Allowed != tc.allowed || !v.NextAllowed.Equal(want) {
				t.Errorf("CheckN(%d) = %+v; want allowed %v, next allowed %v", tc.n, v, tc.allowed, want)
			}
		})
	}
}
