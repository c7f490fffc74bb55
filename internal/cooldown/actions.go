package cooldown

import (
	"time"

	"guard/breaker"
	"guard/internal/store"
	"guard/internal/supervise"
)

// Each of these is one transaction on the budgets, of the steps in
// steps.go.

// update runs fn in one transaction on the budgets, on the transaction's
// clock (store.TxNow), and prunes old records (Prune) if fn changed
// anything.
func (r *Rules) update(now time.Time, fn func(tx store.BudgetTx, now time.Time) (changed bool, err error)) error {
	return r.Budgets.Update(now, func(tx store.BudgetTx) (bool, error) {
		now := store.TxNow(tx, now)
		changed, err := fn(tx, now)
		if err != nil || !changed {
			return false, err
		}
		return true, Prune(tx, now, r.Retention, r.Actions)
	})
}

// Record records an action of kind a on service, and returns the verdict
// of its budget after it.
func (r *Rules) Record(service string, a store.Action, now time.Time, success bool, errMsg string) (breaker.Verdict, error) {
	var v breaker.Verdict
	err := r.update(now, func(tx store.BudgetTx, now time.Time) (bool, error) {
		if err := Record(tx, service, a, now, success, errMsg); err != nil {
			return false, err
		}
		var err error
		v, err = Check(tx, service, a, 1, now)
		return true, err
	})
	return v, err
}

// RecordAll records every action the takes took, each as many times as
// it was taken, all succeeded or all failed.
func (r *Rules) RecordAll(takes []Take, now time.Time, success bool, errMsg string) error {
	return r.update(now, func(tx store.BudgetTx, now time.Time) (bool, error) {
		for _, t := range takes {
			for range max(t.N, 1) {
				if err := Record(tx, t.Service, t.Action, now, success, errMsg); err != nil {
					return false, err
				}
			}
		}
		return true, nil
	})
}

// Reserve takes room for one action of kind a on service for the guard
// process pid, if its budget allows one more; see the step Reserve.
func (r *Rules) Reserve(service string, a store.Action, now time.Time, pid int) (breaker.Verdict, error) {
	var v breaker.Verdict
	err := r.update(now, func(tx store.BudgetTx, now time.Time) (bool, error) {
		var err error
		v, err = Reserve(tx, service, a, now, pid)
		return v.Allowed, err
	})
	return v, err
}

// ReserveAll takes room for every action of takes, each as many times as
// it is taken, for the guard process pid, all in one transaction: if any
// budget has no room for all of its own, none is reserved, and that take
// is returned with its verdict (for its n actions at once).
func (r *Rules) ReserveAll(takes []Take, now time.Time, pid int) (refused *Take, v breaker.Verdict, err error) {
	err = r.update(now, func(tx store.BudgetTx, now time.Time) (bool, error) {
		for i, t := range takes {
			c, err := Check(tx, t.Service, t.Action, 1, now)
			if err != nil {
				return false, err
			}
			if c.Used+max(t.N, 1) > c.Limit {
				refused = &takes[i]
				v, err = Decide(tx, t.Service, t.Action, max(t.N, 1), now) // logs the refusal
				return false, err
			}
		}
		for _, t := range takes {
			for range max(t.N, 1) {
				c, err := Reserve(tx, t.Service, t.Action, now, pid)
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
	return r.update(now, func(tx store.BudgetTx, now time.Time) (bool, error) {
		success, msg := outcome(res, timeout)
		for _, t := range takes {
			for range max(t.N, 1) {
				var err error
				if !res.Ran() {
					err = Release(tx, t.Service, t.Action, pid, reservedAt)
				} else {
					err = Finish(tx, t.Service, t.Action, now, pid, success, msg)
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

// Healthy counts a healthy check of service; see the step Healthy.
func (r *Rules) Healthy(service string, now time.Time) (streak int, cleared bool, err error) {
	err = r.update(now, func(tx store.BudgetTx, now time.Time) (bool, error) {
		var err error
		streak, cleared, err = Healthy(tx, service, r.ResetAfterHealthy, r.Actions, now)
		return true, err
	})
	return streak, cleared, err
}

// Unhealthy ends service's healthy streak.
func (r *Rules) Unhealthy(service string, now time.Time) error {
	return r.update(now, func(tx store.BudgetTx, now time.Time) (bool, error) {
		return true, Unhealthy(tx, service, now)
	})
}

// Mark sets last_NAME to now.
func (r *Rules) Mark(name string, now time.Time) error {
	return r.update(now, func(tx store.BudgetTx, now time.Time) (bool, error) {
		return true, Mark(tx, name, now)
	})
}
