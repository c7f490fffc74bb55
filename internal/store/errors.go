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

// Corrupt wraps err, found while decoding a stored document or a part of
// it (one key's entry, say), so that it matches ErrCorrupt. A document
// type returns it from inside an update, and the backend then sets the
// state aside and starts afresh, as if the whole of it had not parsed.
func Corrupt(err error) error { return &corruptError{err} }

type corruptError struct{ err error }

func (e *corruptError) Error() string        { return "state does not parse: " + e.err.Error() }
func (e *corruptError) Unwrap() error        { return e.err }
func (e *corruptError) Is(target error) bool { return target == ErrCorrupt }

// A SalvagedError is the cause of a quarantine (Options.Quarantined)
// after which the backend went on with what it could read of the state it
// moved aside, instead of an empty one: Err is why the state did not
// parse.
type SalvagedError struct {
	Err     error
	Kept    int      // keys kept
	Partial []string // the keys kept only in part
	Lost    []string // the keys seen and lost
	Cut     bool     // the state ended early: the keys after its end are lost too
}

func (e *SalvagedError) Error() string { return e.Err.Error() }
func (e *SalvagedError) Unwrap() error { return e.Err }
