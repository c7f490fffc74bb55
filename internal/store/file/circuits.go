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
	tally     *skipTally // the skips counted without the lock (skiptally.go)

	// onSetAside, if set, hears of each entry an update set aside (see
	// store.Aside), once it is kept in the quarantine file.
	onSetAside func(a store.Aside, keptIn string)
}

var (
	_ store.Circuits        = (*Circuits)(nil)
	_ store.OutcomeRecorder = (*Circuits)(nil)
	_ store.SkipCounter     = (*Circuits)(nil)
)

// openCircuits opens the hook state file at path. retention says which idle
// keys a write's hourly sweep prunes (see hookstate.Retention). Events go to
// the log logFor names; see openStateFile.
func openCircuits(path string, opts statefile.Options, retention hookstate.Retention, logFor func(string) (*EventLog, error), logErr func(error)) (*Circuits, error) {
	fs, err := openStateFile(path, opts, logFor, logErr)
	if err != nil {
		return nil, err
	}
	return &Circuits{stateFile: fs, retention: retention, tally: &skipTally{path: tallyPath(fs.Path()), owner: fs.Path()}}, nil
}

// QuarantinePath is where entries set aside are kept: one JSON line each,
// {"time", "key", "error", "entry"}, appended.
func (s *Circuits) QuarantinePath() string { return s.Path() + ".quarantine" }

// Snapshot reads the current state without the lock (store.Circuits),
// with the skips of the skip tally it does not hold yet added to its keys'
// totals. A missing file is an empty state; a file that does not parse
// gives an error matching store.ErrCorrupt.
//
// The state read and the tally read must go together: a fold between the
// two that also rotated the tally would leave out the records it folded.
// So the state is read again after the tally: if it changed, both are
// read again (a fold writes the state before it rotates the tally).
func (s *Circuits) Snapshot() (store.CircuitView, error) {
	for try := 0; ; try++ {
		before, _ := os.Stat(s.Path())
		d, err := s.document()
		if err != nil {
			return nil, err
		}
		pending, err := s.tally.pending(d.GlobalStats.SkipTally)
		if err != nil {
			return d, nil // counts not folded yet are left out; the next write folds them
		}
		after, _ := os.Stat(s.Path())
		if try < 8 && before != nil && (after == nil || !os.SameFile(before, after) || !after.ModTime().Equal(before.ModTime())) {
			continue
		}
		for key, c := range pending {
			d.AddSkips(key, c.skips, c.blocked)
		}
		return d, nil
	}
}

// CountSkip counts a call of key skipped without the state's lock, blocked
// or not, in the skip tally, and logs its event ev (store.SkipCounter): the
// state is not written; its next update folds the count in.
func (s *Circuits) CountSkip(key string, blocked bool, ev store.Event) error {
	if err := s.tally.add(key, blocked, s.File().LockTimeout()); err != nil {
		return err
	}
	s.Append(ev)
	return nil
}

// Export returns the state file's bytes, read under the lock, or nil if
// there is no state, with the skip tally folded in first.
func (s *Circuits) Export() ([]byte, error) {
	if err := s.update(0, time.Now(), func(store.CircuitTx) (bool, error) { return false, nil }); err != nil {
		return nil, err
	}
	return s.stateFile.Export()
}

// Import replaces the state file with data under the lock (see
// stateFile.Import). The skip tally starts afresh: the skips it held and the
// state had not folded yet were the replaced state's, and the state
// imported counts from the new tally's start, whatever its own mark says.
func (s *Circuits) Import(data []byte, now time.Time, from string, keep func(old []byte) (kept string, err error)) error {
	return s.stateFile.Import(data, now, from, func(old []byte) (string, error) {
		kept, err := keep(old)
		if err != nil {
			return "", err
		}
		tr, err := s.tally.readLocked("", s.File().LockTimeout())
		if err != nil {
			return "", err
		}
		defer tr.close()
		if tr.f != nil {
			tr.size = tallyRotateAt // rotated whatever its size
			if err := tr.rotate(s.tally); err != nil {
				return "", fmt.Errorf("cannot start the skip tally afresh: %w", err)
			}
		}
		return kept, nil
	})
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
// the write failed; if another process holds the log's lock, once the
// state's is let go (stateFile.appendHeld).
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
	// After the state's lock is let go, and the tally's (deferred first,
	// so run last): the events the log's lock held up.
	defer s.appendLater()
	var tally *tallyRead
	defer func() { tally.close() }()
	err := statefile.UpdateWithin(s.File(), wait, func(d *hookstate.Document) (bool, error) {
		folded := false
		if tally == nil {
			// The skips counted without the lock go into the totals
			// with this write; a tally that cannot be read, or whose
			// lock is held (this holds the state's: it never waits on
			// another), waits for another write (a snapshot still
			// counts it).
			tally, _ = s.tally.readLocked(d.GlobalStats.SkipTally, 0)
		}
		if tally != nil && tally.mark != d.GlobalStats.SkipTally {
			for key, c := range tally.counts {
				d.AddSkips(key, c.skips, c.blocked)
			}
			d.GlobalStats.SkipTally = tally.mark
			folded = true
		}
		changed, err := fn(d)
		if folded && !changed {
			d.Relax() // only counters moved
		}
		changed = changed || folded
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
	}, func() {
		s.appendHeld(pending...)
		if tally != nil {
			// The state now holds all of the tally: it may start afresh.
			tally.rotate(s.tally)
		}
	})
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
