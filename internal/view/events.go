package view

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

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
	case store.EventRun:
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
	case store.EventSkip:
		if ev.Outcome == store.OutcomeObserved {
			add("would have skipped (observe mode): circuit %s", ev.Reason)
		} else {
			add("skipped: circuit %s", ev.Reason)
		}
		if ev.Until != "" {
			add(" until %s", ev.Until)
		}
	case store.EventTransition, store.EventReset, store.EventTrip, store.EventProbe:
		add("%s -> %s", ev.From, ev.To)
		if ev.Reason != "" {
			add(": %s", ev.Reason)
		}
		if ev.Until != "" {
			add(" (until %s)", ev.Until)
		}
	case store.EventReaped:
		add("probe lease of pid %d reaped: %s", ev.PID, ev.Reason)
	case store.EventRejected:
		add("rejected: %s", ev.Reason)
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
