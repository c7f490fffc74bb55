package cooldownstate

import (
	"time"

	"guard/statefile"
)

// A Store is a cooldown state file.
type Store struct {
	file      *statefile.File
	retention time.Duration
	actions   []Action
}

// Open returns the store at path. Records older than retention are pruned
// on every write; retention is raised to the longest action window, so
// that pruning never drops a record a budget still counts.
func Open(path string, opts statefile.Options, retention time.Duration, actions []Action) (*Store, error) {
	f, err := statefile.Open(path, opts)
	if err != nil {
		return nil, err
	}
	for _, a := range actions {
		retention = max(retention, a.Window)
	}
	return &Store{file: f, retention: retention, actions: actions}, nil
}

// Path returns the resolved path of the state file.
func (s *Store) Path() string { return s.file.Path() }

// Snapshot reads the current state without the lock. A missing file is an
// empty state.
func (s *Store) Snapshot() (*Document, error) {
	d := &Document{}
	if _, err := statefile.Load(s.file, d); err != nil {
		return nil, err
	}
	return d, nil
}

// Update runs fn on the current state under the lock and, if it reports a
// change, prunes old records and replaces the file.
func (s *Store) Update(now time.Time, fn func(d *Document) (changed bool, err error)) error {
	return statefile.Update(s.file, func(d *Document) (bool, error) {
		changed, err := fn(d)
		if err != nil || !changed {
			return false, err
		}
		return true, d.tidy(now, s.retention, s.actions)
	})
}
