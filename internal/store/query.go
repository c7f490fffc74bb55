package store

import (
	"slices"
	"time"
)

// A Query picks events from a log. Its fields narrow it down together; a
// field at its zero value does not narrow it. A database answers the fields
// it can index (Keys, Events, Since, Until) on the server and stops reading
// once it has Limit events past Offset; a file is filtered as it is read.
type Query struct {
	Keys   []string  // only the events of these keys, exactly
	Events []string  // only the events of these names, exactly
	Since  time.Time // only events at or after Since
	Until  time.Time // only events before Until
	// Keep, if not nil, filters further what the fields above let through
	// (a glob, say), on the client.
	Keep func(*Event) bool
	// Limit keeps the Limit most recent events that pass (0: all), after
	// the Offset most recent have been skipped.
	Limit, Offset int
}

// Match reports whether q keeps e, its Limit and Offset aside.
func (q *Query) Match(e *Event) bool {
	if len(q.Keys) > 0 && !slices.Contains(q.Keys, e.Key) {
		return false
	}
	if len(q.Events) > 0 && !slices.Contains(q.Events, e.Event) {
		return false
	}
	if !q.Since.IsZero() && e.Time.Before(q.Since) {
		return false
	}
	if !q.Until.IsZero() && !e.Time.Before(q.Until) {
		return false
	}
	return q.Keep == nil || q.Keep(e)
}

// Cut applies q's Offset and Limit to events in time order.
func (q *Query) Cut(events []Event) []Event {
	events = events[:max(len(events)-q.Offset, 0)]
	if q.Limit > 0 && len(events) > q.Limit {
		events = events[len(events)-q.Limit:]
	}
	return events
}

// A Querier is an Events that answers a Query itself, where it can do
// better than reading every event (a database, on the server).
type Querier interface {
	Query(q Query) (ReadResult, error)
}

// Select returns the events of log that q picks, in time order: through
// Query where log is a Querier, else filtered as Read reads them.
func Select(log Events, q Query) (ReadResult, error) {
	if qr, ok := log.(Querier); ok {
		return qr.Query(q)
	}
	res, err := log.Read(q.Match)
	res.Events = q.Cut(res.Events)
	return res, err
}
