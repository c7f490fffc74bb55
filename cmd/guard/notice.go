package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"guard/breaker"
	"guard/config"
	"guard/runproto"
	"guard/supervise"
)

// skipped tells the user, with msg, that key was not run, and exits as a
// skip does.
//
// The notice goes to stderr, or, under Claude Code (notice: auto with
// CLAUDE_PROJECT_DIR set, or notice: system-message), to stdout as
// {"systemMessage": ...}, which Claude shows to the user. That is only
// possible with exit status 0, because Claude reads a hook's JSON only then.
func (e *env) skipped(cfg *config.Config, b config.Breaker, key string, msg string) error {
	mode := cfg.Notice
	if mode == "auto" {
		mode = "stderr"
		if e.getenv("CLAUDE_PROJECT_DIR") != "" {
			mode = "system-message"
		}
	}
	switch {
	case mode == "system-message" && b.OpenExitCode == 0:
		out, _ := json.Marshal(map[string]string{"systemMessage": msg})
		fmt.Fprintf(e.stdout, "%s\n", out)
	case mode != "none":
		fmt.Fprintln(e.stderr, printable(msg))
	}
	return exit(b.OpenExitCode)
}

// skipNotice is the one line that explains a skip, e.g.
//
//	guard: skipped "python3 lint.py": circuit open after 3 consecutive failures (last: exit 127: ...); next try in 4m12s; run 'guard reset "python3 lint.py"' to retry now
func skipNotice(key string, why breaker.SkipReason, c breaker.Circuit, now time.Time) string {
	var b strings.Builder
	fmt.Fprintf(&b, "guard: skipped %q: ", key)
	switch why {
	case breaker.SkipForced:
		b.WriteString("circuit tripped by hand")
		if c.OpenReason != "" && c.OpenReason != "tripped by hand" {
			fmt.Fprintf(&b, " (%s)", c.OpenReason)
		}
		if c.RetryAfter.IsZero() {
			b.WriteString("; it stays open until reset")
		} else {
			fmt.Fprintf(&b, "; next try in %s", until(c.RetryAfter, now))
		}
	case breaker.SkipProbing:
		b.WriteString("circuit half-open and a probe is running")
		if len(c.Leases) > 0 {
			l := c.Leases[0]
			fmt.Fprintf(&b, " (pid %d, for %s)", l.PID, now.Sub(l.Acquired).Round(time.Second))
		}
		if last := lastError(c.LastError, 100); last != "" {
			fmt.Fprintf(&b, " (last: %s)", last)
		}
	default:
		reason := c.OpenReason
		if reason == "" {
			reason = fmt.Sprintf("%d consecutive failures", c.ConsecutiveFailures)
		}
		fmt.Fprintf(&b, "circuit open after %s", reason)
		if last := lastError(c.LastError, 100); last != "" {
			fmt.Fprintf(&b, " (last: %s)", last)
		}
		fmt.Fprintf(&b, "; next try in %s", until(c.RetryAfter, now))
	}
	fmt.Fprintf(&b, "; run 'guard reset %s' to retry now", runproto.KeyArg(key))
	return b.String()
}

// lastError shortens a recorded error to its status and last line.
func lastError(msg string, max int) string {
	if msg == "" {
		return ""
	}
	head, rest, found := strings.Cut(msg, ": ")
	line := supervise.LastLine(msg)
	if found && strings.Contains(rest, "\n") {
		line = head + ": " + supervise.LastLine(rest)
	}
	return truncate(line, max)
}

// truncate shortens s to at most max bytes, ending in "..." if it was cut,
// without splitting a character.
func truncate(s string, max int) string {
	if len(s) <= max {
		return s
	}
	cut := max - 3
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "..."
}

// until says how long until t, to the second.
func until(t, now time.Time) string {
	d := t.Sub(now)
	switch {
	case d <= 0:
		return "0s"
	case d < time.Second:
		return "1s"
	}
	return d.Truncate(time.Second).String()
}
