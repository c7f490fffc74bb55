package postgres

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"

	"guard/internal/store"
)

// Runs are max_concurrent slots in the database, as a store.Runs. A slot
// is a session-level advisory lock on (the key, the slot's number), held on
// this guard's connection while its run goes on, and a row of guard_slots
// that describes the run. The lock goes when the connection does, however
// guard ends (SIGKILL, a host gone); a row whose lock nobody holds lists
// nothing.
type Runs struct{ db *DB }

// Runs returns the slots.
func (db *DB) Runs() Runs { return Runs{db} }

// unlimitedBase numbers the slots of unlimited keys, apart from the
// limited ones; maxUnlimited bounds how many a key lists.
const (
	unlimitedBase = 1 << 20
	maxUnlimited  = 1024
)

// Acquire takes a slot; see store.Runs.
func (r Runs) Acquire(run store.Run, limit int, wait time.Duration, stop func() bool) (store.Slot, error) {
	n, base, first := limit, 0, 0
	if limit <= 0 {
		n, base = maxUnlimited, unlimitedBase
	} else {
		first = rand.N(limit) // spread callers over the slots
	}
	deadline := time.Now().Add(wait)
	nap := time.Millisecond
	for {
		for i := range n {
			slot := base + (first+i)%n
			s, ok, err := r.try(run, slot)
			if err != nil || ok {
				return s, err
			}
		}
		if limit <= 0 {
			return nil, store.ErrFull
		}
		if stop != nil && stop() {
			return nil, store.ErrStopped
		}
		left := time.Until(deadline)
		if left <= 0 {
			return nil, store.ErrFull
		}
		time.Sleep(min(left, nap/2+rand.N(nap)))
		nap = min(2*nap, 50*time.Millisecond)
		if stop != nil && stop() {
			return nil, store.ErrStopped
		}
	}
}

// try takes slot for run if it is free.
func (r Runs) try(run store.Run, slot int) (store.Slot, bool, error) {
	id := fmt.Sprintf("%s\x00%d", run.Key, slot)
	if r.db.held[id] {
		return nil, false, nil // held by this very connection
	}
	ctx, cancel := context.WithTimeout(context.Background(), r.db.timeout)
	defer cancel()
	var deadline *time.Time
	if !run.Deadline.IsZero() {
		deadline = &run.Deadline
	}
	// One round trip: the row is written only if the lock was had.
	tag, err := r.db.exec(ctx, `INSERT INTO guard_slots (key, slot, host, pid, start, child, started, deadline)
		SELECT $1, $2, $3, $4, $5, $6, $7, $8 WHERE pg_try_advisory_lock(hashtext('guard-slot:' || $1::text), $2)
		ON CONFLICT (key, slot) DO UPDATE SET host = $3, pid = $4, start = $5, child = $6, started = $7, deadline = $8`,
		run.Key, slot, run.Holder.Host, run.Holder.PID, int64(run.Holder.Start), run.ChildPID, run.Started, deadline)
	if err != nil || tag.RowsAffected() == 0 {
		return nil, false, err
	}
	r.db.held[id] = true
	return &slotLock{db: r.db, key: run.Key, slot: slot, id: id}, true, nil
}

// List returns the runs whose slot's lock is held; see store.Runs. Their
// holders are alive as far as the database knows: their connections are.
func (r Runs) List(alive func(store.Holder) bool) ([]store.Run, error) {
	ctx, cancel := context.WithTimeout(context.Background(), r.db.timeout)
	defer cancel()
	if err := r.db.ready(ctx); err != nil {
		return nil, err
	}
	rows, err := r.db.conn.Query(ctx, `SELECT s.key, s.host, s.pid, s.start, s.child, s.started, s.deadline
		FROM guard_slots s JOIN pg_locks l ON l.locktype = 'advisory' AND l.granted
			AND l.classid = hashtext('guard-slot:' || s.key)::oid AND l.objid = s.slot::oid AND l.objsubid = 2
		ORDER BY s.started`)
	if err != nil {
		return nil, err
	}
	var out []store.Run
	for rows.Next() {
		var run store.Run
		var start int64
		var deadline *time.Time
		if err := rows.Scan(&run.Key, &run.Holder.Host, &run.Holder.PID, &start, &run.ChildPID, &run.Started, &deadline); err != nil {
			return nil, err
		}
		run.Holder.Start = uint64(start)
		if deadline != nil {
			run.Deadline = *deadline
		}
		out = append(out, run)
	}
	return out, rows.Err()
}

// slotLock is a slot held on this connection.
type slotLock struct {
	db   *DB
	key  string
	slot int
	id   string
}

func (s *slotLock) Started(childPID int) {
	ctx, cancel := context.WithTimeout(context.Background(), s.db.timeout)
	defer cancel()
	_, _ = s.db.exec(ctx, `UPDATE guard_slots SET child = $3 WHERE key = $1 AND slot = $2`, s.key, s.slot, childPID)
}

// Release frees the slot. A slot of an unlimited key (which only lists
// the run) is freed on the connection's next round trip, or when it
// closes, whichever comes first: a guard's last round trip need not wait
// for it. A max_concurrent slot is freed at once: the server ends a closed
// connection's session a moment later, and a call that came just after
// must not find the slot still taken.
func (s *slotLock) Release() {
	release := []statement{
		{`DELETE FROM guard_slots WHERE key = $1 AND slot = $2`, []any{s.key, s.slot}},
		{`SELECT pg_advisory_unlock(hashtext('guard-slot:' || $1::text), $2)`, []any{s.key, s.slot}},
	}
	delete(s.db.held, s.id)
	s.db.pending = append(s.db.pending, release...)
	if s.slot < unlimitedBase {
		ctx, cancel := context.WithTimeout(context.Background(), s.db.timeout)
		defer cancel()
		_ = s.db.ready(ctx)
	}
}
