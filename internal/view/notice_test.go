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
			`guard: skipped 'python3 lint.py': circuit open after 3 consecutive failures (last: exit 127: python3: can't open file 'lint.py'); next try in 4m12s; to retry now: guard reset 'python3 lint.py'`},
		{"quoting", `echo "$HOME"`, breaker.SkipOpen, breaker.Circuit{State: breaker.Open, OpenReason: "a failed probe", RetryAfter: now.Add(time.Hour)},
			`guard: skipped 'echo "$HOME"': circuit open after a failed probe; next try in 1h0m0s; to retry now: guard reset 'echo "$HOME"'`},
		{"forced", "deploy", breaker.SkipForced, breaker.Circuit{State: breaker.Open, Forced: true, OpenReason: "freeze"},
			`guard: skipped deploy: circuit tripped by hand (freeze); it stays open until reset; to retry now: guard reset deploy`},
		{"forced for a while", "deploy", breaker.SkipForced, breaker.Circuit{State: breaker.Open, Forced: true, OpenReason: "tripped by hand", RetryAfter: now.Add(90 * time.Second)},
			`guard: skipped deploy: circuit tripped by hand; next try in 1m30s; to retry now: guard reset deploy`},
		{"probing", "k", breaker.SkipProbing, breaker.Circuit{State: breaker.HalfOpen, Leases: []breaker.Lease{{PID: 42, Acquired: now.Add(-12 * time.Second)}}},
			`guard: skipped k: circuit half-open and a probe is running (pid 42, for 12s); to retry now: guard reset k`},
		{"project", "$CLAUDE_PROJECT_DIR/h.sh @ /p/a", breaker.SkipForced, breaker.Circuit{State: breaker.Open, Forced: true},
			`guard: skipped '$CLAUDE_PROJECT_DIR/h.sh @ /p/a': circuit tripped by hand; it stays open until reset; to retry now: guard reset '$CLAUDE_PROJECT_DIR/h.sh @ /p/a'`},
		{"a key like a flag", "-x", breaker.SkipForced, breaker.Circuit{State: breaker.Open, Forced: true},
			`guard: skipped -x: circuit tripped by hand; it stays open until reset; to retry now: guard reset -- -x`},
		// Everything that comes from outside is escaped: the key (in the
		// hint too, which stays one layer of quoting), the reason it was
		// tripped, the last error.
		{"control characters", "evil\x1b[31mRED\nx\a", breaker.SkipOpen, breaker.Circuit{State: breaker.Open, OpenReason: "x\x1b[2J", LastError: "exit 1: \x1b]0;title\x07boom\u202e", RetryAfter: now},
			`guard: skipped $'evil\x1b[31mRED\nx\x07': circuit open after x\x1b[2J (last: exit 1: \x1b]0;title\aboom\u202e); next try in 0s; to retry now: guard reset $'evil\x1b[31mRED\nx\x07'`},
		{"trip reason", "k", breaker.SkipForced, breaker.Circuit{State: breaker.Open, Forced: true, OpenReason: "freeze\u2066\r\n"},
			`guard: skipped k: circuit tripped by hand (freeze\u2066\r\n); it stays open until reset; to retry now: guard reset k`},
		{"bidi key", "ls \u202efdp.exe", breaker.SkipForced, breaker.Circuit{State: breaker.Open, Forced: true},
			`guard: skipped $'ls \xe2\x80\xaefdp.exe': circuit tripped by hand; it stays open until reset; to retry now: guard reset $'ls \xe2\x80\xaefdp.exe'`},
		{"not UTF-8", `a\xceb`, breaker.SkipForced, breaker.Circuit{State: breaker.Open, Forced: true},
			`guard: skipped $'a\xceb': circuit tripped by hand; it stays open until reset; to retry now: guard reset $'a\xceb'`},
		{"backslash x as text", `a\\xceb`, breaker.SkipForced, breaker.Circuit{State: breaker.Open, Forced: true},
			`guard: skipped 'a\xceb': circuit tripped by hand; it stays open until reset; to retry now: guard reset 'a\xceb'`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := SkipNotice(tc.key, tc.why, tc.c, now)
			if got != tc.want {
				t.Errorf("SkipNotice =\n%s\nwant\n%s", got, tc.want)
			}
			if Printable(got) != got {
				t.Errorf("SkipNotice = %q holds what a terminal would act on", got)
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
		// A long line loses its middle, never its end, what went wrong
		// (newcomer-and-mission #9); its status stays whole.
		{"exit 1: abcdefghijklmnopqrstuvwxyz", 20, "exit 1: abcd...vwxyz"},
		{"exit 1: ééééééééé", 14, "exit 1: é..."},
		{"exit 127: /usr/bin/bash: line 1: /home/dev/src/webapp/.claude/hooks/lint.sh: No such file or directory", 80,
			"exit 127: /usr/bin/bash: line 1: /home/dev/...lint.sh: No such file or directory"},
		{"exit 1: abcdefghijklmnopqrstuvwxyz", 0, "exit 1: abcdefghijklmnopqrstuvwxyz"},
		// The line that says what failed is kept, with its cause (uv, as
		// migrated from the Python wrapper, and as guard records it).
		{"error: Failed to spawn: `validate.py`\n  Caused by: No such file or directory (os error 2)", 200,
			"error: Failed to spawn: `validate.py`; caused by: No such file or directory (os error 2)"},
		{"exit 2: error: Failed to spawn: `check.py`\n  Caused by: No such file or directory (os error 2)\n", 200,
			"exit 2: error: Failed to spawn: `check.py`; caused by: No such file or directory (os error 2)"},
		{"exit 1: Error: Cannot find module '/p/hook.js'\n    at Module._resolveFilename\n  code: 'MODULE_NOT_FOUND',\n  requireStack: []", 200,
			"exit 1: Error: Cannot find module '/p/hook.js'"},
		{"killed by SIGTERM: a\nb", 50, "killed by SIGTERM: b"},
		{"Failed to spawn: No such file or directory", 50, "Failed to spawn: No such file or directory"},
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

// TestIntervalNotice: a call skipped under min_interval is told how long
// ago the last one ran and when the next may, in seconds for an interval
// of whole seconds and in milliseconds for a shorter or finer one (TE item
// 4: min_interval: 500ms said "it ran 0s ago ... next run in 1s"); the
// wait is never said to be shorter than it is.
func TestIntervalNotice(t *testing.T) {
	last := time.Date(2026, 2, 10, 23, 36, 30, 0, time.UTC)
	for i, st := range []struct {
		interval, since time.Duration
		want            string
	}{
		{time.Minute, 3 * time.Second, "it ran 3s ago, and runs at most once per 1m (min_interval); next run in 57s"},
		{time.Minute, 3400 * time.Millisecond, "it ran 3s ago, and runs at most once per 1m (min_interval); next run in 56s"},
		{500 * time.Millisecond, 120 * time.Millisecond, "it ran 120ms ago, and runs at most once per 500ms (min_interval); next run in 380ms"},
		{500 * time.Millisecond, 0, "it ran 0s ago, and runs at most once per 500ms (min_interval); next run in 500ms"},
		{500 * time.Millisecond, 119*time.Millisecond + 400*time.Microsecond, "it ran 119ms ago, and runs at most once per 500ms (min_interval); next run in 381ms"},
		{1500 * time.Millisecond, 1200 * time.Millisecond, "it ran 1.2s ago, and runs at most once per 1.5s (min_interval); next run in 300ms"},
		// A last start a little ahead (stored rounded up): no negative
		// time, and the wait rounded up.
		{500 * time.Millisecond, -400 * time.Microsecond, "it ran 0s ago, and runs at most once per 500ms (min_interval); next run in 501ms"},
	} {
		got := IntervalNotice("tick", last, st.interval, last.Add(st.since))
		if want := "guard: skipped tick: " + st.want; got != want {
			t.Errorf("step %d: IntervalNotice(%s after, %s) =\n%s\nwant\n%s", i+1, st.since, st.interval, got, want)
		}
	}
}
