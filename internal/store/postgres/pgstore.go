package postgres

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"guard/config"
	"guard/internal/store"
)

// schemaVersion is the version of the schema this guard writes.
const schemaVersion = 1

// migrations bring the schema from version i to i+1.
var migrations = []string{
	`CREATE TABLE IF NOT EXISTS guard_state (
		name    text PRIMARY KEY,
		doc     text NOT NULL,
		updated timestamptz NOT NULL DEFAULT now()
	);
	CREATE TABLE IF NOT EXISTS guard_events (
		id   bigserial PRIMARY KEY,
		ts   timestamptz NOT NULL,
		line text NOT NULL
	);
	CREATE TABLE IF NOT EXISTS guard_quarantine (
		ts    timestamptz NOT NULL,
		state text NOT NULL,
		key   text NOT NULL,
		error text NOT NULL,
		entry text NOT NULL
	);
	CREATE TABLE IF NOT EXISTS guard_slots (
		key      text NOT NULL,
		slot     int NOT NULL,
		host     text NOT NULL,
		pid      int NOT NULL,
		start    bigint NOT NULL,
		child    int NOT NULL DEFAULT 0,
		started  timestamptz NOT NULL,
		deadline timestamptz,
		PRIMARY KEY (key, slot)
	);`,
}

// A DB is a connection to guard's database. It is not safe for concurrent
// use: guard holds one per process.
type DB struct {
	conn    *pgx.Conn
	where   string          // the URL, password hidden
	timeout time.Duration   // for each statement round
	held    map[string]bool // slots this connection holds (advisory locks are re-entrant)
	checked bool            // the schema is known to be the one this guard writes
	pending []statement     // slot releases to run before anything else
	host    string          // written into each event that names no host (store.Options.Host)
	relax   bool            // set by update's fn: this commit need not wait for the disk

	// LocalClock makes decisions on the time the caller gives instead of
	// the database's: for tests that play time forward.
	LocalClock bool
}

// Open connects to the database at url within connectTimeout (if the URL
// does not set connect_timeout itself). The password may come from the
// URL, PGPASSWORD or ~/.pgpass, as libpq takes it. The schema is checked,
// and created or migrated if need be, on the first statement: the check
// rides in that statement's round trip.
func Open(ctx context.Context, rawURL string, connectTimeout time.Duration) (*DB, error) {
	cfg, err := pgx.ParseConfig(rawURL)
	if err != nil {
		return nil, fmt.Errorf("%s is not a PostgreSQL URL guard can use: %v", config.Redact(rawURL), err)
	}
	if !strings.Contains(rawURL, "connect_timeout") && connectTimeout > 0 {
		cfg.ConnectTimeout = connectTimeout
	}
	// Every statement in one round trip (an unnamed statement, parsed and
	// run together), not two (prepare, then run): a guard's connection
	// lives for one call, so a cache of prepared statements never pays.
	cfg.DefaultQueryExecMode = pgx.QueryExecModeExec
	db := &DB{where: config.Redact(rawURL), timeout: max(cfg.ConnectTimeout, time.Second) * 5, held: map[string]bool{}}
	if db.conn, err = pgx.ConnectConfig(ctx, cfg); err != nil {
		return nil, fmt.Errorf("cannot reach the database at %s: %w", db.where, unwrapConnect(err))
	}
	return db, nil
}

// unwrapConnect shortens pgx's connection errors to their cause.
func unwrapConnect(err error) error {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return errors.New(pe.Message)
	}
	return err
}

// Where says where the state is, for people.
func (db *DB) Where() string { return db.where }

// Close closes the connection, releasing any slot it holds: the server
// drops a connection's session locks when it ends, and the rows of
// released slots that were not yet deleted list nothing without them.
func (db *DB) Close() { db.conn.Close(context.Background()) }

// A statement waits in DB.pending for the next round trip.
type statement struct {
	sql  string
	args []any
}

// schemaCheck fails, so that nothing after it in its round trip runs, when
// the schema is not the one this guard writes: with undefined_table when
// there is none, with invalid_text_representation naming the version when
// it is another.
var schemaCheck = fmt.Sprintf(`SELECT CASE WHEN version = %d THEN 0 ELSE ('guard schema version ' || version)::int END FROM guard_schema`, schemaVersion)

// send sends batch in one round trip, after what must come first on this
// connection: the schema check, once (on failure it migrates the schema
// and sends batch again), and the pending slot releases. The results it
// returns start at batch's first statement.
func (db *DB) send(ctx context.Context, batch *pgx.Batch) (pgx.BatchResults, error) {
	if db.checked && len(db.pending) == 0 {
		return db.conn.SendBatch(ctx, batch), nil
	}
	var all pgx.Batch
	if !db.checked {
		all.Queue(schemaCheck)
	}
	for _, st := range db.pending {
		all.Queue(st.sql, st.args...)
	}
	all.QueuedQueries = append(all.QueuedQueries, batch.QueuedQueries...)
	br := db.conn.SendBatch(ctx, &all)
	if !db.checked {
		if _, err := br.Exec(); err != nil {
			br.Close()
			if !schemaOutdated(err) {
				return nil, err
			}
			if err := db.migrate(ctx); err != nil {
				return nil, err
			}
			db.checked = true
			return db.send(ctx, batch)
		}
		db.checked = true
	}
	for range db.pending {
		if _, err := br.Exec(); err != nil {
			br.Close()
			return nil, err
		}
	}
	db.pending = nil
	return br, nil
}

// exec runs one statement, after what send puts first.
func (db *DB) exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error) {
	var batch pgx.Batch
	batch.Queue(sql, args...)
	br, err := db.send(ctx, &batch)
	if err != nil {
		return pgconn.CommandTag{}, err
	}
	tag, err := br.Exec()
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	return tag, err
}

// ready runs what send puts first, if anything, before a query that does
// not go through send.
func (db *DB) ready(ctx context.Context) error {
	if db.checked && len(db.pending) == 0 {
		return nil
	}
	br, err := db.send(ctx, &pgx.Batch{})
	if err != nil {
		return err
	}
	return br.Close()
}

// Ping makes sure the schema is the one this guard writes, creating or
// migrating it if need be.
func (db *DB) Ping() error {
	ctx, cancel := context.WithTimeout(context.Background(), db.timeout)
	defer cancel()
	return db.ready(ctx)
}

// schemaOutdated says whether err is schemaCheck's failure.
func schemaOutdated(err error) bool {
	var pe *pgconn.PgError
	if !errors.As(err, &pe) {
		return false
	}
	return pe.Code == "42P01" || pe.Code == "22P02" && strings.Contains(pe.Message, "guard schema version")
}

// migrate creates or upgrades the schema, under an advisory lock so that
// guards starting at once do it once.
func (db *DB) migrate(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, db.timeout)
	defer cancel()
	return pgx.BeginFunc(ctx, db.conn, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtext('guard:schema'));
			CREATE TABLE IF NOT EXISTS guard_schema (version int NOT NULL)`); err != nil {
			return fmt.Errorf("cannot set up guard's tables: %w", err)
		}
		var version int
		err := tx.QueryRow(ctx, `SELECT version FROM guard_schema`).Scan(&version)
		if errors.Is(err, pgx.ErrNoRows) {
			if _, err := tx.Exec(ctx, `INSERT INTO guard_schema VALUES (0)`); err != nil {
				return err
			}
		} else if err != nil {
			return err
		}
		if version > schemaVersion {
			return fmt.Errorf("the database's guard schema is version %d, newer than this guard knows (%d): upgrade guard", version, schemaVersion)
		}
		for v := version; v < schemaVersion; v++ {
			if _, err := tx.Exec(ctx, migrations[v]); err != nil {
				return fmt.Errorf("cannot migrate guard's tables to version %d: %w", v+1, err)
			}
		}
		_, err = tx.Exec(ctx, `UPDATE guard_schema SET version = $1`, schemaVersion)
		return err
	})
}

// update runs fn on the document name in one transaction: it takes the
// document's advisory lock, reads the document and the database's clock,
// and, if fn returns a new document, writes it; the events fn returns are
// appended in the same transaction. Two round trips: BEGIN, the lock and
// the read in the first; the writes and COMMIT in the second.
func (db *DB) update(name string, local time.Time, fn func(doc []byte, now time.Time) (out []byte, events []store.Event, aside []store.Aside, err error)) error {
	ctx, cancel := context.WithTimeout(context.Background(), db.timeout)
	defer cancel()
	// The lock and the read must be two statements: a statement reads from
	// the snapshot taken when it starts, and the read must start after the
	// lock is had, or it would miss the update before it.
	var batch pgx.Batch
	batch.Queue(`BEGIN`)
	batch.Queue(`SELECT pg_advisory_xact_lock(hashtext('guard:' || $1::text))`, name)
	batch.Queue(`SELECT (SELECT doc FROM guard_state WHERE name = $1), now()`, name)
	br, err := db.send(ctx, &batch)
	if err != nil {
		return busy(err)
	}
	var doc []byte
	var now time.Time
	_, err = br.Exec()
	if err == nil {
		_, err = br.Exec()
	}
	if err == nil {
		err = br.QueryRow().Scan(&doc, &now)
	}
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		db.rollback()
		return busy(err)
	}
	if db.LocalClock {
		now = local
	}
	db.relax = false
	out, events, aside, err := fn(doc, now)
	if err != nil {
		db.rollback()
		return err
	}
	batch = pgx.Batch{}
	if db.relax {
		// Only the counters of a closed, healthy circuit moved: the commit
		// need not wait for the WAL to reach the disk (README:
		// "Durability"). It is still atomic.
		batch.Queue(`SET LOCAL synchronous_commit = off`)
		db.relax = false
	}
	for _, a := range aside {
		batch.Queue(`INSERT INTO guard_quarantine VALUES ($1, $2, $3, $4, $5)`, now, name, a.Key, a.Err.Error(), string(a.Raw))
	}
	if out != nil {
		batch.Queue(`INSERT INTO guard_state (name, doc, updated) VALUES ($1, $2, $3)
			ON CONFLICT (name) DO UPDATE SET doc = EXCLUDED.doc, updated = EXCLUDED.updated`, name, string(out), now)
	}
	for _, e := range events {
		if e.Host == "" {
			e.Host = db.host
		}
		line, err := e.MarshalJSON()
		if err != nil {
			db.rollback()
			return err
		}
		batch.Queue(`INSERT INTO guard_events (ts, line) VALUES ($1, $2)`, e.Time, string(line))
	}
	batch.Queue(`COMMIT`)
	if err := db.conn.SendBatch(ctx, &batch).Close(); err != nil {
		db.rollback()
		return err
	}
	return nil
}

// rollback ends a transaction that failed, if the connection is still
// there to end it on.
func (db *DB) rollback() {
	if db.conn.IsClosed() || db.conn.PgConn().TxStatus() == 'I' {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), db.timeout)
	defer cancel()
	_, _ = db.conn.Exec(ctx, `ROLLBACK`)
}

// read returns the document name, without a transaction.
func (db *DB) read(name string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), db.timeout)
	defer cancel()
	var batch pgx.Batch
	batch.Queue(`SELECT doc FROM guard_state WHERE name = $1`, name)
	br, err := db.send(ctx, &batch)
	if err != nil {
		return nil, err
	}
	var doc []byte
	err = br.QueryRow().Scan(&doc)
	cerr := br.Close()
	if errors.Is(err, pgx.ErrNoRows) {
		doc, err = nil, nil // no document yet
	}
	if err == nil {
		err = cerr
	}
	return doc, err
}

// busy marks a lock that was not had in time as store.ErrBusy.
func busy(err error) error {
	if errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("%v: %w", err, store.ErrBusy)
	}
	return err
}

// put writes the document name, outside update's lock (a backup).
func (db *DB) put(name string, doc []byte, now time.Time) error {
	ctx, cancel := context.WithTimeout(context.Background(), db.timeout)
	defer cancel()
	_, err := db.exec(ctx, `INSERT INTO guard_state (name, doc, updated) VALUES ($1, $2, $3)
		ON CONFLICT (name) DO UPDATE SET doc = EXCLUDED.doc, updated = EXCLUDED.updated`, name, string(doc), now)
	return err
}
