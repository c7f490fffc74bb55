package postgres

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"time"

	"github.com/jackc/pgx/v5"

	"guard/internal/jsonx"
	"guard/internal/store"
	"guard/internal/store/cooldownstate"
	"guard/internal/store/hookstate"
)

// The rows of guard_state: what of each document is not kept in rows of
// its own (its version, unknown members, and global_stats' unknown
// members), and the states that an import replaced (NAME.bak-TIME) or a
// migration moved into rows (NAME.v1).
const (
	hooksShell    = "hooks"
	cooldownShell = "cooldown"
)

// shell returns the hook state's document without its keys.
func shell(d *hookstate.Document) ([]byte, error) {
	s := &hookstate.Document{Version: d.Version, Extra: d.Extra}
	s.GlobalStats.Extra = d.GlobalStats.Extra
	return s.MarshalState()
}

// queueHooks queues the statements that make the circuit rows those of
// data, a hook state document: every key's row, its entry as data has it
// (compacted; an entry that does not check out is set aside), the totals
// of global_stats, and the rest of the document in guard_state. The rows
// there were are deleted first.
func queueHooks(b *pgx.Batch, data []byte, retention hookstate.Retention, now time.Time) error {
	d := &hookstate.Document{}
	if err := d.UnmarshalState(data); err != nil {
		return err
	}
	_, members, err := jsonx.Members(data, "hooks")
	if err != nil {
		return err
	}
	last := map[string]int{} // a key twice: the last one wins, as in the file
	for i, m := range members {
		last[m.Key] = i
	}
	var hashes [][]byte
	var keys, entries []string
	var open []bool
	var prune []*time.Time
	for i, m := range members {
		if last[m.Key] != i || string(m.Value) == "null" {
			continue
		}
		h, err := decode(m.Value)
		if err != nil {
			b.Queue(`INSERT INTO guard_quarantine VALUES ($1, 'hooks', $2, $3, $4)`, now, m.Key, err.Error(), string(m.Value))
			continue
		}
		var entry bytes.Buffer
		if err := json.Compact(&entry, m.Value); err != nil {
			return err
		}
		hashes, keys, entries = append(hashes, hash(m.Key)), append(keys, m.Key), append(entries, entry.String())
		open = append(open, h.State == "open")
		prune = append(prune, pruneAfter(m.Key, h, retention))
	}
	b.Queue(`DELETE FROM guard_circuits`)
	// The totals are zeroed, not deleted: the role 'state init --grant'
	// prepares may update guard_totals but not delete from it, and a state
	// import is that role's to run as much as cooldown import is
	// (hostile-user-3 m2).
	b.Queue(`UPDATE guard_totals SET executions = 0, failures = 0`)
	b.Queue(`INSERT INTO guard_circuits (key_hash, key, entry, version, open, updated, prune_after)
		SELECT h, k, e, 1, o, $6, p FROM unnest($1::bytea[], $2::text[], $3::text[], $4::bool[], $5::timestamptz[]) AS r(h, k, e, o, p)`,
		hashes, keys, entries, open, prune, now)
	g := d.GlobalStats
	b.Queue(`INSERT INTO guard_totals VALUES (0, $1, $2)
		ON CONFLICT (bucket) DO UPDATE SET executions = EXCLUDED.executions, failures = EXCLUDED.failures`, g.TotalExecutions, g.TotalFailures)
	s, err := shell(d)
	if err != nil {
		return err
	}
	b.Queue(putState, hooksShell, string(s), now)
	return nil
}

// queueCooldown queues the statements that make the budget rows d's.
func queueCooldown(b *pgx.Batch, d *cooldownstate.Document) error {
	b.Queue(`DELETE FROM guard_budgets`)
	b.Queue(`DELETE FROM guard_stamps`)
	for _, name := range d.ServiceNames() {
		s := d.Services[name]
		if s == nil {
			continue
		}
		entry, err := json.Marshal(s)
		if err != nil {
			return err
		}
		b.Queue(`INSERT INTO guard_budgets (key_hash, service, entry, version, keeps_timestamps) VALUES ($1, $2, $3, 1, $4)`,
			hash(name), name, string(entry), keepsTimestamps(s))
	}
	for name, raw := range d.Extra {
		b.Queue(`INSERT INTO guard_stamps (name, value) VALUES ($1, $2)`, name, string(raw))
	}
	return nil
}

// putState writes a row of guard_state.
const putState = `INSERT INTO guard_state (name, doc, updated) VALUES ($1, $2, $3)
	ON CONFLICT (name) DO UPDATE SET doc = EXCLUDED.doc, updated = EXCLUDED.updated`

// Checkpoint is one state, taken and restored whole in its JSON file's
// format, as a store.Checkpoint.
type Checkpoint struct {
	db       *DB
	cooldown bool
	check    func([]byte) error
	actions  []store.Action // the cooldown state's
}

// HookCheckpoint returns the checkpoint of the hook state.
func (db *DB) HookCheckpoint() Checkpoint {
	return Checkpoint{db: db, check: hookstate.Validate}
}

// CooldownCheckpoint returns the checkpoint of the cooldown state, with
// the configured actions.
func (db *DB) CooldownCheckpoint(actions []store.Action) Checkpoint {
	return Checkpoint{db: db, cooldown: true, actions: actions, check: func(b []byte) error { return cooldownstate.Validate(b, actions) }}
}

// Export returns the state as its JSON file would hold it, read in one
// round (a consistent view).
func (c Checkpoint) Export() ([]byte, error) {
	if c.cooldown {
		d, err := c.db.Budgets(c.actions).document()
		if err != nil {
			return nil, err
		}
		return jsonx.MarshalDocument(d)
	}
	var doc bytes.Buffer
	var sh []byte
	var st store.Stats
	var keys, entries []string
	err := c.db.round(func(b *pgx.Batch) {
		b.Queue(`SELECT coalesce((SELECT doc FROM guard_state WHERE name = $1), '')`, hooksShell)
		b.Queue(`SELECT key, entry FROM guard_circuits ORDER BY key`)
		b.Queue(statsQuery)
	}, func(br pgx.BatchResults) error {
		var s string
		if err := br.QueryRow().Scan(&s); err != nil {
			return err
		}
		sh = []byte(s)
		rows, err := br.Query()
		if err != nil {
			return err
		}
		for rows.Next() {
			var k, e string
			if err := rows.Scan(&k, &e); err != nil {
				return err
			}
			keys, entries = append(keys, k), append(entries, e)
		}
		if err := rows.Err(); err != nil {
			return err
		}
		st, err = scanStats(br)
		return err
	}, false)
	if err != nil {
		return nil, err
	}
	s := &hookstate.Document{Version: hookstate.Version}
	if len(sh) > 0 {
		if err := s.UnmarshalState(sh); err != nil {
			return nil, err
		}
	}
	fmt.Fprintf(&doc, `{"version":%d,"hooks":{`, max(s.Version, hookstate.Version))
	for i, k := range keys {
		if i > 0 {
			doc.WriteByte(',')
		}
		jsonx.AppendString(&doc, k)
		doc.WriteByte(':')
		doc.WriteString(entries[i])
	}
	g := s.GlobalStats
	g.TotalExecutions, g.TotalFailures, g.HooksDisabled = st.TotalExecutions, st.TotalFailures, st.HooksDisabled
	g.LastUpdated = jsonx.TimeOf(st.LastUpdated)
	gs, err := g.MarshalJSON()
	if err != nil {
		return nil, err
	}
	doc.WriteString(`},"global_stats":`)
	doc.Write(gs)
	names := make([]string, 0, len(s.Extra))
	for n := range s.Extra {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		doc.WriteByte(',')
		jsonx.AppendString(&doc, n)
		doc.WriteByte(':')
		doc.Write(s.Extra[n])
	}
	doc.WriteByte('}')
	d := &hookstate.Document{}
	if err := d.UnmarshalState(doc.Bytes()); err != nil {
		return nil, err
	}
	return d.MarshalState()
}

func (c Checkpoint) Check(data []byte) error { return c.check(data) }

// Import replaces the state with data, in one round (one transaction),
// keeping the state it replaces as a row of guard_state named
// NAME.bak-<UTC time>.
func (c Checkpoint) Import(data []byte, now time.Time, from string) (string, error) {
	old, err := c.Export()
	if err != nil {
		return "", err
	}
	name := hooksShell
	if c.cooldown {
		name = cooldownShell
	}
	now = c.db.now(now)
	kept := fmt.Sprintf("%s.bak-%s", name, now.UTC().Format("20060102T150405.000000Z"))
	var b pgx.Batch
	b.Queue(putState, kept, string(old), now)
	if c.cooldown {
		d := &cooldownstate.Document{}
		if err := json.Unmarshal(data, d); err != nil {
			return "", err
		}
		err = queueCooldown(&b, d)
	} else {
		err = queueHooks(&b, data, c.db.set.Retention, now)
	}
	if err != nil {
		return "", err
	}
	e := c.db.withHost(store.Event{Time: now, Event: store.EventImport, File: from, Reason: "earlier state backed up to " + kept})
	line, err := e.MarshalJSON()
	if err != nil {
		return "", err
	}
	queueEvent(&b, e, line, 0)
	if err := c.db.round(func(rb *pgx.Batch) { rb.QueuedQueries = append(rb.QueuedQueries, b.QueuedQueries...) }, nil, false); err != nil {
		return "", err
	}
	return "the row " + kept + " of guard_state", nil
}
