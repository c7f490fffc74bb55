package postgres

import (
	"context"

	"guard/internal/store"
)

// Tail returns the event log as a store.Tail: each Next reads only the
// rows added since the last (by id), so that 'guard serve' does not read
// the whole table on every redraw.
func (e Events) Tail(keep func(*store.Event) bool) store.Tail {
	return &tail{db: e.db, keep: keep, seen: map[int64]bool{}}
}

// A tail reads the rows of guard_events past the last id it read. Ids are
// taken in the order transactions ask for them, not the order they commit
// in, so a row can appear below an id already read: the last tailOverlap
// ids are read again, and the rows among them not seen yet are taken.
type tail struct {
	db   *DB
	keep func(*store.Event) bool
	last int64
	seen map[int64]bool // ids read above last-tailOverlap
}

const tailOverlap = 64

func (t *tail) Next(fn func(*store.Event)) error {
	ctx, cancel := context.WithTimeout(context.Background(), t.db.timeout)
	defer cancel()
	if err := t.db.ready(ctx); err != nil {
		return err
	}
	from := max(t.last-tailOverlap, 0)
	rows, err := t.db.conn.Query(ctx, `SELECT id, line FROM guard_events WHERE id > $1 ORDER BY id`, from)
	if err != nil {
		return err
	}
	defer rows.Close()
	last := t.last
	for rows.Next() {
		var id int64
		var line []byte
		if err := rows.Scan(&id, &line); err != nil {
			return err
		}
		if t.seen[id] {
			continue
		}
		t.seen[id] = true
		last = max(last, id)
		// A row that is not an event is skipped, as Read skips it.
		if e, err := store.ParseEvent(line); err == nil && (t.keep == nil || t.keep(&e)) {
			fn(&e)
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	t.last = last
	for id := range t.seen {
		if id <= t.last-tailOverlap {
			delete(t.seen, id)
		}
	}
	return nil
}
