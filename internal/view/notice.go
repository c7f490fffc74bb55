package view

import (
	"fmt"
	"strings"
	"time"

	"guard/breaker"
	"guard/internal/circuit"
)

// SkipNotice is the one line that explains a skip, e.g.
//
//	guard: skipped "python3 lint.py": circuit open after 3 consecutive failures (last: exit 127: ...); next try in 4m12s; run 'guard reset "python3 lint.py"' to retry now
func SkipNotice(key string, why breaker.SkipReason, c breaker.Circuit, now time.Time) string {
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
			fmt.Fprintf(&b, "; next try in %s", Until(c.RetryAfter, now))
		}
	case breaker.SkipProbing:
		b.WriteString("circuit half-open and a probe is running")
		if len(c.Leases) > 0 {
			l := c.Leases[0]
			fmt.Fprintf(&b, " (pid %d, for %s)", l.PID, now.Sub(l.Acquired).Round(time.Second))
		}
		if last := LastError(c.LastError, 100); last != "" {
			fmt.Fprintf(&b, " (last: %s)", last)
		}
	default:
		reason := c.OpenReason
		if reason == "" {
			reason = fmt.Sprintf("%d consecutive failures", c.ConsecutiveFailures)
		}
		fmt.Fprintf(&b, "circuit open after %s", reason)
		if last := LastError(c.LastError, 100); last != "" {
			fmt.Fprintf(&b, " (last: %s)", last)
		}
		fmt.Fprintf(&b, "; next try in %s", Until(c.RetryAfter, now))
	}
	fmt.Fprintf(&b, "; run 'guard reset %s' to retry now", circuit.KeyArg(key))
	return b.String()
}
