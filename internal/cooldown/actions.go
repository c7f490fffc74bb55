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

// RecordAll records every action the takes took, each as many times as
// it was taken, all succeeded or all failed.
func (r *Rules) RecordAll(takes []Take, now time.Time, success bool, errMsg string) error {
	return r.Budgets.Update(now, func(tx store.BudgetTx) (bool, error) {
		now := store.TxNow(tx, now)
		for _, t := range takes {
			for range max(t.N, 1) {
				if err := tx.Record(t.Service, t.Action, now, success, errMsg); err != nil {
					return false, err
				}
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

// ReserveAll takes room for every action of takes, each as many times as
// it is taken, for the guard process pid, all in one transaction: if any
// budget has no room for all of its own, none is reserved, and that take
// is returned with its verdict (for its n actions at once).
func (r *Rules) ReserveAll(takes []Take, now time.Time, pid int) (refused *Take, v breaker.Verdict, err error) {
	err = r.Budgets.Update(now, func(tx store.BudgetTx) (bool, error) {
		now := store.TxNow(tx, now)
		for i, t := range takes {
			c, err := tx.Check(t.Service, t.Action, now)
			if err != nil {
				return false, err
			}
			if c.Used+max(t.N, 1) > c.Limit {
				refused = &takes[i]
				v, err = tx.DecideN(t.Service, t.Action, max(t.N, 1), now) // logs the refusal
				return false, err
			}
		}
		for _, t := range takes {
			for range max(t.N, 1) {
				c, err := tx.Reserve(t.Service, t.Action, now, pid)
				if err != nil {
					return false, err
				}
				if !c.Allowed { // cannot happen after the check above
					refused, v = &t, c
					return false, nil
				}
			}
		}
		return true, nil
	})
	return refused, v, err
}

// FinishAll is Finish for every reservation ReserveAll made.
func (r *Rules) FinishAll(takes []Take, reservedAt, now time.Time, pid int, res *supervise.Result, timeout time.Duration) error {
	return r.Budgets.Update(now, func(tx store.BudgetTx) (bool, error) {
		now := store.TxNow(tx, now)
		success, msg := outcome(res, timeout)
		for _, t := range takes {
			for range max(t.N, 1) {
				var err error
				if !res.Ran() {
					err = tx.Release(t.Service, t.Action, pid, reservedAt)
				} else {
					err = tx.Finish(t.Service, t.Action, now, pid, success, msg)
				}
				if err != nil {
					return false, err
				}
			}
		}
		return true, nil
	})
}

// outcome says whether the command res describes succeeded, and if not,
// why.
func outcome(res *supervise.Result, timeout time.Duration) (bool, string) {
	success := res.ExitCode == 0 && res.Interrupted == nil
	msg := ""
	if !success {
		msg = res.Describe(timeout)
		if res.Interrupted != nil {
			msg = "cancelled: " + msg
		}
	}
	return success, msg
}

// Finish records what became of the command pid ran on its reservation:
// one that never started gives the reservation back (the action did not
// happen); any other completes it, as a success if it exited 0.
func (r *Rules) Finish(service string, a store.Action, reservedAt, now time.Time, pid int, res *supervise.Result, timeout time.Duration) error {
	return r.FinishAll([]Take{{Match: Match{Service: service, Action: a}, N: 1}}, reservedAt, now, pid, res, timeout)
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
