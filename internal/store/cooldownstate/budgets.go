package cooldownstate

import (
	"sort"
	"strings"

	"guard/internal/store"
)

// tx is a Document inside an update, with the configured actions every
// service that registers gets an array for.
type tx struct {
	*Document
	actions []store.Action
}

func (t tx) PutRecords(service string, a store.Action, rs []store.Record) error {
	return t.Document.PutRecords(service, a, t.actions, rs)
}

func (t tx) PutStreak(service string, n int) error {
	return t.Document.PutStreak(service, n, t.actions)
}

// Loaded returns every service: the document is read whole.
func (t tx) Loaded() []string { return t.ServiceNames() }

// Log queues events for the event log, written with the update.
func (t tx) Log(events ...store.Event) { t.pending = append(t.pending, events...) }

// Stamps returns the NAMEs of the last_NAME members (store.BudgetView).
func (d *Document) Stamps() []string {
	var out []string
	for k := range d.Extra {
		if name, ok := strings.CutPrefix(k, "last_"); ok {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}

var (
	_ store.BudgetView = (*Document)(nil)
	_ store.BudgetTx   = tx{}
)

// Tx returns d inside an update as a store.BudgetTx, with the configured
// actions every service that registers gets an array for.
func Tx(d *Document, actions []store.Action) store.BudgetTx { return tx{d, actions} }

// Pending returns the events logged since the document was read.
func (d *Document) Pending() []store.Event { return d.pending }
