package pgstore

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"guard/backend"
	"guard/eventlog"
	"guard/store"
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

	// LocalClock makes decisions on the time the caller gives instead of
	// the database's: for tests that play time forward.
	LocalClock bool
}

// Open connects to the database at url within connectTimeout (if the URL
// does not set connect_timeout itself) and makes sure its schema is the one
// this guard writes. The password may come from the URL, PGPASSWORD or
// ~/.pgpass, as libpq takes it.
func Open(ctx context.Context, rawURL string, connectTimeout time.Duration) (*DB, error) {
	cfg, err := pgx.ParseConfig(rawURL)
	if err != nil {
		return nil, fmt.Errorf("%s is not a PostgreSQL URL guard can use: %v", backend.Redact(rawURL), err)
	}
	if !strings.Contains(rawURL, "connect_timeout") && connectTimeout > 0 {
		cfg.ConnectTimeout = connectTimeout
	}
	db := &DB{where: backend.Redact(rawURL), timeout: max(cfg.ConnectTimeout, time.Second) * 5, held: map[string]bool{}}
	if db.conn, err = pgx.ConnectConfig(ctx, cfg); err != nil {
		return nil, fmt.Errorf("cannot reach the database at %s: %w", db.where, unwrapConnect(err))
	}
	if err := db.migrate(ctx); err != nil {
		db.conn.Close(ctx)
		return nil, err
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

// Close closes the connection, releasing any slot it holds.
func (db *DB) Close() { db.conn.Close(context.Background()) }

// migrate creates or upgrades the schema, under an advisory lock so that
// guards starting at once do it once.
func (db *DB) migrate(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, db.timeout)
	defer cancel()
	var version int
	if db.conn.QueryRow(ctx, `SELECT version FROM guard_schema`).Scan(&version) == nil && version == schemaVersion {
		return nil // the common case: one round trip
	}
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
// appended in the same transaction.
func (db *DB) update(name string, local time.Time, fn func(doc []byte, now time.Time) (out []byte, events []eventlog.Event, aside []store.Aside, err error)) error {
	ctx, cancel := context.WithTimeout(context.Background(), db.timeout)
	defer cancel()
	return pgx.BeginFunc(ctx, db.conn, func(tx pgx.Tx) error {
		// One round trip: the lock, then the document and the database's
		// clock, pipelined. They must be two statements: a statement reads
		// from the snapshot taken when it starts, and the read must start
		// after the lock is had, or it would miss the update before it.
		var doc []byte
		var now time.Time
		var batch pgx.Batch
		batch.Queue(`SELECT pg_advisory_xact_lock(hashtext('guard:' || $1::text))`, name)
		batch.Queue(`SELECT (SELECT doc FROM guard_state WHERE name = $1), now()`, name)
		br := tx.SendBatch(ctx, &batch)
		if _, err := br.Exec(); err != nil {
			br.Close()
			return busy(err)
		}
		err := br.QueryRow().Scan(&doc, &now)
		if cerr := br.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return busy(err)
		}
		if db.LocalClock {
			now = local
		}
		out, events, aside, err := fn(doc, now)
		if err != nil {
			return err
		}
		batch = pgx.Batch{}
		for _, a := range aside {
			batch.Queue(`INSERT INTO guard_quarantine VALUES ($1, $2, $3, $4, $5)`, now, name, a.Key, a.Err.Error(), string(a.Raw))
		}
		if out != nil {
			batch.Queue(`INSERT INTO guard_state (name, doc, updated) VALUES ($1, $2, $3)
				ON CONFLICT (name) DO UPDATE SET doc = EXCLUDED.doc, updated = EXCLUDED.updated`, name, string(out), now)
		}
		for _, e := range events {
			line, err := e.MarshalJSON()
			if err != nil {
				return err
			}
			batch.Queue(`INSERT INTO guard_events (ts, line) VALUES ($1, $2)`, e.Time, string(line))
		}
		if batch.Len() == 0 {
			return nil
		}
		return tx.SendBatch(ctx, &batch).Close()
	})
}

// read returns the document name, without a transaction.
func (db *DB) read(name string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), db.timeout)
	defer cancel()
	var doc []byte
	err := db.conn.QueryRow(ctx, `SELECT doc FROM guard_state WHERE name = $1`, name).Scan(&doc)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
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
	_, err := db.conn.Exec(ctx, `INSERT INTO guard_state (name, doc, updated) VALUES ($1, $2, $3)
		ON CONFLICT (name) DO UPDATE SET doc = EXCLUDED.doc, updated = EXCLUDED.updated`, name, string(doc), now)
	return err
}
