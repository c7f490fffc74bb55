package hookstate

import "guard/internal/store"

// Note queues events to be logged with the document's next write: Store
// appends them to the event log under the state lock, after the state file
// has been replaced.
func (d *Document) Note(events ...store.Event) {
	d.pending = append(d.pending, events...)
}

// Pending returns the events noted since the document was read.
func (d *Document) Pending() []store.Event { return d.pending }
