package view

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"guard/eventlog"
	"guard/internal/jsonx"
)

// WriteEvents prints events as aligned text, one per line.
func WriteEvents(w io.Writer, evs []eventlog.Event) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, ev := range evs {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", ev.Time.UTC().Format(jsonx.TimeLayout), ev.Event, Printable(ev.Key), Printable(DescribeEvent(&ev)))
	}
	tw.Flush()
}

// DescribeEvent says what an event means, in a few words.
func DescribeEvent(ev *eventlog.Event) string {
	var b strings.Builder
	add := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	switch ev.Event {
	case eventlog.Run:
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
	case eventlog.Skip:
		if ev.Outcome == eventlog.Observed {
			add("would have skipped (observe mode): circuit %s", ev.Reason)
		} else {
			add("skipped: circuit %s", ev.Reason)
		}
		if ev.Until != "" {
			add(" until %s", ev.Until)
		}
	case eventlog.Transition, eventlog.Reset, eventlog.Trip, eventlog.Probe:
		add("%s -> %s", ev.From, ev.To)
		if ev.Reason != "" {
			add(": %s", ev.Reason)
		}
		if ev.Until != "" {
			add(" (until %s)", ev.Until)
		}
	case eventlog.Reaped:
		add("probe lease of pid %d reaped: %s", ev.PID, ev.Reason)
	case eventlog.Rejected:
		add("rejected: %s", ev.Reason)
	case eventlog.Quarantine:
		add("state file moved to %s: %s", ev.File, ev.Error)
	case eventlog.Import:
		add("state imported from %s", ev.File)
		if ev.Reason != "" {
			add(" (%s)", strings.TrimPrefix(ev.Reason, "backup: "))
		}
	case eventlog.Cooldown:
		add("%s %s", ev.Action, ev.Outcome)
		if ev.Used != nil && ev.Limit != nil {
			add(" (%d of %d used)", *ev.Used, *ev.Limit)
		}
		if ev.Until != "" {
			add("; next allowed at %s", ev.Until)
		}
	case eventlog.CooldownRecord:
		add("%s recorded: %s", ev.Action, ev.Outcome)
		if ev.Error != "" {
			add(": %s", LastError(ev.Error, 120))
		}
		if ev.Used != nil && ev.Limit != nil {
			add(" (%d of %d used)", *ev.Used, *ev.Limit)
		}
	case eventlog.CooldownHealth:
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
