package cooldown

import (
	"time"

	"guard/breaker"
	"guard/internal/store"
	"guard/internal/supervise"
)

// Each of these is one transaction on the budgets.

// Record records an action of kind a on service, and returns the verdict
// of its budget after it.
func (r *Rules) Record(service string, a store.Action, now time.Time, success bool, errMsg string) (breaker.Verdict, error) {
	var v breaker.Verdict
	err := r.Budgets.Update(now, func(tx store.BudgetTx) (bool, error) {
		now := store.TxNow(tx, now)
		if err := tx.Record(service, a, now, success, errMsg); err != nil {
			return false, err
		}
		var err error
		v, err = tx.Check(service, a, now)
		return true, err
	})
	return v, err
}

// RecordAll records every matched action, all succeeded or all failed.
func (r *Rules) RecordAll(ms []Match, now time.Time, success bool, errMsg string) error {
	return r.Budgets.Update(now, func(tx store.BudgetTx) (bool, error) {
		now := store.TxNow(tx, now)
		for _, m := range ms {
			if err := tx.Record(m.Service, m.Action, now, success, errMsg); err != nil {
				return false, err
			}
		}
		return true, nil
	})
}

// Reserve takes room for one action of kind a on service for the guard
// process pid, if its budget allows one more; see store.BudgetTx.Reserve.
func (r *Rules) Reserve(service string, a store.Action, now time.Time, pid int) (breaker.Verdict, error) {
	var v breaker.Verdict
	err := r.Budgets.Update(now, func(tx store.BudgetTx) (bool, error) {
		now := store.TxNow(tx, now)
		var err error
		v, err = tx.Reserve(service, a, now, pid)
		return v.Allowed, err
	})
	return v, err
}

// Finish records what became of the command pid ran on its reservation:
// one that never started gives the reservation back (the action did not
// happen); any other completes it, as a success if it exited 0.
func (r *Rules) Finish(service string, a store.Action, reservedAt, now time.Time, pid int, res *supervise.Result, timeout time.Duration) error {
	return r.Budgets.Update(now, func(tx store.BudgetTx) (bool, error) {
		now := store.TxNow(tx, now)
		if !res.Ran() {
			return true, tx.Release(service, a, pid, reservedAt)
		}
		success := res.ExitCode == 0 && res.Interrupted == nil
		msg := ""
		if !success {
			msg = res.Describe(timeout)
			if res.Interrupted != nil {
				msg = "cancelled: " + msg
			}
		}
		return true, tx.Finish(service, a, now, pid, success, msg)
	})
}

// Healthy counts a healthy check of service; see store.BudgetTx.Healthy.
func (r *Rules) Healthy(service string, now time.Time) (streak int, cleared bool, err error) {
	err = r.Budgets.Update(now, func(tx store.BudgetTx) (bool, error) {
		now := store.TxNow(tx, now)
		var err error
		streak, cleared, err = tx.Healthy(service, r.ResetAfterHealthy, now)
		return true, err
	})
	return streak, cleared, err
}

// Unhealthy ends service's healthy streak.
func (r *Rules) Unhealthy(service string, now time.Time) error {
	return r.Budgets.Update(now, func(tx store.BudgetTx) (bool, error) {
		now := store.TxNow(tx, now)
		return true, tx.Unhealthy(service, now)
	})
}

// Mark sets last_NAME to now.
func (r *Rules) Mark(name string, now time.Time) error {
	return r.Budgets.Update(now, func(tx store.BudgetTx) (bool, error) {
		now := store.TxNow(tx, now)
		return true, tx.Mark(name, now)
	})
}
