package cooldownstate

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"guard/eventlog"
	"guard/filestore"
	"guard/internal/store"
	"guard/statefile"
)

// A Store is a cooldown state file, and the event log its decisions go to.
type Store struct {
	*filestore.Store
	retention time.Duration
	actions   []Action
}

// Open returns the store at path. Records older than retention are pruned
// on every write; retention is raised to the longest action window, so
// that pruning never drops a record a budget still counts. Events go to
// log; see filestore.Open.
func Open(path string, opts statefile.Options, retention time.Duration, actions []Action, log *eventlog.Log, logErr func(error)) (*Store, error) {
	fs, err := filestore.Open(path, opts, log, logErr)
	if err != nil {
		return nil, err
	}
	for _, a := range actions {
		retention = max(retention, a.Window)
	}
	return &Store{Store: fs, retention: retention, actions: actions}, nil
}

// Snapshot reads the current state without the lock. A missing file is an
// empty state.
func (s *Store) Snapshot() (*Document, error) {
	d := &Document{}
	if _, err := statefile.Load(s.File(), d); err != nil {
		return nil, err
	}
	return d, nil
}

// Update runs fn on the current state under the lock and, if it reports a
// change, prunes old records and replaces the file. The events fn noted
// are then logged, still under the lock, changed or not.
func (s *Store) Update(now time.Time, fn func(d *Document) (changed bool, err error)) error {
	var pending []store.Event
	return statefile.UpdateThen(s.File(), func(d *Document) (bool, error) {
		changed, err := fn(d)
		pending = d.pending
		if err != nil || !changed {
			return false, err
		}
		return true, d.tidy(now, s.retention, s.actions)
	}, func() { s.Append(pending...) })
}

// Validate checks that data is a cooldown document guard can use with
// actions: a JSON object whose services' action arrays hold records.
func Validate(data []byte, actions []Action) error {
	if t := bytes.TrimSpace(data); len(t) == 0 || t[0] != '{' {
		return errors.New("not a JSON object")
	}
	var d Document
	if err := json.Unmarshal(data, &d); err != nil {
		return err
	}
	for _, name := range d.ServiceNames() {
		s := d.Services[name]
		if s == nil {
			return fmt.Errorf("services[%q] is null", name)
		}
		if s.ConsecutiveHealthy < 0 {
			return fmt.Errorf("services[%q].consecutive_healthy is negative", name)
		}
		for _, a := range actions {
			for _, field := range append([]string{a.Field}, aliases(a)...) {
				rs, err := s.records(field)
				if err != nil {
					return fmt.Errorf("services.%s.%v", name, err)
				}
				for i, r := range rs {
					if r.Unreadable() {
						return fmt.Errorf("services.%s.%s[%d] is not a record: %s", name, field, i, r.raw)
					}
				}
			}
		}
	}
	return nil
}

// Actions returns the actions the store was opened with.
func (s *Store) Actions() []Action { return s.actions }
