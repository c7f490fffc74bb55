package postgres

import (
	"time"

	"github.com/jackc/pgx/v5"

	"guard/internal/store"
)

// Tail returns the event log as a store.Tail: each Next reads only the
// rows added since the last, so that 'guard serve' does not read the whole
// table on every redraw.
func (e Events) Tail(keep func(*store.Event) bool) store.Tail {
	return &tail{db: e.db, keep: keep, seen: map[int64]time.Time{}}
}

// A tail reads the rows of guard_events from a little before the newest
// time it has read. An event's time is taken when its transaction decides,
// and a transaction commits at most a statement timeout later, so a row
// can appear below a time already read: the last tailOverlap are read
// again, and the rows among them not seen yet (by id) are taken.
type tail struct {
	db   *DB
	keep func(*store.Event) bool
	last time.Time           // the newest event time read
	seen map[int64]time.Time // ids read within tailOverlap of last
}

// tailOverlap is how far back each Next reads again: more than any
// statement may take (the session's statement_timeout is lock_timeout and
// a second), so that no late commit is missed.
const tailOverlap = time.Minute

func (t *tail) Next(fn func(*store.Event)) error {
	from := t.last.Add(-tailOverlap)
	var got []store.Event
	last := t.last
	err := t.db.round(func(b *pgx.Batch) {
		b.Queue(`SELECT id, ts, line FROM guard_events WHERE ts >= $1 ORDER BY ts, seq, id`, from)
	}, func(br pgx.BatchResults) error {
		rows, err := br.Query()
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var id int64
			var ts time.Time
			var line []byte
			if err := rows.Scan(&id, &ts, &line); err != nil {
				return err
			}
			if _, ok := t.seen[id]; ok {
				continue
			}
			t.seen[id] = ts
			if ts.After(last) {
				last = ts
			}
			// A row that is not an event is skipped, as Read skips it.
			if e, err := store.ParseEvent(line); err == nil && (t.keep == nil || t.keep(&e)) {
				got = append(got, e)
			}
		}
		return rows.Err()
	}, false)
	if err != nil {
		return err
	}
	t.last = last
	for id, ts := range t.seen {
		if ts.Before(t.last.Add(-tailOverlap)) {
			delete(t.seen, id)
		}
	}
	for i := range got {
		fn(&got[i])
	}
	return nil
}
