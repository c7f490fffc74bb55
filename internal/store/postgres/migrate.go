package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"time"

	"github.com/jackc/pgx/v5"

	"guard/internal/store/cooldownstate"
)

// migrateV1 moves the state of schema version 1 (a document a state in
// guard_state, the runs in flight in guard_slots under session advisory
// locks) into the rows of version 2, inside migrate's transaction, with
// nothing lost: every key's entry (its probe leases with it), the totals,
// every service's budget and stamp, the runs still in flight (given a
// lease from now: their holders, older guards, do not extend them), and
// the events, which schemaV2 has indexed where they were. The documents
// themselves are kept, renamed hooks.v1 and cooldown.v1.
func migrateV1(ctx context.Context, tx pgx.Tx, set Settings) error {
	var now time.Time
	if err := tx.QueryRow(ctx, `SELECT now()`).Scan(&now); err != nil {
		return err
	}
	var b pgx.Batch
	for _, name := range []string{hooksShell, cooldownShell} {
		var doc string
		err := tx.QueryRow(ctx, `SELECT doc FROM guard_state WHERE name = $1`, name).Scan(&doc)
		if errors.Is(err, pgx.ErrNoRows) {
			continue
		}
		if err != nil {
			return err
		}
		b.Queue(`UPDATE guard_state SET name = $1 WHERE name = $2`, name+".v1", name)
		if name == cooldownShell {
			d := &cooldownstate.Document{}
			if err := json.Unmarshal([]byte(doc), d); err != nil {
				// Not guard's to fix: kept as cooldown.v1, and the state
				// starts afresh, as the file's would.
				b.Queue(`INSERT INTO guard_quarantine VALUES ($1, 'cooldown', '(the whole cooldown state)', $2, $3)`, now, err.Error(), doc)
				continue
			}
			if err := queueCooldown(&b, d); err != nil {
				return err
			}
			continue
		}
		// A document that does not parse is kept as hooks.v1 and in
		// guard_quarantine, and the state starts afresh, as the file's would.
		if err := queueHooks(&b, []byte(doc), set.Retention, now); err != nil {
			b.Queue(`INSERT INTO guard_quarantine VALUES ($1, 'hooks', '(the whole hook state)', $2, $3)`, now, err.Error(), doc)
		}
	}
	// The runs in flight: slots whose session lock is still held.
	rows, err := tx.Query(ctx, `SELECT s.key, s.slot, s.host, s.pid, s.start, s.child, s.started, s.deadline
		FROM guard_slots s JOIN pg_locks l ON l.locktype = 'advisory' AND l.granted
			AND l.classid = hashtext('guard-slot:' || s.key)::oid AND l.objid = s.slot::oid AND l.objsubid = 2`)
	if err != nil {
		return err
	}
	type slotRow struct {
		key        string
		slot       int64
		host       string
		pid, child int32
		start      int64
		started    time.Time
		deadline   *time.Time
	}
	var slots []slotRow
	for rows.Next() {
		var s slotRow
		if err := rows.Scan(&s.key, &s.slot, &s.host, &s.pid, &s.start, &s.child, &s.started, &s.deadline); err != nil {
			return err
		}
		slots = append(slots, s)
	}
	if err := rows.Err(); err != nil {
		return err
	}
	lease := set.Lease
	if lease <= 0 {
		lease = DefaultLease
	}
	for _, s := range slots {
		if s.slot >= 1<<20 { // an unlimited key's: a number of its own
			s.slot = -1 - rand.Int64N(1<<62)
		}
		b.Queue(insertRun, hash(s.key), s.slot, s.key, s.host, s.pid, s.start, s.child, s.started, s.deadline, lease.Seconds())
	}
	b.Queue(`DROP TABLE guard_slots`)
	return tx.SendBatch(ctx, &b).Close()
}
