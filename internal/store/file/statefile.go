// The plumbing both state files share: a locked, atomically replaced state
// file (package statefile), the event log its changes go to, the event of
// a file set aside because it did not parse, and checkpoints (export and
// import) of the whole file.

package file

import (
	"errors"
	"time"

	"guard/internal/store"
	"guard/statefile"
)

// A stateFile is a state file and its event log. It is not safe for
// concurrent use (held is the update's own): one update at a time, as
// each guard process makes them.
type stateFile struct {
	file   *statefile.File
	log    *EventLog
	logErr func(error)

	// held are the events appendHeld could not append while the state's
	// lock was held (the log's lock was taken elsewhere): appendLater
	// appends them once it is let go.
	held []store.Event
}

// openStateFile returns the state file at path. Events go to the log
// logFor returns for the state's resolved path (so that a state reached
// through a symlink logs beside the real file, as its lock and slot files
// are), or nowhere if logFor is nil; a log logFor refuses (an error) fails
// the open, so that the hook runs unguarded with a warning; a failure to log goes to logErr,
// since it must not fail the update it describes. A file set aside because
// it did not parse is logged as a quarantine event, then reported to
// opts.OnQuarantine.
func openStateFile(path string, opts statefile.Options, logFor func(real string) (*EventLog, error), logErr func(error)) (*stateFile, error) {
	s := &stateFile{logErr: logErr}
	quarantined := opts.OnQuarantine
	opts.OnQuarantine = func(to string, cause error) {
		s.appendHeld(store.Event{Time: time.Now(), Event: store.EventQuarantine, File: to, Error: cause.Error()})
		if quarantined != nil {
			quarantined(to, cause)
		}
	}
	f, err := statefile.Open(path, opts)
	if err != nil {
		return nil, err
	}
	s.file = f
	if logFor != nil {
		if s.log, err = logFor(f.Path()); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// Append logs events, reporting a failure to logErr. It waits up to
// lock_timeout for the log's lock, so it is for a caller that does not
// hold the state's lock; one that does calls appendHeld.
func (s *stateFile) Append(events ...store.Event) {
	if s.log == nil || len(events) == 0 {
		return
	}
	if err := s.log.Append(events...); err != nil && s.logErr != nil {
		s.logErr(err)
	}
}

// appendHeld logs events while the state's lock is held: the log's lock
// is only tried, and if another process holds it, the events wait in
// s.held for appendLater, after the state's lock is let go, so that a
// stopped or stuck holder of the log's lock never holds up the state, and
// with it every other guard (their calls would run unguarded, their
// outcomes be lost). Events that came after one held wait behind it.
func (s *stateFile) appendHeld(events ...store.Event) {
	if s.log == nil || len(events) == 0 {
		return
	}
	if len(s.held) == 0 {
		err := s.log.appendWithin(0, events...)
		if !errors.Is(err, errLockBusy) {
			if err != nil && s.logErr != nil {
				s.logErr(err)
			}
			return
		}
	}
	s.held = append(s.held, events...)
}

// appendLater appends what appendHeld left, waiting up to lock_timeout
// for the log's lock (see Append): called once the state's lock is let
// go. Past that the events are left out, with a warning (logErr); the
// state they describe is written all the same.
func (s *stateFile) appendLater() {
	held := s.held
	s.held = nil
	s.Append(held...)
}

// File returns the state file.
func (s *stateFile) File() *statefile.File { return s.file }

// Path returns the resolved path of the state file.
func (s *stateFile) Path() string { return s.file.Path() }

// Log returns the event log, or nil.
func (s *stateFile) Log() *EventLog { return s.log }

// Export returns the state file's bytes, read under the lock, or nil if
// there is no state.
func (s *stateFile) Export() ([]byte, error) { return s.file.ReadLocked() }

// Import replaces the state file with data under the lock, after handing
// the file it replaces to keep (nil if there was none), and logs an import
// event naming from and what keep said it kept. If keep fails, nothing
// changes.
func (s *stateFile) Import(data []byte, now time.Time, from string, keep func(old []byte) (kept string, err error)) error {
	defer s.appendLater()
	return s.file.Swap(func(old []byte) ([]byte, error) {
		kept, err := keep(old)
		if err != nil {
			return nil, err
		}
		reason := "no earlier state"
		if kept != "" {
			reason = "earlier state backed up to " + kept
		}
		s.appendHeld(store.Event{Time: now, Event: store.EventImport, File: from, Reason: reason})
		return data, nil
	})
}
