package store

import "guard/statefile"

// Errors a backend's methods return, for callers to branch on with
// errors.Is. (They are the JSON file's own sentinels, which the other
// backends wrap.)
var (
	// ErrBusy is a state that stayed locked for the lock timeout.
	ErrBusy = statefile.ErrLockTimeout
	// ErrCorrupt is a state that does not parse; the next update sets it
	// aside and starts afresh.
	ErrCorrupt = statefile.ErrCorrupt
)
