// The steps: one step of a service's budget inside a store transaction.
// Each reads the service's records, lets package breaker decide (a
// breaker.Budget over their times), writes the records back and logs what
// happened, on any store.BudgetTx, so every backend gets the same rules
// and the same events, as package circuit's steps do for circuits. Rules'
// methods run them, one transaction each.

package cooldown

import (
	"fmt"
	"time"

	"guard/breaker"
	"guard/internal/jsonx"
	"guard/internal/store"
)

// Check returns the verdict of a's budget for service at now, for n actions
// at once (allowed if the budget has room for all n). A record guard cannot
// read counts as if it had happened at now: a record nobody can read must
// not switch a budget off.
func Check(v store.BudgetView, service string, a store.Action, n int, now time.Time) (breaker.Verdict, error) {
	rs, err := v.Records(service, a)
	if err != nil {
		return breaker.Verdict{}, err
	}
	ts := make([]time.Time, len(rs))
	for i, r := range rs {
		ts[i] = r.Time
		if r.Unreadable {
			ts[i] = now
		}
	}
	return breaker.Budget{Limit: a.Limit, Window: a.Window}.CheckN(ts, now, n), nil
}

// Decide is Check, and logs the decision: "allowed" or "refused", with the
// budget used and the next allowed time, and "n at once" for more than
// one.
func Decide(tx store.BudgetTx, service string, a store.Action, n int, now time.Time) (breaker.Verdict, error) {
	v, err := Check(tx, service, a, n, now)
	if err != nil {
		return v, err
	}
	e := store.Event{Time: now, Event: store.EventCooldown, Key: service, Action: a.Name, Outcome: "allowed",
		Used: store.Int(v.Used), Limit: store.Int(v.Limit)}
	if n > 1 {
		e.Reason = fmt.Sprintf("%d at once", n)
	}
	if !v.Allowed {
		e.Outcome = "refused"
		if !v.NextAllowed.IsZero() {
			e.Until = v.NextAllowed.UTC().Format(jsonx.TimeLayout)
		}
	}
	tx.Log(e)
	return v, nil
}

// Record adds a finished action of kind a on service at now, and logs it.
func Record(tx store.BudgetTx, service string, a store.Action, now time.Time, success bool, errMsg string) error {
	rs, err := tx.Records(service, a)
	if err != nil {
		return err
	}
	r := store.Record{Time: now, Success: success}
	if !success {
		r.Error = errMsg
	}
	if err := tx.PutRecords(service, a, append(rs, r)); err != nil {
		return err
	}
	logRecord(tx, service, a, now, success, errMsg)
	return nil
}

// logRecord logs an action's outcome, with its budget's use after it.
func logRecord(tx store.BudgetTx, service string, a store.Action, now time.Time, success bool, errMsg string) {
	e := store.Event{Time: now, Event: store.EventCooldownRecord, Key: service, Action: a.Name, Outcome: "success"}
	if !success {
		e.Outcome, e.Error = "failure", errMsg
	}
	if v, err := Check(tx, service, a, 1, now); err == nil {
		e.Used, e.Limit = store.Int(v.Used), store.Int(v.Limit)
	}
	tx.Log(e)
}

// Reserve decides on one more action of kind a on service and, if its
// budget allows it, adds it as in progress for the guard process pid, so
// that no other caller can take the same room. It returns the verdict
// before the reservation.
func Reserve(tx store.BudgetTx, service string, a store.Action, now time.Time, pid int) (breaker.Verdict, error) {
	v, err := Decide(tx, service, a, 1, now)
	if err != nil || !v.Allowed {
		return v, err
	}
	rs, err := tx.Records(service, a)
	if err != nil {
		return v, err
	}
	return v, tx.PutRecords(service, a, append(rs, store.Record{Time: now, InProgress: true, PID: pid}))
}

// Finish completes the reservation pid made for a on service, keeping its
// time. If the reservation is gone (a healthy streak cleared the budgets
// meanwhile), it records the action afresh at now. A reservation the state
// keeps bare has nothing to complete.
func Finish(tx store.BudgetTx, service string, a store.Action, now time.Time, pid int, success bool, errMsg string) error {
	rs, err := tx.Records(service, a)
	if err != nil {
		return err
	}
	for i := len(rs) - 1; i >= 0; i-- {
		r := &rs[i]
		switch {
		case r.Foreign:
			continue
		case r.InProgress && r.PID == pid:
			r.InProgress, r.PID, r.Success, r.Error = false, 0, success, ""
			if !success {
				r.Error = errMsg
			}
			if err := tx.PutRecords(service, a, rs); err != nil {
				return err
			}
		case r.Bare:
		default:
			continue
		}
		logRecord(tx, service, a, now, success, errMsg)
		return nil
	}
	return Record(tx, service, a, now, success, errMsg)
}

// Release gives back the reservation pid made for a on service at
// reservedAt, for an action that never started (its command was not
// found): it did not happen, so it must not use up the budget.
func Release(tx store.BudgetTx, service string, a store.Action, pid int, reservedAt time.Time) error {
	rs, err := tx.Records(service, a)
	if err != nil {
		return err
	}
	for i := len(rs) - 1; i >= 0; i-- {
		r := rs[i]
		if !r.Foreign && ((r.InProgress && r.PID == pid) || (r.Bare && r.Time.Unix() == reservedAt.Unix())) {
			return tx.PutRecords(service, a, append(rs[:i:i], rs[i+1:]...))
		}
	}
	return nil
}

// Healthy counts a healthy check of service (breaker.HealthyCheck): when
// the streak reaches resetAfter, every action's records on the service are
// cleared and the streak starts again; cleared reports that.
func Healthy(tx store.BudgetTx, service string, resetAfter int, actions []store.Action, now time.Time) (streak int, cleared bool, err error) {
	streak, cleared = breaker.HealthyCheck(tx.Streak(service), resetAfter)
	e := store.Event{Time: now, Event: store.EventCooldownHealth, Key: service, Outcome: "healthy",
		Reason: fmt.Sprintf("%d in a row", streak)}
	if cleared {
		for _, a := range actions {
			if err := tx.PutRecords(service, a, nil); err != nil {
				return 0, false, err
			}
		}
		e.Outcome, e.Reason = "cleared", fmt.Sprintf("%d healthy checks in a row cleared the budgets", max(resetAfter, 1))
	}
	if err := tx.PutStreak(service, streak); err != nil {
		return 0, false, err
	}
	tx.Log(e)
	return streak, cleared, nil
}

// Unhealthy ends service's healthy streak.
func Unhealthy(tx store.BudgetTx, service string, now time.Time) error {
	if err := tx.PutStreak(service, 0); err != nil {
		return err
	}
	tx.Log(store.Event{Time: now, Event: store.EventCooldownHealth, Key: service, Outcome: "unhealthy"})
	return nil
}

// Mark sets last_NAME to now.
func Mark(tx store.BudgetTx, name string, now time.Time) error {
	if err := tx.PutStamp(name, now); err != nil {
		return err
	}
	tx.Log(store.Event{Time: now, Event: store.EventMark, Key: "last_" + name})
	return nil
}

// Prune removes the records older than retention from every service the
// transaction has read, before it is written: records still in progress,
// and records guard cannot read, are kept. retention is raised to the
// longest window of actions, so that pruning never drops a record a budget
// still counts. A service whose records cannot be read is left alone: the
// commands on it say what is wrong.
func Prune(tx store.BudgetTx, now time.Time, retention time.Duration, actions []store.Action) error {
	for _, a := range actions {
		retention = max(retention, a.Window)
	}
	keep := breaker.Window{Length: retention}
	for _, service := range tx.Loaded() {
		for _, a := range actions {
			rs, err := tx.Records(service, a)
			if err != nil {
				continue
			}
			kept := make([]store.Record, 0, len(rs))
			for _, r := range rs {
				if r.InProgress || r.Unreadable || keep.In(r.Time, now) {
					kept = append(kept, r)
				}
			}
			if len(kept) != len(rs) {
				if err := tx.PutRecords(service, a, kept); err != nil {
					return err
				}
			}
		}
	}
	return nil
}
