package view

import (
	"strings"
	"testing"
	"time"

	"guard/breaker"
	"guard/config"
)

// TestStateOf: one model of a key's state (issue 33 #1): a disabled key is
// never open, whatever its circuit was before (newcomer-and-mission #2);
// observe mode says the state it would skip by; forced open says so.
func TestStateOf(t *testing.T) {
	for _, tc := range []struct {
		name    string
		c       breaker.Circuit
		mode    string
		enabled bool
		state   string
		word    string
		skip    bool
	}{
		{"never ran", breaker.Circuit{}, "", true, StateClosed, "closed", false},
		{"open", breaker.Circuit{State: breaker.Open}, "enforce", true, StateOpen, "open", true},
		{"half-open", breaker.Circuit{State: breaker.HalfOpen}, "", true, StateHalfOpen, "half-open", true},
		{"forced", breaker.Circuit{State: breaker.Open, Forced: true}, "", true, StateForced, "open (forced)", true},
		{"observe, would skip", breaker.Circuit{State: breaker.Open}, "observe", true, StateObserve, "observe (open)", false},
		{"observe, closed", breaker.Circuit{}, "observe", true, StateObserve, "observe (closed)", false},
		{"mode: disabled over an open circuit", breaker.Circuit{State: breaker.Open, ConsecutiveFailures: 3}, "disabled", true, StateDisabled, "disabled", false},
		{"enabled: false over a forced one", breaker.Circuit{State: breaker.Open, Forced: true}, "", false, StateDisabled, "disabled", false},
		{"guard disable over a half-open one", breaker.Circuit{State: breaker.HalfOpen, Disabled: &breaker.Disable{}}, "observe", true, StateDisabled, "disabled", false},
	} {
		ks := StateOf(tc.c, tc.mode, tc.enabled)
		if ks.Name != tc.state || ks.Word() != tc.word || ks.Skipping() != tc.skip {
			t.Errorf("%s: %s %q skipping %v; want %s %q %v", tc.name, ks.Name, ks.Word(), ks.Skipping(), tc.state, tc.word, tc.skip)
		}
	}
	// Most urgent first; disabled last.
	order := []KeyState{{StateOpen, breaker.Open}, {StateHalfOpen, breaker.HalfOpen}, {StateForced, breaker.Open},
		{StateObserve, breaker.Open}, {StateClosed, breaker.Closed}, {StateDisabled, breaker.Open}}
	for i := 1; i < len(order); i++ {
		if order[i-1].Rank() >= order[i].Rank() {
			t.Errorf("%s ranks %d, not before %s (%d)", order[i-1].Word(), order[i-1].Rank(), order[i].Word(), order[i].Rank())
		}
	}
}

// TestStandingOf: FAILURES counts what the key's rule counts
// (newcomer-and-mission #18: 5 since it last closed read as past a
// threshold of 3 that counts failures in a row).
func TestStandingOf(t *testing.T) {
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	base := config.Default("/home/x").CircuitBreaker
	withRule := func(f func(b *config.Breaker)) config.Breaker { b := base; f(&b); return b }
	for _, tc := range []struct {
		name  string
		c     breaker.Circuit
		b     config.Breaker
		brief string
	}{
		{"in a row, not since closed", breaker.Circuit{FailureCount: 5, ConsecutiveFailures: 1}, base, "1/3"},
		{"window", breaker.Circuit{FailureCount: 4, Failures: []time.Time{now.Add(-time.Hour), now.Add(-time.Minute), now.Add(-time.Second)}},
			withRule(func(b *config.Breaker) { b.FailureWindow = 10 * time.Minute }), "2/3 in 10m"},
		{"of last", breaker.Circuit{Recent: "fsfsf"}, withRule(func(b *config.Breaker) { b.OfLast = 5 }), "3/3 of last 5"},
		{"rate", breaker.Circuit{Calls: []breaker.Bucket{{Start: now.Add(-time.Minute), Calls: 10, Failed: 4}}},
			withRule(func(b *config.Breaker) { b.FailureRate, b.FailureWindow, b.MinimumCalls = 0.5, 10*time.Minute, 5 }), "40%/50% of 10 in 10m"},
		{"half-open", breaker.Circuit{State: breaker.HalfOpen, ConsecutiveSuccesses: 1}, base, "probes 1/2"},
		{"disabled", breaker.Circuit{ConsecutiveFailures: 3}, withRule(func(b *config.Breaker) { b.Mode = "disabled" }), "-"},
	} {
		if got := StandingOf(tc.c, &tc.b, "k", now).Brief(); got != tc.brief {
			t.Errorf("%s: %q; want %q", tc.name, got, tc.brief)
		}
	}
}

// TestStandingTextCountsInWords: a tile and the report say "1 failure in
// the last 10m", "1 successful probe", never "1 failures" or "1 calls"
// (newcomer-and-mission #13).
func TestStandingTextCountsInWords(t *testing.T) {
	r := 0.0
	for _, s := range []Standing{
		{Rule: "consecutive", Failures: 1, Threshold: 3},
		{Rule: "excluded", Failures: 1},
		{Rule: "probes", Failures: 0, Threshold: 1},
		{Rule: "window", Failures: 1, Threshold: 3, Window: "10m"},
		{Rule: "of_last", Failures: 1, Threshold: 1, Calls: 1},
		{Rule: "failure_rate", Failures: 1, Calls: 1, Window: "10m", FailureRate: &r, FailureRateThreshold: 0.5, MinimumCalls: 1},
	} {
		text := s.Text()
		for _, bad := range []string{"1 failures", "1 calls", "1 successful probes"} {
			if strings.Contains(text, bad) {
				t.Errorf("%s: %q says %q", s.Rule, text, bad)
			}
		}
	}
}
