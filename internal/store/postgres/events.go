package postgres

import (
	"context"
	"fmt"
	"strings"
	"time"

	"guard/internal/store"
	"guard/statefile"
)

// Events is the event log in the database (the table guard_events), as a
// store.Events.
type Events struct{ db *DB }

// Events returns the event log.
func (db *DB) Events() Events { return Events{db} }

// Read returns the events keep accepts, in time order.
func (e Events) Read(keep func(*store.Event) bool) (store.ReadResult, error) {
	ctx, cancel := context.WithTimeout(context.Background(), e.db.timeout)
	defer cancel()
	if err := e.db.ready(ctx); err != nil {
		return store.ReadResult{}, err
	}
	rows, err := e.db.conn.Query(ctx, `SELECT line FROM guard_events ORDER BY ts, id`)
	if err != nil {
		return store.ReadResult{}, err
	}
	var b strings.Builder
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			return store.ReadResult{}, err
		}
		b.WriteString(line)
		b.WriteByte('\n')
	}
	if err := rows.Err(); err != nil {
		return store.ReadResult{}, err
	}
	return store.ReadEvents(strings.NewReader(b.String()), keep)
}

// Checkpoint is one state's document, taken and restored whole, as a
// store.Checkpoint.
type Checkpoint struct {
	db    *DB
	name  string
	check func([]byte) error
	empty any
}

// Checkpoint returns the checkpoint of the hook state (cooldown false) or
// the cooldown state, with the check a state must pass to be imported and
// the document an empty state exports as.
func (db *DB) Checkpoint(isCooldown bool, check func([]byte) error, empty any) Checkpoint {
	name := hooks
	if isCooldown {
		name = cooldown
	}
	return Checkpoint{db, name, check, empty}
}

func (c Checkpoint) Export() ([]byte, error) {
	doc, err := c.db.read(c.name)
	if err != nil || doc != nil {
		return doc, err
	}
	return statefile.Marshal(c.empty)
}

func (c Checkpoint) Check(data []byte) error { return c.check(data) }

// Import keeps the state it replaces as a row of guard_state named
// NAME.bak-<UTC time>.
func (c Checkpoint) Import(data []byte, now time.Time, from string) (string, error) {
	var kept string
	err := c.db.update(c.name, now, func(old []byte, dbnow time.Time) ([]byte, []store.Event, []store.Aside, error) {
		reason := "no earlier state"
		if old != nil {
			kept = fmt.Sprintf("%s.bak-%s", c.name, dbnow.UTC().Format("20060102T150405.000000Z"))
			if err := c.db.put(kept, old, dbnow); err != nil {
				return nil, nil, nil, err
			}
			reason = "earlier state backed up to " + kept
			kept = "the row " + kept + " of guard_state"
		}
		return data, []store.Event{{Time: dbnow, Event: store.EventImport, File: from, Reason: reason}}, nil, nil
	})
	return kept, err
}

// Join reads other with e when it is the same database's log
// (store.Joiner): one table, read once.
func (e Events) Join(other store.Events) (store.Events, bool) {
	if o, ok := other.(Events); ok && o.db.where == e.db.where {
		return e, true
	}
	return nil, false
}
