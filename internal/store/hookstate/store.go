package hookstate

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"time"

	"guard/breaker"
	"guard/eventlog"
	"guard/filestore"
	"guard/internal/jsonx"
	"guard/internal/store"
	"guard/statefile"
)

// A Store is a hook state file, and the event log its changes go to.
type Store struct {
	*filestore.Store
	retention time.Duration

	// OnSetAside, if set, hears of each entry an update set aside (see
	// Aside), once it is kept in the quarantine file.
	OnSetAside func(a Aside, quarantine string)
}

// QuarantinePath is where entries set aside are kept: one JSON line each,
// {"time", "key", "error", "entry"}, appended.
func (s *Store) QuarantinePath() string { return s.Path() + ".quarantine" }

// Open returns the store at path. retention is how long a closed,
// failure-free key may sit idle before a write prunes it (0: forever).
// Events go to log; see filestore.Open.
func Open(path string, opts statefile.Options, retention time.Duration, log *eventlog.Log, logErr func(error)) (*Store, error) {
	fs, err := filestore.Open(path, opts, log, logErr)
	if err != nil {
		return nil, err
	}
	return &Store{Store: fs, retention: retention}, nil
}

// Snapshot reads the current state without the lock. A missing file is an
// empty state; a file that does not parse gives an error matching
// statefile.ErrCorrupt.
func (s *Store) Snapshot() (*Document, error) {
	d := &Document{}
	_, err := statefile.Load(s.File(), d)
	if err != nil {
		return nil, err
	}
	return d, nil
}

// Peek returns key's circuit as the state file has it now, read without
// the lock and without decoding the other keys: it is quick, and it is
// advice, for deciding a call that changes nothing (a run on a closed
// circuit). A key with no entry has a closed circuit; an entry that does
// not decode gives an error.
func (s *Store) Peek(key string) (breaker.Circuit, error) {
	data, err := s.File().Read()
	if err != nil || data == nil {
		return breaker.Circuit{}, err
	}
	// Nothing of data outlives this call: the update that follows may read
	// into it.
	defer s.File().Recycle(data)
	return PeekData(data, key)
}

// PeekData returns key's circuit in data, a state document, without
// decoding the other keys; see Store.Peek.
func PeekData(data []byte, key string) (breaker.Circuit, error) {
	var raw []byte
	if src, _, _ := locate(data); src != nil {
		e, err := src.search(key)
		if err != nil {
			return breaker.Circuit{}, err
		}
		if e != nil {
			raw = e.raw
		}
	} else if r, ok := jsonx.Find(data, "hooks", key); ok && string(r) != "null" {
		raw = r
	}
	if raw == nil {
		return breaker.Circuit{}, nil
	}
	h := &Hook{}
	if err := h.UnmarshalJSON(raw); err != nil {
		return breaker.Circuit{}, statefile.Corrupt(err)
	}
	if err := h.Check(); err != nil {
		return breaker.Circuit{}, err // the update sets it aside
	}
	return h.Circuit(), nil
}

// Update runs fn on the current state under the lock, and if fn reports a
// change, tidies the document (see Document.tidy) and replaces the file.
// The events fn noted are then logged, still under the lock, whether or not
// anything changed, unless fn or the write failed.
func (s *Store) Update(now time.Time, fn func(d *Document) (changed bool, err error)) error {
	var pending []store.Event
	var aside []Aside
	err := statefile.UpdateThen(s.File(), func(d *Document) (bool, error) {
		changed, err := fn(d)
		pending = d.pending
		if err != nil {
			return false, err
		}
		if aside = d.Aside(); len(aside) > 0 {
			// Keep what is set aside before the file goes on without it.
			if err := s.keepAside(now, aside); err != nil {
				return false, err
			}
			for _, a := range aside {
				pending = append(pending, store.Event{Time: now, Event: store.EventQuarantine, Key: a.Key, File: s.QuarantinePath(), Error: a.Err.Error()})
			}
			changed = true
		}
		if !changed {
			return false, nil
		}
		d.tidy(now, s.retention)
		return true, nil
	}, func() { s.Append(pending...) })
	if err == nil && s.OnSetAside != nil {
		for _, a := range aside {
			s.OnSetAside(a, s.QuarantinePath())
		}
	}
	return err
}

// keepAside appends entries set aside to the quarantine file, durably.
func (s *Store) keepAside(now time.Time, aside []Aside) error {
	var b bytes.Buffer
	for _, a := range aside {
		entry := a.Raw
		if !json.Valid(entry) {
			entry, _ = json.Marshal(string(a.Raw))
		}
		line, _ := json.Marshal(struct {
			Time  string          `json:"time"`
			Key   string          `json:"key"`
			Error string          `json:"error"`
			Entry json.RawMessage `json:"entry"`
		}{now.UTC().Format(jsonx.TimeLayout), a.Key, a.Err.Error(), entry})
		b.Write(line)
		b.WriteByte('\n')
	}
	f, err := statefile.OpenFile(s.QuarantinePath(), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("cannot keep a malformed entry aside: %w", err)
	}
	statefile.GiveToOwnerOf(s.QuarantinePath(), s.File().Path())
	_, err = f.Write(b.Bytes())
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("cannot keep a malformed entry aside: %w", err)
	}
	return nil
}

// Validate checks that data is a hook state document guard can use: a JSON
// object whose hooks have known states and no negative counts.
func Validate(data []byte) error {
	if t := bytes.TrimSpace(data); len(t) == 0 || t[0] != '{' {
		return errors.New("not a JSON object")
	}
	var d Document
	if err := d.UnmarshalState(data); err != nil {
		return err
	}
	for _, k := range d.Keys() {
		if _, err := d.Hook(k); err != nil {
			return err
		}
	}
	if aside := d.Aside(); len(aside) > 0 {
		return fmt.Errorf("hooks[%q]: %v", aside[0].Key, aside[0].Err)
	}
	return nil
}

// Circuits returns the store as a store.Circuits.
func (s *Store) Circuits() store.Circuits { return circuits{s} }

type circuits struct{ s *Store }

func (c circuits) Peek(key string) (breaker.Circuit, error) { return c.s.Peek(key) }

func (c circuits) Update(now time.Time, fn func(tx store.CircuitTx) (bool, error)) error {
	return c.s.Update(now, func(d *Document) (bool, error) { return fn(d) })
}

func (c circuits) Snapshot() (store.CircuitView, error) { return c.s.Snapshot() }
