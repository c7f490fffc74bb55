package store

import "errors"

// Errors a backend's methods return, for callers to branch on with
// errors.Is. Each backend wraps its own causes so that they match these.
var (
	// ErrBusy is a state that stayed locked for the lock timeout.
	ErrBusy = errors.New("state busy: lock not obtained in time")
	// ErrCorrupt is a state that does not parse; the next update sets it
	// aside and starts afresh.
	ErrCorrupt = errors.New("state does not parse")
	// ErrDenied is a state that can be reached but not used: its backend
	// says what to grant.
	ErrDenied = errors.New("permission denied")
)
