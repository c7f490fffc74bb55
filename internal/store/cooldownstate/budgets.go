package cooldownstate

import (
	"sort"
	"strings"
	"time"

	"guard/breaker"
	"guard/internal/store"
)

// tx is a Document inside an update, with the configured actions every new
// service gets an array for.
type tx struct {
	*Document
	actions []store.Action
}

func (t tx) Record(service string, a store.Action, now time.Time, success bool, errMsg string) error {
	return t.Document.Record(service, a, t.actions, now, success, errMsg)
}

func (t tx) Reserve(service string, a store.Action, now time.Time, pid int) (breaker.Verdict, error) {
	return t.Document.Reserve(service, a, t.actions, now, pid)
}

func (t tx) Finish(service string, a store.Action, now time.Time, pid int, success bool, errMsg string) error {
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

// Tx returns d inside an update as a store.BudgetTx, with the configured
// actions every new service gets an array for.
func Tx(d *Document, actions []store.Action) store.BudgetTx { return tx{d, actions} }

// Pending returns the events noted since the document was read.
func (d *Document) Pending() []store.Event { return d.pending }
