package postgres

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// schemaVersion is the version of the schema this guard writes.
const schemaVersion = 2

// schemaV1 is the schema of the first guard on PostgreSQL (one document
// per state), which migrateV1 moves to the rows of schemaV2. It is made
// first on an empty database too, so that one path leads to version 2.
const schemaV1 = `CREATE TABLE IF NOT EXISTS guard_state (
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
	);`

// schemaV2 is one row per key, per service and per run, keyed by a hash of
// the key (a btree holds only so much of a key; a hash always fits):
//
//   - guard_circuits: a key's entry of hook_state.json, its version for
//     compare-and-set, whether it is open (for status's count), the
//     lifetime totals counted for it, and when it may be pruned.
//   - guard_totals: the totals of pruned keys, spread over a few rows so
//     that no one row is written by every prune.
//   - guard_budgets and guard_stamps: a service's entry of cooldown.json,
//     and the state's other members (last_run, ...).
//   - guard_runs: the runs in flight, a row each with its holder and an
//     expiry on the database's clock that the holder extends while it
//     runs; max_concurrent slots are the rows numbered 0 to N-1.
//   - guard_events: the event log, its lines with what the queries of
//     status, report and log look them up by; ids are random, so that no
//     sequence is written by every call.
//   - guard_state: the rest of each document (its unknown members), and
//     the states import and migration replaced, kept.
const schemaV2 = `CREATE TABLE guard_circuits (
		key_hash    bytea PRIMARY KEY,
		key         text NOT NULL,
		entry       text NOT NULL,
		version     bigint NOT NULL,
		open        boolean NOT NULL DEFAULT false,
		executions  bigint NOT NULL DEFAULT 0,
		failures    bigint NOT NULL DEFAULT 0,
		updated     timestamptz NOT NULL,
		prune_after timestamptz
	);
	CREATE INDEX guard_circuits_prune ON guard_circuits (prune_after) WHERE prune_after IS NOT NULL;
	CREATE TABLE guard_totals (
		bucket     int PRIMARY KEY,
		executions bigint NOT NULL,
		failures   bigint NOT NULL
	);
	CREATE TABLE guard_budgets (
		key_hash bytea PRIMARY KEY,
		service  text NOT NULL,
		entry    text NOT NULL,
		version  bigint NOT NULL,
		keeps_timestamps boolean NOT NULL DEFAULT false
	);
	CREATE TABLE guard_stamps (
		name  text PRIMARY KEY,
		value text NOT NULL
	);
	CREATE TABLE guard_runs (
		key_hash bytea NOT NULL,
		slot     bigint NOT NULL,
		key      text NOT NULL,
		host     text NOT NULL,
		pid      int NOT NULL,
		start    bigint NOT NULL,
		child    int NOT NULL DEFAULT 0,
		started  timestamptz NOT NULL,
		deadline timestamptz,
		expires  timestamptz NOT NULL,
		PRIMARY KEY (key_hash, slot)
	);
	CREATE INDEX guard_runs_expires ON guard_runs (expires);
	ALTER TABLE guard_events ALTER COLUMN id DROP DEFAULT,
		ADD COLUMN seq int NOT NULL DEFAULT 0,
		ADD COLUMN event text,
		ADD COLUMN key_hash bytea;
	DROP SEQUENCE IF EXISTS guard_events_id_seq;
	UPDATE guard_events SET event = line::jsonb->>'event',
		key_hash = CASE WHEN line::jsonb ? 'key' THEN sha256(convert_to(line::jsonb->>'key', 'UTF8')) END;
	UPDATE guard_events SET event = '' WHERE event IS NULL;
	ALTER TABLE guard_events ALTER COLUMN event SET NOT NULL;
	CREATE INDEX guard_events_ts ON guard_events (ts);
	CREATE INDEX guard_events_key ON guard_events (key_hash, ts);
	CREATE INDEX guard_events_event ON guard_events (event, ts);`

// tables are guard's tables, and what the role hooks run under may do
// with each.
var tables = []struct{ name, rights string }{
	{"guard_schema", "SELECT"},
	{"guard_circuits", "SELECT, INSERT, UPDATE, DELETE"},
	{"guard_totals", "SELECT, INSERT, UPDATE"},
	{"guard_budgets", "SELECT, INSERT, UPDATE, DELETE"},
	{"guard_stamps", "SELECT, INSERT, UPDATE, DELETE"},
	{"guard_runs", "SELECT, INSERT, UPDATE, DELETE"},
	{"guard_events", "SELECT, INSERT, UPDATE, DELETE"}, // UPDATE: pruning locks the rows it deletes (FOR UPDATE SKIP LOCKED)
	{"guard_state", "SELECT, INSERT, UPDATE"},
	{"guard_quarantine", "INSERT"},
}

// Grants returns the statements that let role use guard's tables in
// schema once they exist, and nothing more: no CREATE, no right on
// anything else.
func Grants(role, schema string) []string {
	r := ident(role)
	out := []string{fmt.Sprintf("GRANT USAGE ON SCHEMA %s TO %s;", ident(schema), r)}
	for _, t := range tables {
		out = append(out, fmt.Sprintf("GRANT %s ON %s TO %s;", t.rights, t.name, r))
	}
	return out
}

// ident quotes an identifier where it needs quoting.
func ident(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyz0123456789_") == "" && (s[0] < '0' || s[0] > '9') {
		return s
	}
	return pgx.Identifier{s}.Sanitize()
}

// schemaOutdated reports whether the schema check failed because there is
// no schema yet or it is another version.
func schemaOutdated(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && (pe.Code == "42P01" || (pe.Code == "22P02" && strings.Contains(pe.Message, "guard schema version")))
}

// Ping checks that the schema is this guard's (creating or migrating it
// if need be) and that the role may use it.
func (db *DB) Ping() error {
	return db.round(func(b *pgx.Batch) {
		for _, t := range tables {
			// Reads that take no lock and find nothing, but need the right.
			switch {
			case strings.Contains(t.rights, "SELECT"):
				b.Queue(`SELECT 1 FROM ` + t.name + ` WHERE false`)
			case t.name == "guard_quarantine":
				b.Queue(`INSERT INTO guard_quarantine SELECT now(), '', '', '', '' WHERE false`)
			}
		}
	}, nil, false)
}

// Init creates or migrates guard's schema (what the first use does when the
// role may create tables), and grants role, if not "", what hooks need.
// An administrator runs it once ('guard state init'); it is idempotent.
func (db *DB) Init(role string) error {
	db.mu.Lock()
	defer db.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	if err := db.migrate(ctx); err != nil {
		return db.explain(ctx, err)
	}
	db.checked = true
	if role == "" {
		return nil
	}
	schema := "public"
	if err := db.conn.QueryRow(ctx, `SELECT current_schema()`).Scan(&schema); err != nil {
		return err
	}
	for _, g := range Grants(role, schema) {
		if _, err := db.conn.Exec(ctx, g); err != nil {
			return fmt.Errorf("%s: %w", g, err)
		}
	}
	return nil
}

// migrate creates the schema or brings it to this guard's version, in one
// transaction that locks guard_schema: every other guard's schema check
// waits for it (at most its lock timeout, and then runs its hook
// unguarded), and then finds the new version. Table locks need rights on
// the table, so a role that may only connect cannot take this one.
func (db *DB) migrate(ctx context.Context) error {
	for try := 0; ; try++ {
		err := db.migrateOnce(ctx)
		var pe *pgconn.PgError
		// Two first uses at once: CREATE TABLE IF NOT EXISTS is not safe
		// against another one in flight (the loser fails on the catalog's
		// unique index); the winner's schema is there the second time.
		if try < 3 && errors.As(err, &pe) && (pe.Code == "23505" || pe.Code == "42P07" || pe.Code == "40P01") {
			continue
		}
		return err
	}
}

func (db *DB) migrateOnce(ctx context.Context) error {
	return pgx.BeginFunc(ctx, db.conn, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT set_config('lock_timeout', $1, true), set_config('statement_timeout', '0', true)`, ms(db.set.LockTimeout)); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `CREATE TABLE IF NOT EXISTS guard_schema (version int NOT NULL)`); err != nil {
			var pe *pgconn.PgError
			if errors.As(err, &pe) && pe.Code == "42501" {
				return fmt.Errorf("cannot create guard's tables: %w (an administrator creates them once with 'guard state init')", err)
			}
			return err
		}
		if _, err := tx.Exec(ctx, `LOCK TABLE guard_schema IN ACCESS EXCLUSIVE MODE`); err != nil {
			return err
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
		if version == schemaVersion {
			return nil
		}
		if version < 1 {
			if _, err := tx.Exec(ctx, schemaV1); err != nil {
				return fmt.Errorf("cannot create guard's tables: %w", err)
			}
		}
		if _, err := tx.Exec(ctx, schemaV2); err != nil {
			return fmt.Errorf("cannot migrate guard's tables to version 2: %w", err)
		}
		if err := migrateV1(ctx, tx, db.set); err != nil {
			return fmt.Errorf("cannot move the state into guard's version 2 tables: %w", err)
		}
		_, err = tx.Exec(ctx, `UPDATE guard_schema SET version = $1`, schemaVersion)
		return err
	})
}
