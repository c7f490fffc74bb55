package supervise

import (
	"testing"
	"time"
)

func TestHookMargin(t *testing.T) {
	tests := []struct{ hook, want time.Duration }{
		{600 * time.Second, 5 * time.Second},
		{60 * time.Second, 5 * time.Second},
		{30 * time.Second, 3400 * time.Millisecond},
		{10 * time.Second, 1400 * time.Millisecond},
		{3 * time.Second, 700 * time.Millisecond},
		{1500 * time.Millisecond, 550 * time.Millisecond},
		{500 * time.Millisecond, 250 * time.Millisecond}, // half of it
	}
	for _, tc := range tests {
		if got := HookMargin(tc.hook); got != tc.want {
			t.Errorf("HookMargin(%v) = %v; want %v", tc.hook, got, tc.want)
		}
	}
}

func TestHookBudget(t *testing.T) {
	s := time.Second
	ms := time.Millisecond
	tests := []struct {
		name                     string
		hook, timeout, killGrace time.Duration
		want                     Budget
	}{
		{"no hook timeout", 0, 30 * s, 5 * s, Budget{Timeout: 30 * s, KillGrace: 5 * s}},
		{"no timeout at all", 0, 0, 5 * s, Budget{KillGrace: 5 * s}},
		{"Claude Code's default", 600 * s, 0, 5 * s, Budget{Timeout: 595 * s, KillGrace: 2500 * ms, Hook: true}},
		{"UserPromptSubmit's", 30 * s, 0, 5 * s, Budget{Timeout: 26600 * ms, KillGrace: 1700 * ms, Hook: true}},
		{"a 3s hook", 3 * s, 0, 5 * s, Budget{Timeout: 2300 * ms, KillGrace: 350 * ms, Hook: true}},
		{"SessionEnd's", 1500 * ms, 0, 5 * s, Budget{Timeout: 950 * ms, KillGrace: 275 * ms, Hook: true}},
		{"a short kill_grace", 600 * s, 0, s, Budget{Timeout: 595 * s, KillGrace: s, Hook: true}},
		{"a shorter timeout setting", 600 * s, 30 * s, 5 * s, Budget{Timeout: 30 * s, KillGrace: 5 * s}},
		{"a timeout setting just short: its grace is cut", 600 * s, 594 * s, 5 * s, Budget{Timeout: 594 * s, KillGrace: 3500 * ms}},
		{"a longer timeout setting", 30 * s, 60 * s, 5 * s, Budget{Timeout: 26600 * ms, KillGrace: 1700 * ms, Hook: true}},
	}
	for _, tc := range tests {
		got := HookBudget(tc.hook, tc.timeout, tc.killGrace)
		if got != tc.want {
			t.Errorf("%s: HookBudget(%v, %v, %v) = %+v; want %+v", tc.name, tc.hook, tc.timeout, tc.killGrace, got, tc.want)
		}
		// SIGKILL comes at least a quarter of the margin before the
		// caller's timeout, for guard to record the outcome and exit.
		if tc.hook > 0 && got.Timeout+got.KillGrace > tc.hook-HookMargin(tc.hook)/2 {
			t.Errorf("%s: SIGKILL at %v, past %v", tc.name, got.Timeout+got.KillGrace, tc.hook-HookMargin(tc.hook)/2)
		}
	}
}
