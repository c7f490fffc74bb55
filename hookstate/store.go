package hookstate

import (
	"time"

	"guard/statefile"
)

// A Store is a hook state file.
type Store struct {
	file      *statefile.File
	retention time.Duration
}

// Open returns the store at path. retention is how long a closed,
// failure-free key may sit idle before a write prunes it (0: forever).
func Open(path string, opts statefile.Options, retention time.Duration) (*Store, error) {
	f, err := statefile.Open(path, opts)
	if err != nil {
		return nil, err
	}
	return &Store{file: f, retention: retention}, nil
}

// Path returns the resolved path of the state file.
func (s *Store) Path() string { return s.file.Path() }

// File returns the underlying state file.
func (s *Store) File() *statefile.File { return s.file }

// Snapshot reads the current state without the lock. A missing file is an
// empty state; a file that does not parse gives an error matching
// statefile.ErrCorrupt.
func (s *Store) Snapshot() (*Document, error) {
	d := &Document{}
	_, err := statefile.Load(s.file, d)
	if err != nil {
		return nil, err
	}
	return d, nil
}

// Update runs fn on the current state under the lock, and if fn reports a
// change, tidies the document (see Document.tidy) and replaces the file.
func (s *Store) Update(now time.Time, fn func(d *Document) (changed bool, err error)) error {
	return statefile.Update(s.file, func(d *Document) (bool, error) {
		changed, err := fn(d)
		if err != nil || !changed {
			return false, err
		}
		d.tidy(now, s.retention)
		return true, nil
	})
}
