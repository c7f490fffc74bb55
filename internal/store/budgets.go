package store

import (
	"fmt"
	"strings"
	"time"

	"guard/breaker"
)

// An Action is a budgeted kind of action, as the configuration names it.
type Action struct {
	Name   string // restart
	Field  string // the array it records into: restarts
	Limit  int
	Window time.Duration
	// Timestamps names an array of bare timestamps every record is written
	// to as well (restart_timestamps, which Claude Ops' hooks read); ""
	// writes one only where the state already keeps such arrays.
	Timestamps string
}

// Budgets are the action budgets of services, and the last_NAME stamps
// that sit beside them.
type Budgets interface {
	// Update runs fn in one transaction; see Circuits.Update.
	Update(now time.Time, fn func(tx BudgetTx) (changed bool, err error)) error
	// Snapshot returns a consistent view.
	Snapshot() (BudgetView, error)
}

// A BudgetView reads the budgets.
type BudgetView interface {
	// ServiceNames returns every service with state, sorted.
	ServiceNames() []string
	// Check returns the verdict of a's budget for service at now.
	Check(service string, a Action, now time.Time) (breaker.Verdict, error)
	// Streak returns the service's healthy checks in a row.
	Streak(service string) int
	// Last returns when last_NAME was set; zero if never.
	Last(name string) (time.Time, error)
	// Stamps returns the NAMEs of every last_NAME set.
	Stamps() []string
}

// A BudgetTx is the budgets inside one Update. Services register on first
// use.
type BudgetTx interface {
	BudgetView
	// Decide is Check, and logs the decision.
	Decide(service string, a Action, now time.Time) (breaker.Verdict, error)
	// DecideN is Decide for n actions at once (a command that restarts a
	// service three times): allowed if the budget has room for all n.
	DecideN(service string, a Action, n int, now time.Time) (breaker.Verdict, error)
	// Record appends a finished action.
	Record(service string, a Action, now time.Time, success bool, errMsg string) error
	// Reserve checks a's budget and, if it allows one more, records one in
	// progress for the guard process pid, so no other caller takes the
	// same room. It returns the verdict before the reservation.
	Reserve(service string, a Action, now time.Time, pid int) (breaker.Verdict, error)
	// Finish completes pid's reservation (or records afresh if it is gone).
	Finish(service string, a Action, now time.Time, pid int, success bool, errMsg string) error
	// Release gives back pid's reservation of an action that never started.
	Release(service string, a Action, pid int, reservedAt time.Time) error
	// Healthy counts a healthy check; at resetAfter in a row it clears the
	// service's budgets and reports cleared.
	Healthy(service string, resetAfter int, now time.Time) (streak int, cleared bool, err error)
	// Unhealthy ends the service's healthy streak.
	Unhealthy(service string, now time.Time) error
	// Mark sets last_NAME to now.
	Mark(name string, now time.Time) error
}

// CheckStamp reports whether name can name a last_NAME stamp: lower-case
// letters, digits and _.
func CheckStamp(name string) error {
	if name == "" || strings.Trim(name, "abcdefghijklmnopqrstuvwxyz0123456789_") != "" {
		return fmt.Errorf("stamp name %q must be lower-case letters, digits and _ (e.g. run, daily_digest)", name)
	}
	return nil
}
