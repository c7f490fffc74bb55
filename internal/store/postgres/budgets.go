package postgres

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"guard/internal/jsonx"
	"guard/internal/store"
	"guard/internal/store/cooldownstate"
)

// Budgets is the cooldown state in the database, as a store.Budgets: a row
// of guard_budgets a service (its entry of cooldown.json) and a row of
// guard_stamps for each of the document's other members (last_run, ...).
// An update reads the rows of the services it touches into a document of
// their own (package cooldownstate: the file's format, row by row), lets
// the rules (package cooldown) read and write their records there, and
// writes back the rows that changed, with compare-and-set on their
// versions, as Circuits does: no lock is held between round trips.
type Budgets struct {
	db      *DB
	actions []store.Action
}

// Budgets returns the cooldown state, whose services register with an
// array for each of actions.
func (db *DB) Budgets(actions []store.Action) *Budgets {
	return &Budgets{db: db, actions: actions}
}

// phantom is a service an update adds, and never writes, so that a new
// service gets the plain-timestamp arrays that services it did not read
// keep (see cooldownstate's mirror).
const phantom = "\x00keeps timestamps"

// keepsTimestamps reports whether a service's entry keeps a
// plain-timestamp array.
func keepsTimestamps(s *cooldownstate.Service) bool {
	for k := range s.Extra {
		if strings.HasSuffix(k, "_timestamps") {
			return true
		}
	}
	return false
}

// budgetTx is the cooldown state inside one update: the services it read,
// in a document of their own. Each method reads what it needs first, in
// one round: a service's row (with the stamps, the first time), or the
// stamps.
type budgetTx struct {
	b        *Budgets
	d        *cooldownstate.Document
	doc      store.BudgetTx // d, as the file's transactions see it
	now      time.Time
	services map[string]*svcRow // read: their rows as they were
	stamps   map[string]string  // read: guard_stamps as it was; nil until read
	err      error
}

// A svcRow is a service's row as read.
type svcRow struct {
	entry   string // "" for none
	version int64
}

func (t *budgetTx) Now() time.Time { return t.now }

// service reads service's row into the document, with the stamps if they
// are not read yet.
func (t *budgetTx) service(name string) {
	if _, ok := t.services[name]; ok || t.err != nil {
		return
	}
	var r svcRow
	var keeps bool
	err := t.b.db.round(func(b *pgx.Batch) {
		b.Queue(`SELECT (SELECT entry FROM guard_budgets WHERE key_hash = $1), (SELECT version FROM guard_budgets WHERE key_hash = $1),
			EXISTS (SELECT 1 FROM guard_budgets WHERE keeps_timestamps)`, hash(name))
		if t.stamps == nil {
			b.Queue(`SELECT name, value FROM guard_stamps`)
		}
	}, func(br pgx.BatchResults) error {
		var entry *string
		var version *int64
		if err := br.QueryRow().Scan(&entry, &version, &keeps); err != nil {
			return err
		}
		if entry != nil {
			r = svcRow{*entry, *version}
		}
		if t.stamps == nil {
			return t.scanStamps(br)
		}
		return nil
	}, false)
	if err != nil {
		t.err = err
		return
	}
	t.services[name] = &r
	if r.entry != "" {
		s := &cooldownstate.Service{}
		if err := json.Unmarshal([]byte(r.entry), s); err != nil {
			t.err = fmt.Errorf("services.%s: %v", name, err)
			return
		}
		t.d.Services[name] = s
	}
	if keeps && t.d.Services[phantom] == nil {
		t.d.Services[phantom] = &cooldownstate.Service{Extra: jsonx.Extra{"phantom_timestamps": json.RawMessage("[]")}}
	}
}

// scanStamps reads guard_stamps into the document.
func (t *budgetTx) scanStamps(br pgx.BatchResults) error {
	rows, err := br.Query()
	if err != nil {
		return err
	}
	t.stamps = map[string]string{}
	for rows.Next() {
		var name, value string
		if err := rows.Scan(&name, &value); err != nil {
			return err
		}
		t.stamps[name] = value
		t.d.Extra[name] = json.RawMessage(value)
	}
	return rows.Err()
}

// readStamps reads guard_stamps, if not read yet.
func (t *budgetTx) readStamps() {
	if t.stamps != nil || t.err != nil {
		return
	}
	t.err = t.b.db.round(func(b *pgx.Batch) { b.Queue(`SELECT name, value FROM guard_stamps`) }, t.scanStamps, false)
}

// ServiceNames reads every service.
func (t *budgetTx) ServiceNames() []string {
	var names []string
	err := t.b.db.round(func(b *pgx.Batch) { b.Queue(`SELECT service FROM guard_budgets ORDER BY service`) }, func(br pgx.BatchResults) error {
		rows, err := br.Query()
		if err != nil {
			return err
		}
		names, err = pgx.CollectRows(rows, pgx.RowTo[string])
		return err
	}, false)
	if err != nil {
		t.err = err
		return nil
	}
	for _, n := range names {
		t.service(n)
	}
	return names
}

func (t *budgetTx) Records(service string, a store.Action) ([]store.Record, error) {
	if t.service(service); t.err != nil {
		return nil, t.err
	}
	return t.doc.Records(service, a)
}

func (t *budgetTx) PutRecords(service string, a store.Action, rs []store.Record) error {
	if t.service(service); t.err != nil {
		return t.err
	}
	return t.doc.PutRecords(service, a, rs)
}

func (t *budgetTx) Streak(service string) int { t.service(service); return t.doc.Streak(service) }

func (t *budgetTx) PutStreak(service string, n int) error {
	if t.service(service); t.err != nil {
		return t.err
	}
	return t.doc.PutStreak(service, n)
}

func (t *budgetTx) Last(name string) (time.Time, error) {
	if t.readStamps(); t.err != nil {
		return time.Time{}, t.err
	}
	return t.doc.Last(name)
}

func (t *budgetTx) Stamps() []string { t.readStamps(); return t.doc.Stamps() }

func (t *budgetTx) PutStamp(name string, at time.Time) error {
	if t.readStamps(); t.err != nil {
		return t.err
	}
	return t.doc.PutStamp(name, at)
}

// Loaded returns the services read so far: those a change writes back.
func (t *budgetTx) Loaded() []string {
	names := make([]string, 0, len(t.services))
	for n := range t.services {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

func (t *budgetTx) Log(events ...store.Event) { t.doc.Log(events...) }

var _ store.BudgetTx = (*budgetTx)(nil)

// Update runs fn in one transaction; see store.Budgets. As with
// Circuits.Update, fn may run again on rows that changed meanwhile.
func (b *Budgets) Update(now time.Time, fn func(tx store.BudgetTx) (bool, error)) error {
	if err := b.db.syncClock(); err != nil {
		return err
	}
	deadline := time.Now().Add(b.db.set.LockTimeout)
	for {
		d := &cooldownstate.Document{Services: map[string]*cooldownstate.Service{}, Extra: jsonx.Extra{}}
		tx := &budgetTx{b: b, d: d, doc: cooldownstate.Tx(d, b.actions), now: b.db.now(now), services: map[string]*svcRow{}}
		changed, err := fn(tx)
		if err == nil {
			err = tx.err
		}
		if err != nil {
			return err
		}
		err = b.write(tx, changed)
		if !isConflict(err) {
			return err
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the cooldown state kept changing under this update: %w", store.ErrBusy)
		}
		time.Sleep(time.Duration(rand.N(int64(5 * time.Millisecond))))
	}
}

// write sends what tx changed, in one round: its events, then each
// service's row with compare-and-set, and each stamp.
func (b *Budgets) write(tx *budgetTx, changed bool) error {
	events := tx.d.Pending()
	var batch pgx.Batch
	for i, e := range events {
		e = b.db.withHost(e)
		line, err := e.MarshalJSON()
		if err != nil {
			return err
		}
		queueEvent(&batch, e, line, i)
	}
	if changed {
		if tx.stamps != nil {
			// The stamps a file always has, as Complete gives them to a
			// file: only where they were read, so that an update that did
			// not read them does not write them over.
			tx.d.Complete()
		}
		for name, r := range tx.services {
			s := tx.d.Services[name]
			if s == nil {
				continue
			}
			entry, err := json.Marshal(s)
			if err != nil {
				return err
			}
			switch {
			case string(entry) == r.entry:
			case r.entry == "":
				batch.Queue(casCheck(`INSERT INTO guard_budgets (key_hash, service, entry, version, keeps_timestamps)
					VALUES ($1, $2, $3, 1, $4) ON CONFLICT (key_hash) DO NOTHING RETURNING 1`), hash(name), name, string(entry), keepsTimestamps(s))
			default:
				batch.Queue(casCheck(`UPDATE guard_budgets SET entry = $3, version = version + 1, keeps_timestamps = $4
					WHERE key_hash = $1 AND version = $2 RETURNING 1`), hash(name), r.version, string(entry), keepsTimestamps(s))
			}
		}
		for name, raw := range tx.d.Extra {
			if old, ok := tx.stamps[name]; !ok || old != string(raw) {
				batch.Queue(`INSERT INTO guard_stamps (name, value) VALUES ($1, $2) ON CONFLICT (name) DO UPDATE SET value = EXCLUDED.value`, name, string(raw))
			}
		}
	}
	if len(batch.QueuedQueries) == 0 {
		return nil
	}
	queuePruning(&batch, Settings{EventRetention: b.db.set.EventRetention}, 0)
	err := b.db.round(func(rb *pgx.Batch) { rb.QueuedQueries = append(rb.QueuedQueries, batch.QueuedQueries...) }, nil, false)
	if isDuplicateEvent(err) {
		return nil // committed the first time; see DB.round
	}
	return err
}

// Snapshot returns the cooldown state, read in one round; see
// store.Budgets.
func (b *Budgets) Snapshot() (store.BudgetView, error) {
	return b.document()
}

// document reads the whole cooldown state.
func (b *Budgets) document() (*cooldownstate.Document, error) {
	d := &cooldownstate.Document{Services: map[string]*cooldownstate.Service{}, Extra: jsonx.Extra{}}
	err := b.db.round(func(batch *pgx.Batch) {
		batch.Queue(`SELECT service, entry FROM guard_budgets`)
		batch.Queue(`SELECT name, value FROM guard_stamps`)
	}, func(br pgx.BatchResults) error {
		rows, err := br.Query()
		if err != nil {
			return err
		}
		for rows.Next() {
			var name, entry string
			if err := rows.Scan(&name, &entry); err != nil {
				return err
			}
			s := &cooldownstate.Service{}
			if err := json.Unmarshal([]byte(entry), s); err != nil {
				return fmt.Errorf("services.%s: %v", name, err)
			}
			d.Services[name] = s
		}
		if err := rows.Err(); err != nil {
			return err
		}
		rows, err = br.Query()
		if err != nil {
			return err
		}
		for rows.Next() {
			var name, value string
			if err := rows.Scan(&name, &value); err != nil {
				return err
			}
			d.Extra[name] = json.RawMessage(value)
		}
		return rows.Err()
	}, false)
	return d, err
}
