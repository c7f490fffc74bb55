package hookstate

import (
	"time"

	"guard/breaker"
	"guard/eventlog"
	"guard/statefile"
)

// Note queues events to be logged with the document's next write: Store
// appends them to the event log under the state lock, after the state file
// has been replaced.
func (d *Document) Note(events ...eventlog.Event) {
	d.pending = append(d.pending, events...)
}

// noteBreaker queues the log lines of what key's circuit did.
func (d *Document) noteBreaker(key string, now time.Time, c *breaker.Circuit, evs []breaker.Event) {
	for _, ev := range evs {
		e := eventlog.Event{Time: now, Key: key, Reason: ev.Reason}
		switch ev.Kind {
		case breaker.Reaped:
			e.Event = "reaped"
			if ev.Lease != nil {
				e.PID = ev.Lease.PID
			}
		default:
			e.Event = "transition"
			e.From, e.To = string(ev.From), string(ev.To)
			if ev.To == breaker.Open && !c.RetryAfter.IsZero() {
				e.Until = statefile.TimeOf(ceilSecond(c.RetryAfter)).UTC().Format(statefile.TimeLayout)
			}
		}
		d.Note(e)
	}
}
