package postgres

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"guard/internal/store"
)

// queueEvent queues the insert of e, written as line, the seqth event of
// its transaction (which keeps their order among events of one instant).
// Its time is kept to the millisecond, as the line has it, so that the
// server's bounds and the line agree.
func queueEvent(b *pgx.Batch, e store.Event, line []byte, seq int) {
	var key []byte
	if e.Key != "" {
		key = hash(e.Key)
	}
	b.Queue(`INSERT INTO guard_events (id, ts, seq, event, key_hash, line) VALUES ($1, $2, $3, $4, $5, $6)`,
		newID(), e.Time.Truncate(time.Millisecond), seq, e.Event, key, string(line))
}

// Events is the event log in the database (the table guard_events), as a
// store.Events and a store.Querier.
type Events struct{ db *DB }

// Events returns the event log.
func (db *DB) Events() Events { return Events{db} }

// Append inserts events in one round (store.Appender), outside any
// update of the state.
func (e Events) Append(events ...store.Event) error {
	var b pgx.Batch
	for i, ev := range events {
		ev = e.db.withHost(ev)
		line, err := ev.MarshalJSON()
		if err != nil {
			return err
		}
		queueEvent(&b, ev, line, i)
	}
	return e.db.round(func(rb *pgx.Batch) { rb.QueuedQueries = append(rb.QueuedQueries, b.QueuedQueries...) }, nil, true)
}

// Read returns the events keep accepts, in time order.
func (e Events) Read(keep func(*store.Event) bool) (store.ReadResult, error) {
	return e.Query(store.Query{Keep: keep})
}

// queryBatch is how many rows a query reads a round trip.
const queryBatch = 2000

// Query returns the events q picks, in time order (store.Querier). The
// server picks them by the indexes of guard_events (a key's hash, an
// event's name, the time) and hands them over newest first, a batch of
// rows at a time; guard stops reading once it has q's Limit past its
// Offset, so that the memory a query takes is bounded by its limit, however
// many events the table holds.
func (e Events) Query(q store.Query) (store.ReadResult, error) {
	var where []string
	var args []any
	arg := func(v any) string {
		args = append(args, v)
		return fmt.Sprintf("$%d", len(args))
	}
	if len(q.Keys) > 0 {
		var hashes [][]byte
		for _, k := range q.Keys {
			hashes = append(hashes, hash(k))
		}
		where = append(where, "key_hash = ANY("+arg(hashes)+")")
	}
	if len(q.Events) > 0 {
		where = append(where, "event = ANY("+arg(q.Events)+")")
	}
	if !q.Since.IsZero() {
		where = append(where, "ts >= "+arg(q.Since))
	}
	if !q.Until.IsZero() {
		where = append(where, "ts < "+arg(q.Until))
	}
	sql := `SELECT ts, seq, id, line FROM guard_events`
	if len(where) > 0 {
		sql += ` WHERE ` + strings.Join(where, " AND ")
	}
	want := 0 // events to find, newest first: 0 for all
	if q.Limit > 0 {
		want = q.Limit + q.Offset
	}
	var res store.ReadResult
	// The last row read, where the next page starts.
	var last struct {
		ts  time.Time
		seq int32
		id  int64
	}
	for paged := false; ; paged = true {
		page := sql
		pargs := slices.Clone(args)
		if paged {
			n := len(pargs)
			cond := fmt.Sprintf("(ts, seq, id) < ($%d, $%d, $%d)", n+1, n+2, n+3)
			if len(where) > 0 {
				page += " AND " + cond
			} else {
				page += " WHERE " + cond
			}
			pargs = append(pargs, last.ts, last.seq, last.id)
		}
		page += fmt.Sprintf(" ORDER BY ts DESC, seq DESC, id DESC LIMIT %d", queryBatch)
		got := 0
		err := e.db.round(func(b *pgx.Batch) { b.Queue(page, pargs...) }, func(br pgx.BatchResults) error {
			rows, err := br.Query()
			if err != nil {
				return err
			}
			defer rows.Close()
			for rows.Next() {
				var ts time.Time
				var seq int32
				var id int64
				var line string
				if err := rows.Scan(&ts, &seq, &id, &line); err != nil {
					return err
				}
				got++
				last.ts, last.seq, last.id = ts, seq, id
				var ev store.Event
				if json.Unmarshal([]byte(line), &ev) != nil {
					res.Malformed++
					continue
				}
				ev.Raw = json.RawMessage(line)
				if q.Match(&ev) {
					res.Events = append(res.Events, ev)
					if want > 0 && len(res.Events) >= want {
						return nil
					}
				}
			}
			return rows.Err()
		}, false)
		if err != nil {
			return store.ReadResult{}, err
		}
		if got < queryBatch || (want > 0 && len(res.Events) >= want) {
			break
		}
	}
	slices.Reverse(res.Events)
	res.Events = q.Cut(res.Events)
	return res, nil
}

// Join reads other with e when it is the same database's log
// (store.Joiner): one table, read once.
func (e Events) Join(other store.Events) (store.Events, bool) {
	if o, ok := other.(Events); ok && o.db.where == e.db.where {
		return e, true
	}
	return nil, false
}

var _ store.Querier = Events{}
