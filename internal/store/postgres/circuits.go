package postgres

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"

	"guard/breaker"
	"guard/internal/store"
	"guard/internal/store/hookstate"
)

// Circuits is the hook state in the database, a row of guard_circuits a
// key, as a store.Circuits.
//
// An update reads the rows it needs (or takes them from the peek that came
// before it), lets its function decide in Go (package circuit's steps,
// package breaker's rules), and writes each row it changed with
// compare-and-set on the row's version, its events and its run's release
// in one round, which the server runs as one transaction. No lock is held
// between two round trips: a call that finds a row changed since it read
// it (another host's call of the same key) reads it again and decides
// again. So calls of different keys never wait for each other, and a
// client that freezes holds nothing.
type Circuits struct {
	db *DB
	// OnSetAside, if set, hears of each entry an update set aside.
	OnSetAside func(a store.Aside, where string)

	cache map[string]*row // the rows this process read or wrote
}

// A row is a key's row as last read or written here.
type row struct {
	entry   []byte // nil: the key has no row
	version int64
	// holders are the key's runs in flight (their rows not expired) when
	// the row was read: a lease whose holder is not among them is dead.
	holders []store.Holder
}

// Circuits returns the hook state.
func (db *DB) Circuits() *Circuits {
	return &Circuits{db: db, cache: map[string]*row{}}
}

// readRow queues the read of key's row, with the key's live runs and the
// database's clock.
func readRow(b *pgx.Batch, key string) {
	b.Queue(`SELECT c.entry, c.version, now(), r.hosts, r.pids, r.starts
		FROM (SELECT 1) one
		LEFT JOIN guard_circuits c ON c.key_hash = $1
		LEFT JOIN LATERAL (SELECT array_agg(host) hosts, array_agg(pid) pids, array_agg(start) starts
			FROM guard_runs WHERE key_hash = $1 AND expires > now()) r ON true`, hash(key))
}

// scanRow reads what readRow queued.
func scanRow(br pgx.BatchResults) (*row, time.Time, error) {
	var r row
	var entry *string
	var version *int64
	var now time.Time
	var hosts []string
	var pids []int32
	var starts []int64
	if err := br.QueryRow().Scan(&entry, &version, &now, &hosts, &pids, &starts); err != nil {
		return nil, now, err
	}
	if entry != nil {
		r.entry, r.version = []byte(*entry), *version
	}
	for i := range hosts {
		r.holders = append(r.holders, store.Holder{Host: hosts[i], PID: int(pids[i]), Start: uint64(starts[i])})
	}
	return &r, now, nil
}

// read reads key's row, with what is pending (a run to list).
func (c *Circuits) read(key string) (*row, error) {
	var r *row
	sent := time.Now()
	err := c.db.round(func(b *pgx.Batch) { readRow(b, key) }, func(br pgx.BatchResults) error {
		var now time.Time
		var err error
		r, now, err = scanRow(br)
		if err == nil {
			c.db.noteClock(now, sent, time.Now())
		}
		return err
	}, false)
	if err != nil {
		return nil, err
	}
	c.cache[key] = r
	return r, nil
}

// decode returns the entry of r, checked.
func decode(entry []byte) (*hookstate.Hook, error) {
	h := &hookstate.Hook{}
	if err := h.UnmarshalJSON(entry); err != nil {
		return nil, store.Corrupt(err)
	}
	if err := h.Check(); err != nil {
		return nil, err
	}
	return h, nil
}

// Peek returns key's circuit as the database has it now; see
// store.Circuits. It is one round trip, which also carries a run's listing
// (store.Lister) if one is pending; the row read is what an update of the
// key right after starts from.
func (c *Circuits) Peek(key string) (breaker.Circuit, error) {
	r, err := c.read(key)
	if err != nil || r.entry == nil {
		return breaker.Circuit{}, err
	}
	h, err := decode(r.entry)
	if err != nil {
		return breaker.Circuit{}, err // the update sets it aside
	}
	return h.Circuit(), nil
}

// Update runs fn in one transaction; see store.Circuits. fn may run more
// than once: when a row it read changed before the write (compare-and-set
// failed), it runs again on the row as it is now, until the lock timeout.
func (c *Circuits) Update(now time.Time, fn func(tx store.CircuitTx) (bool, error)) error {
	if err := c.db.syncClock(); err != nil {
		return err
	}
	deadline := time.Now().Add(c.db.set.LockTimeout)
	for {
		tx := &circuitTx{c: c, now: c.db.now(now), hooks: map[string]*hookstate.Hook{}, counts: map[string][2]int{}}
		changed, err := fn(tx)
		if err == nil {
			err = tx.err
		}
		if err != nil {
			return err
		}
		err = c.write(tx, changed)
		if !isConflict(err) {
			if err == nil && c.OnSetAside != nil {
				for _, a := range tx.aside {
					c.OnSetAside(a, "the table guard_quarantine")
				}
			}
			return err
		}
		for _, k := range tx.read {
			delete(c.cache, k)
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the state of %d key(s) kept changing under this update: %w", len(tx.read), store.ErrBusy)
		}
		time.Sleep(time.Duration(rand.N(int64(5 * time.Millisecond)))) // apart from the other writer
	}
}

// write sends what tx changed in one round: its events first (so that a
// round sent again after its connection broke, which had been committed,
// fails on their ids instead of applying twice), the rows set aside, then
// each row put with compare-and-set, and the pruning of what has aged out.
func (c *Circuits) write(tx *circuitTx, changed bool) error {
	db := c.db
	events := tx.events
	for _, a := range tx.aside {
		events = append(events, store.Event{Time: tx.now, Event: store.EventQuarantine, Key: a.Key, File: "guard_quarantine", Error: a.Err.Error()})
	}
	if !changed && len(events) == 0 {
		for _, s := range tx.releases {
			s.ReleaseLater() // nothing to write: with the next round that writes
		}
		return nil
	}
	type put struct {
		key     string
		entry   []byte
		version int64 // of the row written, once written
		gone    bool
	}
	var puts []put
	if changed {
		for _, k := range tx.order {
			h := tx.hooks[k]
			if h == nil {
				puts = append(puts, put{key: k, gone: true})
				continue
			}
			entry, err := h.MarshalJSON()
			if err != nil {
				return err
			}
			puts = append(puts, put{key: k, entry: entry})
		}
	}
	var lines [][]byte
	for i, e := range events {
		e = c.db.withHost(e)
		events[i] = e
		line, err := e.MarshalJSON()
		if err != nil {
			return err
		}
		lines = append(lines, line)
	}
	bucket := rand.N(totalBuckets)
	var b pgx.Batch // the round's statements, built once: a round sent again sends the same
	{
		for i, e := range events {
			queueEvent(&b, e, lines[i], i)
		}
		for _, s := range tx.releases {
			st := s.deleteStmt()
			b.Queue(st.sql, st.args...)
		}
		for _, a := range tx.aside {
			b.Queue(`INSERT INTO guard_quarantine VALUES ($1, 'hooks', $2, $3, $4)`, tx.now, a.Key, a.Err.Error(), string(a.Raw))
		}
		for i := range puts {
			p := &puts[i]
			base := c.cache[p.key]
			n := tx.counts[p.key]
			delete(tx.counts, p.key)
			switch {
			case p.gone && base != nil && base.entry != nil:
				b.Queue(casCheck(`DELETE FROM guard_circuits WHERE key_hash = $1 AND version = $2 RETURNING 1`), hash(p.key), base.version)
			case p.gone:
			case base != nil && base.entry != nil:
				h := tx.hooks[p.key]
				b.Queue(casCheck(`UPDATE guard_circuits SET entry = $3, version = version + 1, open = $4,
					executions = executions + $5, failures = failures + $6, updated = now(), prune_after = $7
					WHERE key_hash = $1 AND version = $2 RETURNING 1`),
					hash(p.key), base.version, string(p.entry), h.State == string(breaker.Open), n[0], n[1], pruneAfter(p.key, h, db.set.Retention))
				p.version = base.version + 1
			default:
				h := tx.hooks[p.key]
				b.Queue(casCheck(`INSERT INTO guard_circuits (key_hash, key, entry, version, open, executions, failures, updated, prune_after)
					VALUES ($1, $2, $3, 1, $4, $5, $6, now(), $7) ON CONFLICT (key_hash) DO NOTHING RETURNING 1`),
					hash(p.key), p.key, string(p.entry), h.State == string(breaker.Open), n[0], n[1], pruneAfter(p.key, h, db.set.Retention))
				p.version = 1
			}
		}
		for _, n := range tx.counts { // counted for keys that kept no row
			if n != [2]int{} {
				b.Queue(addTotals, bucket, n[0], n[1])
			}
		}
		queuePruning(&b, db.set, bucket)
	}
	// A write carries the release of this process's run (roundWrite), so
	// that a probe's outcome and the end of its run commit as one: no
	// caller ever reads a lease whose holder's run is gone (faults #1).
	err := db.roundWrite(func(rb *pgx.Batch) { rb.QueuedQueries = append(rb.QueuedQueries, b.QueuedQueries...) }, nil, tx.relaxed && len(tx.aside) == 0)
	if isDuplicateEvent(err) {
		err = nil // committed the first time; see round
		for _, p := range puts {
			delete(c.cache, p.key) // its version is not known
		}
		for _, s := range tx.releases {
			s.released()
		}
		return nil
	}
	if err != nil {
		return err
	}
	for _, s := range tx.releases {
		s.released()
	}
	for _, p := range puts {
		if p.gone {
			c.cache[p.key] = &row{}
		} else {
			c.cache[p.key] = &row{entry: p.entry, version: p.version, holders: c.cache[p.key].holdersOrNil()}
		}
	}
	return nil
}

func (r *row) holdersOrNil() []store.Holder {
	if r == nil {
		return nil
	}
	return r.holders
}

// pruneAfter is when the row of h may be pruned, or nil (never).
func pruneAfter(key string, h *hookstate.Hook, retention hookstate.Retention) *time.Time {
	t := h.PruneAfter(key, retention)
	if t.IsZero() {
		return nil
	}
	return &t
}

// totalBuckets spreads the totals of pruned keys over rows, so that two
// prunes rarely write the same row.
const totalBuckets = 16

// addTotals adds to a bucket of guard_totals.
const addTotals = `INSERT INTO guard_totals (bucket, executions, failures) VALUES ($1, $2, $3)
	ON CONFLICT (bucket) DO UPDATE SET executions = guard_totals.executions + EXCLUDED.executions,
		failures = guard_totals.failures + EXCLUDED.failures`

// queuePruning queues the pruning of what has aged out, a bounded batch of
// each, in the round of every write: events older than the event retention,
// keys idle past the retention (their totals kept in guard_totals), runs
// whose holder stopped extending them a while ago. Rows another call has
// locked are skipped, not waited for.
func queuePruning(b *pgx.Batch, set Settings, bucket int) {
	if set.EventRetention > 0 {
		b.Queue(`DELETE FROM guard_events WHERE id IN (SELECT id FROM guard_events
			WHERE ts < now() - make_interval(secs => $1) ORDER BY ts LIMIT 64 FOR UPDATE SKIP LOCKED)`, set.EventRetention.Seconds())
	}
	if set.Retention.Idle > 0 || set.Retention.Session > 0 {
		b.Queue(`WITH gone AS (DELETE FROM guard_circuits WHERE key_hash IN (SELECT key_hash FROM guard_circuits
				WHERE prune_after < now() ORDER BY prune_after LIMIT 16 FOR UPDATE SKIP LOCKED)
				RETURNING executions, failures)
			INSERT INTO guard_totals (bucket, executions, failures) SELECT $1, sum(executions), sum(failures) FROM gone HAVING count(*) > 0
			ON CONFLICT (bucket) DO UPDATE SET executions = guard_totals.executions + EXCLUDED.executions,
				failures = guard_totals.failures + EXCLUDED.failures`, bucket)
	}
	b.Queue(`DELETE FROM guard_runs WHERE (key_hash, slot) IN (SELECT key_hash, slot FROM guard_runs
		WHERE expires < now() - interval '1 minute' ORDER BY expires LIMIT 16 FOR UPDATE SKIP LOCKED)`)
}

// circuitTx is the hook state inside one update: the rows it read, as
// hooks, and what it changed.
type circuitTx struct {
	c        *Circuits
	now      time.Time
	hooks    map[string]*hookstate.Hook // read or put; nil: no row (or deleted)
	read     []string                   // keys read, in order
	order    []string                   // keys put or deleted, in order
	counts   map[string][2]int          // executions, failures counted per key
	events   []store.Event
	aside    []store.Aside
	releases []*slot // runs this write ends (see ReleaseSlot)
	relaxed  bool
	err      error
}

// ReleaseSlot ends the run of s with this transaction's write, if it
// commits (store.SlotReleaser): a skipped call's run ends with its skip,
// and an attempt after a conflict that decides to run the call keeps it.
func (t *circuitTx) ReleaseSlot(s store.Slot) bool {
	sl, ok := s.(*slot)
	if ok {
		t.releases = append(t.releases, sl)
	}
	return ok
}

func (t *circuitTx) Now() time.Time { return t.now }

// hook returns key's entry, reading its row if this process has not yet;
// an entry that does not check out is set aside, and the key has none.
func (t *circuitTx) hook(key string) (*hookstate.Hook, error) {
	if h, ok := t.hooks[key]; ok {
		return h, nil
	}
	r := t.c.cache[key]
	if r == nil {
		var err error
		if r, err = t.c.read(key); err != nil {
			t.err = err
			return nil, err
		}
	}
	t.read = append(t.read, key)
	var h *hookstate.Hook
	if r.entry != nil {
		var err error
		if h, err = decode(r.entry); err != nil {
			t.aside = append(t.aside, store.Aside{Key: key, Raw: slices.Clone(r.entry), Err: err})
			t.touch(key)
			h = nil
		}
	}
	t.hooks[key] = h
	return h, nil
}

// touch marks key to be written.
func (t *circuitTx) touch(key string) {
	if !slices.Contains(t.order, key) {
		t.order = append(t.order, key)
	}
}

func (t *circuitTx) Circuit(key string) (breaker.Circuit, error) {
	h, err := t.hook(key)
	if h == nil || err != nil {
		return breaker.Circuit{}, err
	}
	return h.Circuit(), nil
}

func (t *circuitTx) Has(key string) bool {
	h, _ := t.hook(key)
	return h != nil
}

func (t *circuitTx) Put(key string, c breaker.Circuit) {
	h, _ := t.hook(key)
	if h == nil {
		h = &hookstate.Hook{}
	} else {
		cp := *h
		h = &cp
	}
	h.SetCircuit(c)
	t.hooks[key] = h
	t.touch(key)
}

func (t *circuitTx) Relax() { t.relaxed = true }

func (t *circuitTx) Rename(from, to string) (bool, error) {
	if from == to {
		return false, nil
	}
	hf, err := t.hook(from)
	if err != nil || hf == nil {
		return false, err
	}
	if ht, err := t.hook(to); err != nil || ht != nil {
		return false, err
	}
	t.hooks[to], t.hooks[from] = hf, nil
	t.touch(from)
	t.touch(to)
	return true, nil
}

func (t *circuitTx) Count(key string, executions, failures int) {
	n := t.counts[key]
	t.counts[key] = [2]int{n[0] + executions, n[1] + failures}
}

func (t *circuitTx) Log(events ...store.Event) { t.events = append(t.events, events...) }

func (t *circuitTx) Keys() []string {
	keys, err := t.c.keys()
	if err != nil {
		t.err = err
	}
	return keys
}

func (t *circuitTx) Stats() store.Stats {
	st, err := t.c.stats()
	if err != nil {
		t.err = err
	}
	return st
}

func (t *circuitTx) Aside() []store.Aside { return t.aside }

// Alive reports, for a lease's holder, what the rows of the key's runs say
// (store.Witness): a holder with no run in flight is dead, wherever it
// runs, for it keeps its run's row while it runs. One with a row is left
// to the process check where it can be made.
func (t *circuitTx) Alive(key string, h store.Holder) (alive, known bool) {
	r := t.c.cache[key]
	if r == nil {
		return false, false
	}
	for _, o := range r.holders {
		if o.Host == h.Host && o.PID == h.PID && (o.Start == h.Start || o.Start == 0 || h.Start == 0) {
			return true, false
		}
	}
	return false, true
}

var (
	_ store.CircuitTx = (*circuitTx)(nil)
	_ store.Witness   = (*circuitTx)(nil)
)

// keys returns every key with a row, sorted.
func (c *Circuits) keys() ([]string, error) {
	var keys []string
	err := c.db.round(func(b *pgx.Batch) { b.Queue(`SELECT key FROM guard_circuits ORDER BY key`) }, func(br pgx.BatchResults) error {
		rows, err := br.Query()
		if err != nil {
			return err
		}
		keys, err = pgx.CollectRows(rows, pgx.RowTo[string])
		return err
	}, false)
	return keys, err
}

// statsQuery sums up every key's totals, and those of the pruned keys.
const statsQuery = `SELECT
	(SELECT coalesce(sum(executions), 0) FROM guard_circuits)::bigint + (SELECT coalesce(sum(executions), 0) FROM guard_totals)::bigint,
	(SELECT coalesce(sum(failures), 0) FROM guard_circuits)::bigint + (SELECT coalesce(sum(failures), 0) FROM guard_totals)::bigint,
	(SELECT count(*) FROM guard_circuits WHERE open),
	(SELECT max(updated) FROM guard_circuits)`

func scanStats(br pgx.BatchResults) (store.Stats, error) {
	var st store.Stats
	var last *time.Time
	var open int64
	err := br.QueryRow().Scan(&st.TotalExecutions, &st.TotalFailures, &open, &last)
	st.HooksDisabled = int(open)
	if last != nil {
		st.LastUpdated = *last
	}
	return st, err
}

func (c *Circuits) stats() (store.Stats, error) {
	var st store.Stats
	err := c.db.round(func(b *pgx.Batch) { b.Queue(statsQuery) }, func(br pgx.BatchResults) (err error) {
		st, err = scanStats(br)
		return err
	}, false)
	return st, err
}

// Snapshot returns every key's circuit and the totals, read in one round
// (one transaction: a consistent view); see store.Circuits.
func (c *Circuits) Snapshot() (store.CircuitView, error) {
	v := &circuitView{entries: map[string][]byte{}, hooks: map[string]*hookstate.Hook{}}
	err := c.db.round(func(b *pgx.Batch) {
		b.Queue(`SELECT key, entry FROM guard_circuits ORDER BY key`)
		b.Queue(statsQuery)
	}, func(br pgx.BatchResults) error {
		rows, err := br.Query()
		if err != nil {
			return err
		}
		for rows.Next() {
			var k, entry string
			if err := rows.Scan(&k, &entry); err != nil {
				return err
			}
			v.keys = append(v.keys, k)
			v.entries[k] = []byte(entry)
		}
		if err := rows.Err(); err != nil {
			return err
		}
		v.stats, err = scanStats(br)
		return err
	}, false)
	if err != nil {
		return nil, err
	}
	return v, nil
}

// circuitView is a snapshot of the hook state.
type circuitView struct {
	keys    []string
	entries map[string][]byte
	hooks   map[string]*hookstate.Hook
	aside   []store.Aside
	stats   store.Stats
}

func (v *circuitView) Keys() []string {
	out := make([]string, 0, len(v.keys))
	for _, k := range v.keys {
		if v.Has(k) {
			out = append(out, k)
		}
	}
	return out
}

func (v *circuitView) Has(key string) bool {
	h, _ := v.hook(key)
	return h != nil
}

func (v *circuitView) hook(key string) (*hookstate.Hook, error) {
	if h, ok := v.hooks[key]; ok {
		return h, nil
	}
	entry, ok := v.entries[key]
	if !ok {
		return nil, nil
	}
	h, err := decode(entry)
	if err != nil {
		v.aside = append(v.aside, store.Aside{Key: key, Raw: entry, Err: err})
		h = nil
	}
	v.hooks[key] = h
	return h, nil
}

func (v *circuitView) Circuit(key string) (breaker.Circuit, error) {
	h, err := v.hook(key)
	if h == nil || err != nil {
		return breaker.Circuit{}, err
	}
	return h.Circuit(), nil
}

func (v *circuitView) Stats() store.Stats   { return v.stats }
func (v *circuitView) Aside() []store.Aside { return v.aside }
