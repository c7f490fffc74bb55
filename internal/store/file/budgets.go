package file

import (
	"time"

	"guard/internal/store"
	"guard/internal/store/cooldownstate"
	"guard/statefile"
)

// Budgets is cooldown.json, in the ops agent's format, and the event log
// its decisions go to, as a store.Budgets.
type Budgets struct {
	*stateFile
	actions []store.Action
}

var _ store.Budgets = (*Budgets)(nil)

// openBudgets opens the cooldown state file at path, whose services
// register with an array for each of actions. Events go to the log logFor
// names; see openStateFile.
func openBudgets(path string, opts statefile.Options, actions []store.Action, logFor func(string) (*EventLog, error), logErr func(error)) (*Budgets, error) {
	fs, err := openStateFile(path, opts, logFor, logErr)
	if err != nil {
		return nil, err
	}
	return &Budgets{stateFile: fs, actions: actions}, nil
}

// Snapshot reads the current state without the lock (store.Budgets). A
// missing file is an empty state.
func (s *Budgets) Snapshot() (store.BudgetView, error) {
	d := &cooldownstate.Document{}
	if _, err := statefile.Load(s.File(), d); err != nil {
		return nil, storeError(err)
	}
	return d, nil
}

// Update runs fn on the current state under the lock (store.Budgets) and,
// if it reports a change, replaces the file. The events fn logged are
// then appended to the event log, still under the lock, changed or not
// (once it is let go if the log's lock is held: stateFile.appendHeld).
func (s *Budgets) Update(now time.Time, fn func(tx store.BudgetTx) (changed bool, err error)) error {
	var pending []store.Event
	defer s.appendLater() // after the state's lock is let go
	return storeError(statefile.UpdateThen(s.File(), func(d *cooldownstate.Document) (bool, error) {
		changed, err := fn(cooldownstate.Tx(d, s.actions))
		pending = d.Pending()
		if err != nil || !changed {
			return false, docError(err)
		}
		d.Complete()
		return true, nil
	}, func() { s.appendHeld(pending...) }))
}
