package view

import (
	"fmt"
	"strings"
	"time"

	"guard/breaker"
	"guard/config"
	"guard/internal/circuit"
	"guard/internal/store"
)

// SkipNotice is the one line that explains a skip, e.g.
//
//	guard: skipped python3 lint.py: circuit open after 3 consecutive failures (last: exit 127: ...); next try in 4m12s; to retry now: guard reset 'python3 lint.py'
//
// Every part of it is escaped (see Printable): the key, the reason a
// circuit was tripped, the last error, and the reset command, which is
// written so that it can be pasted as it is (see circuit.KeyArg). So the
// line holds no control or format character, neither as it is written to
// stderr nor once a systemMessage that carries it is decoded.
func SkipNotice(key string, why breaker.SkipReason, c breaker.Circuit, now time.Time) string {
	var b strings.Builder
	fmt.Fprintf(&b, "guard: skipped %s: ", circuit.KeyWord(key))
	switch why {
	case breaker.SkipForced:
		b.WriteString("circuit tripped by hand")
		if c.OpenReason != "" && c.OpenReason != "tripped by hand" {
			fmt.Fprintf(&b, " (%s)", Printable(c.OpenReason))
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
			fmt.Fprintf(&b, " (last: %s)", Printable(last))
		}
	default:
		reason := c.OpenReason
		if reason == "" {
			reason = fmt.Sprintf("%d consecutive failures", c.ConsecutiveFailures)
		}
		fmt.Fprintf(&b, "circuit open after %s", Printable(reason))
		if last := LastError(c.LastError, 100); last != "" {
			fmt.Fprintf(&b, " (last: %s)", Printable(last))
		}
		fmt.Fprintf(&b, "; next try in %s", Until(c.RetryAfter, now))
	}
	fmt.Fprintf(&b, "; to retry now: %s", ResetCommand(key))
	return b.String()
}

// IntervalNotice is the one line that explains a call skipped under
// min_interval: the last call guard let run started at last. It counts in
// seconds, or in milliseconds for an interval that is not whole seconds
// (500ms: "it ran 120ms ago ... next run in 380ms", not "0s ago ... in
// 1s"); the wait is rounded up, so the next run is never sooner than it
// says.
func IntervalNotice(key string, last time.Time, interval time.Duration, now time.Time) string {
	ago, next := max(now.Sub(last), 0).Round(time.Second).String(), Until(last.Add(interval), now)
	if interval%time.Second != 0 {
		ago = max(now.Sub(last), 0).Round(time.Millisecond).String()
		next = ceilDuration(max(last.Add(interval).Sub(now), 0), time.Millisecond).String()
	}
	return fmt.Sprintf("guard: skipped %s: it ran %s ago, and runs at most once per %s (min_interval); next run in %s",
		circuit.KeyWord(key), ago, config.FormatDuration(interval), next)
}

// ceilDuration rounds d up to a multiple of unit.
func ceilDuration(d, unit time.Duration) time.Duration {
	if r := d.Truncate(unit); r != d {
		return r + unit
	}
	return d
}

// RejectedNotice is the one line that explains a call not run because
// every concurrency slot of its key was taken: why says so.
func RejectedNotice(key, why string) string {
	return fmt.Sprintf("guard: skipped %s: %s; 'guard status' shows them", circuit.KeyWord(key), Printable(why))
}

// ResetCommand is the command that resets key, to be pasted as it is:
// guard reset 'python3 lint.py'.
func ResetCommand(key string) string { return "guard reset " + circuit.KeyArg(key) }

// EnableCommand is the command that guards a disabled key again, as a
// person pastes it.
func EnableCommand(key string) string { return "guard enable " + circuit.KeyArg(key) }

// AsideWarning says that a key's entry does not check out, is left out of
// what is shown, and what sets it aside: the next update of that key (a
// run of it, or its reset), not another key's run (faults #8).
func AsideWarning(a store.Aside) string {
	return fmt.Sprintf("the state of %q is malformed (%s) and is left out; the next run of %q sets it aside, or %s now",
		a.Key, ErrorLine(a.Err), a.Key, ResetCommand(a.Key))
}
