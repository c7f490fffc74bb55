package file

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"time"

	"guard/breaker"
	"guard/internal/jsonx"
	"guard/internal/store"
	"guard/internal/store/hookstate"
	"guard/statefile"
)

// Circuits is hook_state.json, and the event log its changes go to, as a
// store.Circuits.
type Circuits struct {
	*stateFile
	retention hookstate.Retention

	// onSetAside, if set, hears of each entry an update set aside (see
	// store.Aside), once it is kept in the quarantine file.
	onSetAside func(a store.Aside, keptIn string)
}

var (
	_ store.Circuits        = (*Circuits)(nil)
	_ store.OutcomeRecorder = (*Circuits)(nil)
)

// openCircuits opens the hook state file at path. retention says which idle
// keys a write's hourly sweep prunes (see hookstate.Retention). Events go to
// the log logFor names; see openStateFile.
func openCircuits(path string, opts statefile.Options, retention hookstate.Retention, logFor func(string) (*EventLog, error), logErr func(error)) (*Circuits, error) {
	fs, err := openStateFile(path, opts, logFor, logErr)
	if err != nil {
		return nil, err
	}
	return &Circuits{stateFile: fs, retention: retention}, nil
}

// QuarantinePath is where entries set aside are kept: one JSON line each,
// {"time", "key", "error", "entry"}, appended.
func (s *Circuits) QuarantinePath() string { return s.Path() + ".quarantine" }

// Snapshot reads the current state without the lock (store.Circuits). A
// missing file is an empty state; a file that does not parse gives an
// error matching store.ErrCorrupt.
func (s *Circuits) Snapshot() (store.CircuitView, error) {
	d, err := s.document()
	if err != nil {
		return nil, err
	}
	return d, nil
}

// document reads the current state without the lock.
func (s *Circuits) document() (*hookstate.Document, error) {
	d := &hookstate.Document{}
	if _, err := statefile.Load(s.File(), d); err != nil {
		return nil, storeError(err)
	}
	return d, nil
}

// Peek returns key's circuit as the state file has it now, read without
// the lock and without decoding the other keys (store.Circuits): it is
// quick, and it is advice, for deciding a call that changes nothing (a run
// on a closed circuit). A key with no entry has a closed circuit; an entry
// that does not decode gives an error.
func (s *Circuits) Peek(key string) (breaker.Circuit, error) {
	data, err := s.File().Read()
	if err != nil || data == nil {
		return breaker.Circuit{}, storeError(err)
	}
	// Nothing of data outlives this call: the update that follows may read
	// into it.
	defer s.File().Recycle(data)
	c, err := hookstate.PeekData(data, key)
	return c, storeError(err)
}

// Update runs fn on the current state under the lock (store.Circuits), and
// if fn reports a change, tidies the document (see Document.Tidy) and
// replaces the file. The events fn logged are then appended to the event
// log, still under the lock, whether or not anything changed, unless fn or
// the write failed.
func (s *Circuits) Update(now time.Time, fn func(tx store.CircuitTx) (changed bool, err error)) error {
	return s.update(0, now, fn)
}

// UpdateOutcome is Update, waiting up to wait for the lock (0: the lock
// timeout) (store.OutcomeRecorder): guard run's record of an outcome waits
// record_timeout, since its command has run, the wait delays only its
// exit, and giving up would lose the outcome.
func (s *Circuits) UpdateOutcome(now time.Time, wait time.Duration, fn func(tx store.CircuitTx) (changed bool, err error)) error {
	return s.update(wait, now, fn)
}

// update is Update, waiting up to wait for the lock (0: the lock timeout).
func (s *Circuits) update(wait time.Duration, now time.Time, fn func(tx store.CircuitTx) (changed bool, err error)) error {
	var pending []store.Event
	var aside []store.Aside
	swept := false
	if wait <= 0 {
		wait = s.File().LockTimeout()
	}
	err := statefile.UpdateWithin(s.File(), wait, func(d *hookstate.Document) (bool, error) {
		changed, err := fn(d)
		pending = d.Pending()
		if err != nil {
			return false, docError(err)
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
		swept = d.Tidy(now, s.retention)
		return true, nil
	}, func() { s.Append(pending...) })
	if err == nil && swept {
		sweepRuns(RunsDir(s.Path()), now)
	}
	if err == nil && s.onSetAside != nil {
		for _, a := range aside {
			s.onSetAside(a, s.QuarantinePath())
		}
	}
	return storeError(err)
}

// keepAside appends entries set aside to the quarantine file, durably.
func (s *Circuits) keepAside(now time.Time, aside []store.Aside) error {
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
	f, err := statefile.OpenBeside(s.QuarantinePath(), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
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
