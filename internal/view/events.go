package view

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"guard/breaker"
	"guard/internal/jsonx"
	"guard/internal/store"
)

// WriteEvents prints events as aligned text, one per line.
func WriteEvents(w io.Writer, evs []store.Event) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, ev := range evs {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", ev.Time.UTC().Format(jsonx.TimeLayout), ev.Event, KeyText(ev.Key), Printable(DescribeEvent(&ev)))
	}
	tw.Flush()
}

// DescribeEvent says what an event means, in a few words.
func DescribeEvent(ev *store.Event) string {
	var b strings.Builder
	add := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	switch ev.Event {
	case store.EventRun, store.EventRetry:
		add("%s", ev.Outcome)
		var details []string
		if ev.Exit != nil {
			details = append(details, fmt.Sprintf("exit %d", *ev.Exit))
		}
		if ev.DurationMS != nil {
			details = append(details, (time.Duration(*ev.DurationMS) * time.Millisecond).String())
		}
		if ev.Probe {
			details = append(details, "probe")
		}
		if len(details) > 0 {
			add(" (%s)", strings.Join(details, ", "))
		}
		if ev.Error != "" {
			add(": %s", LastError(ev.Error, 120))
		}
		if ev.Reason != "" {
			add(" [%s]", ev.Reason)
		}
	case store.EventSkip:
		switch {
		case ev.Outcome == store.OutcomeObserved:
			add("would have skipped (observe mode): %s", skipWhy(ev.Reason))
		case ev.Verdict != "":
			add("skipped, %s: %s", actionVerdict(ev.Verdict), skipWhy(ev.Reason))
		default: // logged before verdicts were recorded
			add("skipped: %s", skipWhy(ev.Reason))
		}
		if ev.Error != "" {
			add(" (%s)", LastError(ev.Error, 120))
		}
		switch {
		case ev.Until == "":
		case ev.Reason == string(breaker.SkipProbing):
			add(" (its lease runs out at %s)", ev.Until)
		case ev.Reason == string(breaker.SkipInterval):
			add("; next run at %s", ev.Until)
		default:
			add(" until %s", ev.Until)
		}
	case store.EventTransition, store.EventReset, store.EventTrip, store.EventProbe, store.EventDisable, store.EventEnable:
		add("%s -> %s", StateWord(ev.From), StateWord(ev.To))
		if ev.Reason != "" {
			add(": %s", ev.Reason)
		}
		if ev.Until != "" {
			add(" (until %s)", ev.Until)
		}
		if ev.User != "" {
			add(" (by %s", ev.User)
			if ev.Host != "" {
				add("@%s", ev.Host)
			}
			if ev.PID != 0 {
				add(", pid %d", ev.PID)
			}
			add(")")
		}
	case store.EventFallback:
		add("fallback for a skip (%s): %s", skipWhy(ev.Reason), ev.Outcome)
		var details []string
		if ev.Exit != nil {
			details = append(details, fmt.Sprintf("exit %d", *ev.Exit))
		}
		if ev.DurationMS != nil {
			details = append(details, (time.Duration(*ev.DurationMS) * time.Millisecond).String())
		}
		if len(details) > 0 {
			add(" (%s)", strings.Join(details, ", "))
		}
		if ev.Error != "" {
			add(": %s", LastError(ev.Error, 120))
		}
		if ev.Verdict != "" {
			add(", %s", actionVerdict(ev.Verdict))
		}
	case store.EventNotify:
		add("on_state_change for %s -> %s: %s", StateWord(ev.From), StateWord(ev.To), ev.Outcome)
		if ev.DurationMS != nil {
			add(" (%s)", time.Duration(*ev.DurationMS)*time.Millisecond)
		}
		if ev.Error != "" {
			add(": %s", LastError(ev.Error, 120))
		}
	case store.EventReaped:
		add("probe lease of pid %d reaped: %s", ev.PID, ev.Reason)
	case store.EventRejected:
		if ev.Verdict != "" {
			add("rejected, %s: %s", actionVerdict(ev.Verdict), ev.Reason)
		} else {
			add("rejected: %s", ev.Reason)
		}
	case store.EventQuarantine:
		add("state file moved to %s: %s", ev.File, ev.Error)
	case store.EventImport:
		add("state imported from %s", ev.File)
		if ev.Reason != "" {
			add(" (%s)", strings.TrimPrefix(ev.Reason, "backup: "))
		}
	case store.EventCooldown:
		add("%s %s", ev.Action, ev.Outcome)
		if ev.Used != nil && ev.Limit != nil {
			add(" (%d of %d used)", *ev.Used, *ev.Limit)
		}
		if ev.Until != "" {
			add("; next allowed at %s", ev.Until)
		}
	case store.EventCooldownRecord:
		add("%s recorded: %s", ev.Action, ev.Outcome)
		if ev.Error != "" {
			add(": %s", LastError(ev.Error, 120))
		}
		if ev.Used != nil && ev.Limit != nil {
			add(" (%d of %d used)", *ev.Used, *ev.Limit)
		}
	case store.EventCooldownHealth:
		add("%s", ev.Outcome)
		if ev.Reason != "" {
			add(": %s", ev.Reason)
		}
	default:
		for _, s := range []string{ev.Outcome, ev.Reason, ev.Error} {
			if s != "" {
				add("%s ", s)
			}
		}
	}
	return strings.TrimSpace(b.String())
}

// actionVerdict says what became of the action of a call guard did not
// run: "action blocked", "action allowed".
func actionVerdict(v string) string { return "action " + v }

// skipWhy says why a call was skipped, from a skip event's reason.
func skipWhy(reason string) string {
	switch reason {
	case string(breaker.SkipOpen):
		return "circuit open"
	case string(breaker.SkipForced):
		return "circuit forced open"
	case string(breaker.SkipProbing):
		return "circuit half-open, a probe running elsewhere"
	case store.SkipFailureMode:
		return "guard could not decide, and failure_mode is closed"
	case string(breaker.SkipInterval):
		return "ran less than min_interval ago"
	case "max_concurrent":
		return "max_concurrent runs in flight"
	}
	return "circuit " + reason
}
