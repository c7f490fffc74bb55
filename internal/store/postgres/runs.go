package postgres

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"

	"guard/internal/store"
	"guard/internal/supervise"
)

// Runs are the runs in flight, a row each of guard_runs, as a store.Runs.
//
// A row names its holder (host, pid, process start) and expires on the
// database's clock a lease after it was written; its holder extends it
// every third of a lease while the run goes on. So a holder that is gone
// (killed, its host down or cut off) is seen gone a lease later from every
// host, its slot freed, and its probe lease reaped; and nothing lives in a
// database session, so guard works through a transaction-mode pooler, and
// a slot outlives a restart of the server. A max_concurrent key's slots are
// its rows numbered 0 to N-1; a run of an unlimited key has a row of its
// own, only to list it.
type Runs struct {
	db *DB
	// Live checks a holder on this host, whose row a dead holder left: its
	// slot is taken over at once instead of a lease later.
	Live func(pid int, start uint64) bool
}

// Runs returns the runs.
func (db *DB) Runs() Runs { return Runs{db: db} }

// ListsAhead marks Runs as a store.Lister: the row of an unlimited key's
// run is written with the next round, the circuit's peek.
func (Runs) ListsAhead() {}

var _ store.Lister = Runs{}

// insertRun writes a run's row, as a slot of an unlimited key (its own
// number) or over an expired row.
const insertRun = `INSERT INTO guard_runs (key_hash, slot, key, host, pid, start, child, started, deadline, expires)
	VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, now() + make_interval(secs => $10))
	ON CONFLICT (key_hash, slot) DO UPDATE SET key = EXCLUDED.key, host = EXCLUDED.host, pid = EXCLUDED.pid,
		start = EXCLUDED.start, child = EXCLUDED.child, started = EXCLUDED.started, deadline = EXCLUDED.deadline,
		expires = EXCLUDED.expires
	WHERE guard_runs.expires <= now() OR (guard_runs.host, guard_runs.pid, guard_runs.start) = (EXCLUDED.host, EXCLUDED.pid, EXCLUDED.start)`

// takeSlot takes the first free slot of a limited key, counting from a
// random one so that callers spread over them: a slot with no row, or
// whose row expired.
const takeSlot = `INSERT INTO guard_runs (key_hash, slot, key, host, pid, start, child, started, deadline, expires)
	SELECT $1, s, $2, $3, $4, $5, 0, $6, $7, now() + make_interval(secs => $8)
	FROM generate_series(0, $9::bigint - 1) s
	WHERE NOT EXISTS (SELECT 1 FROM guard_runs r WHERE r.key_hash = $1 AND r.slot = s AND r.expires > now())
	ORDER BY (s + $9::bigint - $10::bigint) % $9::bigint LIMIT 1
	ON CONFLICT (key_hash, slot) DO UPDATE SET key = EXCLUDED.key, host = EXCLUDED.host, pid = EXCLUDED.pid,
		start = EXCLUDED.start, child = 0, started = EXCLUDED.started, deadline = EXCLUDED.deadline,
		expires = EXCLUDED.expires
	WHERE guard_runs.expires <= now()
	RETURNING slot`

// Acquire takes a slot; see store.Runs. With limit 0 it writes nothing
// yet: the run's row goes with the next round (store.Lister).
func (r Runs) Acquire(run store.Run, limit int, wait time.Duration, stop func() bool) (store.Slot, error) {
	lease := r.db.set.Lease
	if limit > 0 {
		lease = max(lease, r.db.minLease(run.KillGrace))
	}
	secs := lease.Seconds()
	var deadline *time.Time
	if !run.Deadline.IsZero() {
		deadline = &run.Deadline
	}
	h := hash(run.Key)
	if limit <= 0 {
		s := r.newSlot(run, h, -1-rand.Int64N(1<<62), false, lease, time.Now())
		r.db.queue(insertRun, h, s.num, run.Key, run.Holder.Host, run.Holder.PID, int64(run.Holder.Start), run.ChildPID, run.Started, deadline, secs)
		go s.keepAlive()
		return s, nil
	}
	first := rand.N(limit)
	until := time.Now().Add(wait)
	nap := time.Millisecond
	for {
		var num *int64
		sent := time.Now() // not later than the row's write: it expires a lease after that at the earliest
		var holders []store.Holder
		var nums []int64
		var children []int
		err := r.db.round(func(b *pgx.Batch) {
			b.Queue(takeSlot, h, run.Key, run.Holder.Host, run.Holder.PID, int64(run.Holder.Start), run.Started, deadline, secs, limit, first)
			b.Queue(`SELECT slot, host, pid, start, child FROM guard_runs WHERE key_hash = $1 AND slot >= 0 AND slot < $2 AND expires > now()`, h, limit)
		}, func(br pgx.BatchResults) error {
			rows, err := br.Query()
			if err != nil {
				return err
			}
			for rows.Next() {
				var n int64
				if err := rows.Scan(&n); err != nil {
					return err
				}
				num = &n
			}
			if err := rows.Err(); err != nil {
				return err
			}
			rows, err = br.Query()
			if err != nil {
				return err
			}
			for rows.Next() {
				var o store.Holder
				var n, start int64
				var child int
				if err := rows.Scan(&n, &o.Host, &o.PID, &start, &child); err != nil {
					return err
				}
				o.Start = uint64(start)
				holders, nums, children = append(holders, o), append(nums, n), append(children, child)
			}
			return rows.Err()
		}, false)
		if err != nil {
			return nil, err
		}
		if num != nil {
			s := r.newSlot(run, h, *num, true, lease, sent)
			go s.keepAlive()
			return s, nil
		}
		if r.freeDead(h, run.Holder.Host, holders, nums, children) {
			continue
		}
		if stop != nil && stop() {
			return nil, store.ErrStopped
		}
		left := time.Until(until)
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

// freeDead deletes the rows of holders on this host that are dead (a
// guard killed with SIGKILL leaves its row until it expires) and whose
// command is gone too, and reports whether it freed any. A command whose
// guard is gone may still run where it does not die with guard (macOS):
// its row is then left to expire. (The row names the command once its
// holder has extended it once; before that, a dead holder's command is
// known gone only where it dies with guard.)
func (r Runs) freeDead(h []byte, host string, holders []store.Holder, nums []int64, children []int) bool {
	if r.Live == nil {
		return false
	}
	freed := false
	for i, o := range holders {
		if o.Host != host || r.Live(o.PID, o.Start) {
			continue
		}
		if child := children[i]; (child > 0 && r.Live(child, 0)) || (child == 0 && !supervise.ChildDiesWithGuard) {
			continue // its command may still run: the slot is its
		}
		err := r.db.round(func(b *pgx.Batch) {
			b.Queue(`DELETE FROM guard_runs WHERE key_hash = $1 AND slot = $2 AND host = $3 AND pid = $4 AND start = $5`,
				h, nums[i], o.Host, o.PID, int64(o.Start))
		}, nil, false)
		freed = freed || err == nil
	}
	return freed
}

// List returns the runs in flight: those whose rows have not expired, and
// whose holder alive (if not nil) says is alive; see store.Runs.
func (r Runs) List(alive func(store.Holder) bool) ([]store.Run, error) {
	var out []store.Run
	err := r.db.round(func(b *pgx.Batch) {
		b.Queue(`SELECT key, host, pid, start, child, started, deadline FROM guard_runs WHERE expires > now() ORDER BY started, key`)
	}, func(br pgx.BatchResults) error {
		rows, err := br.Query()
		if err != nil {
			return err
		}
		for rows.Next() {
			var run store.Run
			var start int64
			var deadline *time.Time
			if err := rows.Scan(&run.Key, &run.Holder.Host, &run.Holder.PID, &start, &run.ChildPID, &run.Started, &deadline); err != nil {
				return err
			}
			run.Holder.Start = uint64(start)
			if deadline != nil {
				run.Deadline = *deadline
			}
			if alive == nil || alive(run.Holder) {
				out = append(out, run)
			}
		}
		return rows.Err()
	}, false)
	return out, err
}

// slot is a run's row, held by this process.
type slot struct {
	db      *DB
	keyHash []byte
	num     int64
	holder  store.Holder
	limited bool // a max_concurrent slot: another run may take it once it expires

	lease     time.Duration // how long the row lasts unless extended
	killGrace time.Duration // the run's, from SIGTERM to SIGKILL
	written   time.Time     // not later than the row's write

	child atomic.Int64 // the command's pid, once started
	once  sync.Once
	done  chan struct{}
	gone  bool // released (under db.mu)

	lost    chan struct{} // closed when the command must stop (see keepAlive)
	lostWhy string        // why, set before lost is closed
}

func (r Runs) newSlot(run store.Run, h []byte, num int64, limited bool, lease time.Duration, written time.Time) *slot {
	return &slot{db: r.db, keyHash: h, num: num, holder: run.Holder, limited: limited,
		lease: lease, killGrace: run.KillGrace, written: written,
		done: make(chan struct{}), lost: make(chan struct{})}
}

var _ store.Losing = (*slot)(nil)

// Lost is closed when the run must stop its command: its row could not be
// extended, and another run may take the slot once it expires
// (store.Losing).
func (s *slot) Lost() <-chan struct{} { return s.lost }

// LostWhy says why Lost was closed.
func (s *slot) LostWhy() string { return s.lostWhy }

// Lease returns how long the slot's row lasts unless extended, and the
// lease the database's URL asked for (guard_lease), when that was too
// short for the run's kill_grace and a round's time limit (see
// DB.minLease). The default lease is raised as need be without a word: the
// user asked for nothing.
func (s *slot) Lease() (given, asked time.Duration) {
	if !s.limited || s.lease == s.db.set.Lease || !s.db.leaseAsked {
		return s.lease, 0
	}
	return s.lease, s.db.set.Lease
}

// RoundLimit is how long one round of statements may take before guard
// gives up on it: lock_timeout plus a second for the statements
// (statement_timeout), and connect_timeout again for the network and a
// reconnection. docs/postgres.md says the same.
func (db *DB) RoundLimit() time.Duration { return db.statementTimeout() + db.cfg.ConnectTimeout }

// RoundLimit is the slot's database's (store.Losing).
func (s *slot) RoundLimit() time.Duration { return s.db.RoundLimit() }

// stopMargin is how long before its row expires a holder that cannot
// extend it has its command dead: SIGKILL comes then.
func stopMargin(lease time.Duration) time.Duration { return min(lease/10, time.Second) }

// minLease is the shortest lease of a max_concurrent slot whose command
// gets killGrace between SIGTERM and SIGKILL: one extension, a third of a
// lease in, may take a whole round before the holder must give up, and
// SIGTERM, the grace and the stop margin must all fit before the row
// expires (1.5 x (round + grace + margin)). The defaults (a 4s round, a
// 5s grace) need 15s, the default lease.
func (db *DB) minLease(killGrace time.Duration) time.Duration {
	need := (db.RoundLimit() + killGrace + time.Second) * 3 / 2
	return (need + time.Second - 1).Truncate(time.Second) // up to a whole second
}

// Started records the command's pid; it reaches the row with the next
// extension of its lease (so that it costs the call no round trip).
func (s *slot) Started(childPID int) { s.child.Store(int64(childPID)) }

// deleteStmt is the release of the row, if it is still this holder's.
func (s *slot) deleteStmt() statement {
	return statement{sql: `DELETE FROM guard_runs WHERE key_hash = $1 AND slot = $2 AND host = $3 AND pid = $4 AND start = $5`,
		args: []any{s.keyHash, s.num, s.holder.Host, s.holder.PID, int64(s.holder.Start)}}
}

// ReleaseLater releases the slot with the next round (store.Queued).
func (s *slot) ReleaseLater() {
	s.stop()
	s.db.mu.Lock()
	defer s.db.mu.Unlock()
	if !s.gone {
		s.gone = true
		st := s.deleteStmt()
		st.withWrite = true // with the outcome's write, never before it (faults #1)
		s.db.pending = append(s.db.pending, st)
	}
}

// released marks the slot released by a write that carried its release
// (circuitTx.ReleaseSlot): Release then does nothing.
func (s *slot) released() {
	s.stop()
	s.db.mu.Lock()
	s.gone = true
	s.db.mu.Unlock()
}

// Release frees the slot now, or sends the release ReleaseLater queued if
// no round has carried it.
func (s *slot) Release() {
	s.ReleaseLater()
	s.db.flush()
}

func (s *slot) stop() { s.once.Do(func() { close(s.done) }) }

// flush sends the pending statements, if there are any, in a round of
// their own.
func (db *DB) flush() {
	db.mu.Lock()
	n := len(db.pending)
	db.mu.Unlock()
	if n > 0 {
		_ = db.roundWrite(nil, nil, false)
	}
}

// keepAlive extends the slot's row every third of a lease while the run
// goes on. Each extension is a round of its own, in the background: a
// round that hangs (the database cut off) delays no decision. If the row
// is gone (expired, taken) the run has lost its slot. If the last
// successful extension is so old that the row may expire before the
// command could be stopped, the run gives it up: for a max_concurrent slot
// the command is then stopped (Lost: SIGTERM at once, SIGKILL kill_grace
// later, a margin before the row can expire, on timers that do not wait
// on a round), so that two runs never hold one slot (faults #3). A run of
// an unlimited key goes on, only unlisted.
func (s *slot) keepAlive() {
	period := s.lease / 3
	lastOK := s.written
	stopAt := func() time.Time { return lastOK.Add(s.lease - stopMargin(s.lease) - s.killGrace) }
	tick := time.NewTimer(period)
	defer tick.Stop()
	giveUp := time.NewTimer(time.Until(stopAt()))
	defer giveUp.Stop()
	type result struct {
		sent     time.Time
		extended bool
		err      error
	}
	results := make(chan result, 1)
	extending := false
	for {
		select {
		case <-s.done:
			return
		case <-tick.C:
			if !extending {
				extending = true
				go func() {
					sent := time.Now()
					extended, err := s.extend()
					results <- result{sent, extended, err}
				}()
			}
		case r := <-results:
			extending = false
			switch {
			case r.err == nil && r.extended:
				lastOK = r.sent
				giveUp.Reset(time.Until(stopAt()))
				tick.Reset(period)
			case r.err == nil:
				s.giveUp("its slot's row is gone (expired, or taken by another run)")
				return
			default:
				tick.Reset(min(time.Second, period))
			}
		case <-giveUp.C:
			s.giveUp(fmt.Sprintf("its max_concurrent slot could not be extended (the database has not answered for %s), and another run may take it once its %s lease runs out",
				time.Since(lastOK).Round(100*time.Millisecond), s.lease))
			return
		}
	}
}

// extend extends the slot's row by a lease, with the command's pid.
func (s *slot) extend() (extended bool, err error) {
	err = s.db.round(func(b *pgx.Batch) {
		b.Queue(`UPDATE guard_runs SET expires = now() + make_interval(secs => $6), child = $7
			WHERE key_hash = $1 AND slot = $2 AND host = $3 AND pid = $4 AND start = $5 AND expires > now()
			RETURNING 1`, s.keyHash, s.num, s.holder.Host, s.holder.PID, int64(s.holder.Start), s.lease.Seconds(), s.child.Load())
	}, func(br pgx.BatchResults) error {
		rows, err := br.Query()
		if err != nil {
			return err
		}
		for rows.Next() {
			extended = true
		}
		return rows.Err()
	}, false)
	return extended, err
}

// giveUp tells the run to stop its command, for a max_concurrent slot (a
// run of an unlimited key goes on, unlisted).
func (s *slot) giveUp(why string) {
	select {
	case <-s.done:
		return // released meanwhile
	default:
	}
	if s.limited {
		s.lostWhy = why
		close(s.lost)
	}
}
