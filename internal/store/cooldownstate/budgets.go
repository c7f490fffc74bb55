package cooldownstate

import (
	"sort"
	"strings"
	"time"

	"guard/breaker"
	"guard/internal/store"
)

// Budgets returns the store as a store.Budgets.
func (s *Store) Budgets() store.Budgets { return budgets{s} }

type budgets struct{ s *Store }

func (b budgets) Update(now time.Time, fn func(tx store.BudgetTx) (bool, error)) error {
	return b.s.Update(now, func(d *Document) (bool, error) { return fn(tx{d, b.s.actions}) })
}

func (b budgets) Snapshot() (store.BudgetView, error) { return b.s.Snapshot() }

// tx is a Document inside an update, with the configured actions every new
// service gets an array for.
type tx struct {
	*Document
	actions []Action
}

func (t tx) Record(service string, a Action, now time.Time, success bool, errMsg string) error {
	return t.Document.Record(service, a, t.actions, now, success, errMsg)
}

func (t tx) Reserve(service string, a Action, now time.Time, pid int) (breaker.Verdict, error) {
	return t.Document.Reserve(service, a, t.actions, now, pid)
}

func (t tx) Finish(service string, a Action, now time.Time, pid int, success bool, errMsg string) error {
	return t.Document.Finish(service, a, t.actions, now, pid, success, errMsg)
}

func (t tx) Healthy(service string, resetAfter int, now time.Time) (int, bool, error) {
	return t.Document.Healthy(service, resetAfter, t.actions, now)
}

func (t tx) Unhealthy(service string, now time.Time) error {
	return t.Document.Unhealthy(service, t.actions, now)
}

// Streak returns service's healthy checks in a row (store.BudgetView).
func (d *Document) Streak(service string) int {
	if s := d.Services[service]; s != nil {
		return s.ConsecutiveHealthy
	}
	return 0
}

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

// Tx returns d as the budgets inside one transaction of another backend
// that keeps the document whole, with the configured actions.
func Tx(d *Document, actions []Action) store.BudgetTx { return tx{d, actions} }

// Pending returns the events noted since the document was read.
func (d *Document) Pending() []store.Event { return d.pending }
