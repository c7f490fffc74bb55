package postgres

import (
	"encoding/json"
	"time"

	"guard/internal/store"
	"guard/internal/store/cooldownstate"
	"guard/statefile"
)

// cooldown is the name of the cooldown state's document.
const cooldown = "cooldown"

// Budgets is the cooldown state in the database, as a store.Budgets.
type Budgets struct {
	db        *DB
	retention time.Duration
	actions   []store.Action
}

// Budgets returns the cooldown state with the configured actions; records
// older than retention (raised to the longest window) are pruned.
func (db *DB) Budgets(retention time.Duration, actions []store.Action) *Budgets {
	for _, a := range actions {
		retention = max(retention, a.Window)
	}
	return &Budgets{db: db, retention: retention, actions: actions}
}

// Update runs fn in one transaction; see store.Budgets.
func (b *Budgets) Update(now time.Time, fn func(tx store.BudgetTx) (bool, error)) error {
	return b.db.update(cooldown, now, func(doc []byte, now time.Time) ([]byte, []store.Event, []store.Aside, error) {
		d := &cooldownstate.Document{}
		var lost []store.Aside
		if doc != nil {
			if err := json.Unmarshal(doc, d); err != nil {
				lost = append(lost, store.Aside{Key: "(the whole cooldown state)", Raw: doc, Err: err})
				d = &cooldownstate.Document{}
			}
		}
		changed, err := fn(budgetTx{cooldownstate.Tx(d, b.actions), now})
		if err != nil {
			return nil, nil, nil, err
		}
		events := d.Pending()
		if !changed && len(lost) == 0 {
			return nil, events, nil, nil
		}
		if err := d.Tidy(now, b.retention, b.actions); err != nil {
			return nil, nil, nil, err
		}
		out, err := statefile.Marshal(d)
		return out, events, lost, err
	})
}

// Snapshot returns the cooldown state; see store.Budgets.
func (b *Budgets) Snapshot() (store.BudgetView, error) {
	doc, err := b.db.read(cooldown)
	if err != nil {
		return nil, err
	}
	d := &cooldownstate.Document{}
	if doc != nil {
		if err := json.Unmarshal(doc, d); err != nil {
			return nil, statefile.Corrupt(err)
		}
	}
	return d, nil
}

// budgetTx is the cooldown state inside one transaction, with the
// database's clock.
type budgetTx struct {
	store.BudgetTx
	now time.Time
}

func (t budgetTx) Now() time.Time { return t.now }
