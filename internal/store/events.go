package store

import (
	"time"
)

// Events is the event log: one line per run outcome, skip, transition and
// decision, appended by the transactions that made them.
type Events interface {
	// Read returns the events keep accepts, in time order.
	Read(keep func(*Event) bool) (ReadResult, error)
}

// An Appender is an Events that takes an event outside an update of the
// state: guard logs through it a decision it took without the state, such
// as a skip under failure_mode: closed when the state could not be read or
// locked. Appending may fail for the same reason the state did.
type Appender interface {
	Append(events ...Event) error
}

// A Checkpoint takes and restores the whole state, in the JSON file's
// format.
type Checkpoint interface {
	// Export returns the state, read consistently; an empty state if there
	// is none.
	Export() ([]byte, error)
	// Check reports whether data is a state Import can take.
	Check(data []byte) error
	// Import replaces the state with data, which Check accepted, after
	// keeping the state it replaces (kept says where; "" if there was
	// none), and logs an import event naming from. If the old state cannot
	// be kept, nothing changes.
	Import(data []byte, now time.Time, from string) (kept string, err error)
}

// A Follower is an Events that can be read again and again, each read after
// the first costing only what was appended since ('guard status --watch'
// redraws every second). Follow keeps the events keep accepts.
type Follower interface {
	Follow(keep func(*Event) bool) Events
}

// A Tailer is an Events whose new events can be read as they come: the
// dashboard of 'guard serve' redraws as they are appended, at a cost that
// does not grow with the log's age.
type Tailer interface {
	// Tail returns a Tail of the events keep accepts (nil: all).
	Tail(keep func(*Event) bool) Tail
}

// A Tail reads a log as it grows, handing each event over as it reads it:
// it keeps none, so that reading 100,000 events costs no slice of them. It
// is not safe for concurrent use.
type Tail interface {
	// Next calls fn with each event appended since the last Next (the
	// first: every event the log holds), in the order read, which is time
	// order only within one log file. It reads only what is new. fn must
	// not keep ev.
	Next(fn func(ev *Event)) error
}
