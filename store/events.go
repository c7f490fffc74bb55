package store

import "guard/eventlog"

// Events is the event log: one line per run outcome, skip, transition and
// decision, appended by the transactions that made them.
type Events interface {
	// Read returns the events keep accepts, in time order.
	Read(keep func(*eventlog.Event) bool) (eventlog.ReadResult, error)
}

// A Checkpoint takes and restores the whole state, in the JSON file's
// format.
type Checkpoint interface {
	// Export returns the state, read consistently.
	Export() ([]byte, error)
	// Import replaces the state with data, which the caller has checked,
	// after handing the state it replaces to keep (nil if there was none);
	// if keep fails, nothing changes.
	Import(data []byte, keep func(old []byte) error) error
}
