package view

import (
	"testing"
	"time"

	"guard/breaker"
)

func TestSkipNotice(t *testing.T) {
	now := time.Date(2026, 2, 10, 23, 36, 30, 0, time.UTC)
	open := breaker.Circuit{
		State: breaker.Open, ConsecutiveFailures: 3, OpenReason: "3 consecutive failures",
		LastError:  "exit 127: python3: can't open file 'lint.py'",
		RetryAfter: now.Add(4*time.Minute + 12*time.Second),
	}
	tests := []struct {
		name string
		key  string
		why  breaker.SkipReason
		c    breaker.Circuit
		want string
	}{
		{"open", "python3 lint.py", breaker.SkipOpen, open,
			`guard: skipped "python3 lint.py": circuit open after 3 consecutive failures (last: exit 127: python3: can't open file 'lint.py'); next try in 4m12s; run 'guard reset "python3 lint.py"' to retry now`},
		{"quoting", `echo "$HOME"`, breaker.SkipOpen, breaker.Circuit{State: breaker.Open, OpenReason: "a failed probe", RetryAfter: now.Add(time.Hour)},
			`guard: skipped "echo \"$HOME\"": circuit open after a failed probe; next try in 1h0m0s; run 'guard reset 'echo "$HOME"'' to retry now`},
		{"forced", "deploy", breaker.SkipForced, breaker.Circuit{State: breaker.Open, Forced: true, OpenReason: "freeze"},
			`guard: skipped "deploy": circuit tripped by hand (freeze); it stays open until reset; run 'guard reset "deploy"' to retry now`},
		{"forced for a while", "deploy", breaker.SkipForced, breaker.Circuit{State: breaker.Open, Forced: true, OpenReason: "tripped by hand", RetryAfter: now.Add(90 * time.Second)},
			`guard: skipped "deploy": circuit tripped by hand; next try in 1m30s; run 'guard reset "deploy"' to retry now`},
		{"probing", "k", breaker.SkipProbing, breaker.Circuit{State: breaker.HalfOpen, Leases: []breaker.Lease{{PID: 42, Acquired: now.Add(-12 * time.Second)}}},
			`guard: skipped "k": circuit half-open and a probe is running (pid 42, for 12s); run 'guard reset "k"' to retry now`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := SkipNotice(tc.key, tc.why, tc.c, now); got != tc.want {
				t.Errorf("skipNotice =\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
}

func TestLastError(t *testing.T) {
	tests := []struct {
		in   string
		max  int
		want string
	}{
		{"", 50, ""},
		{"exit 1", 50, "exit 1"},
		{"exit 1: Traceback (most recent call last):\n  File x\nModuleNotFoundError: No module named 'black'", 100, "exit 1: ModuleNotFoundError: No module named 'black'"},
		{"exit 1: abcdefghijklmnopqrstuvwxyz", 20, "exit 1: abcdefghi..."},
		{"exit 1: ééééééééé", 14, "exit 1: é..."},
	}
	for _, tc := range tests {
		if got := LastError(tc.in, tc.max); got != tc.want {
			t.Errorf("LastError(%q, %d) = %q; want %q", tc.in, tc.max, got, tc.want)
		}
	}
}

func TestUntil(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for d, want := range map[time.Duration]string{
		-time.Second:                         "0s",
		300 * time.Millisecond:               "1s",
		4*time.Minute + 12*time.Second + 999: "4m12s",
	} {
		if got := Until(now.Add(d), now); got != want {
			t.Errorf("Until(+%s) = %q; want %q", d, got, want)
		}
	}
}
