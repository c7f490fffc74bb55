package postgres

import (
	"context"
	"sort"
	"strings"

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

func (t *tail) Next() ([]store.Event, error) {
	ctx, cancel := context.WithTimeout(context.Background(), t.db.timeout)
	defer cancel()
	if err := t.db.ready(ctx); err != nil {
		return nil, err
	}
	from := max(t.last-tailOverlap, 0)
	rows, err := t.db.conn.Query(ctx, `SELECT id, line FROM guard_events WHERE id > $1 ORDER BY id`, from)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var b strings.Builder
	var ids []int64
	last := t.last
	for rows.Next() {
		var id int64
		var line string
		if err := rows.Scan(&id, &line); err != nil {
			return nil, err
		}
		if t.seen[id] {
			continue
		}
		ids = append(ids, id)
		last = max(last, id)
		b.WriteString(line)
		b.WriteByte('\n')
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	res, err := store.ReadEvents(strings.NewReader(b.String()), t.keep)
	if err != nil {
		return nil, err
	}
	t.last = last
	for _, id := range ids {
		t.seen[id] = true
	}
	for id := range t.seen {
		if id <= t.last-tailOverlap {
			delete(t.seen, id)
		}
	}
	evs := res.Events
	sort.SliceStable(evs, func(i, j int) bool { return evs[i].Time.Before(evs[j].Time) })
	return evs, nil
}
