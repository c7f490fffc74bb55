package cooldown

import (
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"guard/breaker"
	"guard/config"
	"guard/internal/store"
)

// Rules are the configured budgets on a store.
type Rules struct {
	Budgets           store.Budgets
	Actions           []store.Action
	ResetAfterHealthy int
	// Retention is how long records are kept: older ones are pruned by
	// every write (see Prune), but never one that a budget still counts.
	// Zero keeps them for the longest window.
	Retention time.Duration
	Patterns  []config.Pattern // for Match
	// Warn, if set, hears of a decision made without the state's lock, or
	// on a state that did not parse.
	Warn func(format string, args ...any)
}

func (r *Rules) warn(format string, args ...any) {
	if r.Warn != nil {
		r.Warn(format, args...)
	}
}

// An UnknownActionError names an action that is not configured.
type UnknownActionError struct {
	Name  string
	Known []string
}

func (e *UnknownActionError) Error() string {
	return fmt.Sprintf("unknown action %q; the configured actions are %s", e.Name, strings.Join(e.Known, ", "))
}

// Action returns the configured action called name.
func (r *Rules) Action(name string) (store.Action, error) {
	var names []string
	for _, a := range r.Actions {
		if a.Name == name {
			return a, nil
		}
		names = append(names, a.Name)
	}
	if other := config.ActionAlias(name); other != "" {
		for _, a := range r.Actions {
			if a.Name == other {
				return a, nil // Claude Ops' redeployment is guard's redeploy
			}
		}
	}
	return store.Action{}, &UnknownActionError{Name: name, Known: names}
}

// Decide checks a's budget for service in a transaction, so that the
// decision is logged. If the state stays locked, it decides on a snapshot
// instead, and warns that the decision went unlogged: a budget is never
// switched off because its state is busy.
func (r *Rules) Decide(service string, a store.Action, now time.Time) (breaker.Verdict, error) {
	return r.DecideN(service, a, 1, now)
}

// DecideN is Decide for n actions at once: they are allowed if used+n is
// within the limit. On a snapshot (the state busy) the verdict's
// NextAllowed is only right for n = 1.
func (r *Rules) DecideN(service string, a store.Action, n int, now time.Time) (breaker.Verdict, error) {
	var v breaker.Verdict
	err := r.update(now, func(tx store.BudgetTx, now time.Time) (bool, error) {
		var err error
		v, err = Decide(tx, service, a, n, now)
		return false, err
	})
	if errors.Is(err, store.ErrBusy) {
		r.warn("%v; deciding without logging the decision", err)
		snap, err := r.Snapshot()
		if err != nil {
			return v, err
		}
		v, err := Check(snap, service, a, 1, now)
		if n > 1 && v.Used+n > v.Limit {
			v.Allowed, v.NextAllowed = false, time.Time{}
		}
		return v, err
	}
	return v, err
}

// Snapshot reads the budgets without a transaction. A state that does not
// parse reads as empty, with a warning: the next update sets it aside.
func (r *Rules) Snapshot() (store.BudgetView, error) {
	v, err := r.Budgets.Snapshot()
	if errors.Is(err, store.ErrCorrupt) {
		r.warn("%v; reading it as empty (the next write moves it aside)", err)
		return empty{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("cannot read cooldown state: %w", err)
	}
	return v, nil
}

// Due reports whether the task name is due: last_NAME was never set, or is
// at least every old. With mark, a due task's last_NAME is set to now in
// the same transaction, so that of many callers exactly one is told.
func (r *Rules) Due(name string, every time.Duration, now time.Time, mark bool) (last time.Time, due bool, err error) {
	decide := func(v store.BudgetView) error {
		var err error
		last, err = v.Last(name)
		due = last.IsZero() || !(breaker.Window{Length: every}).In(last, now)
		return err
	}
	if mark {
		err = r.update(now, func(tx store.BudgetTx, now time.Time) (bool, error) {
			if err := decide(tx); err != nil || !due {
				return false, err
			}
			return true, Mark(tx, name, now)
		})
		return last, due, err
	}
	v, err := r.Snapshot()
	if err == nil {
		err = decide(v)
	}
	return last, due, err
}

// CheckService refuses service names that cannot be told apart once they
// are stored: an empty name, one that is not valid UTF-8 (JSON would turn
// its bytes into U+FFFD, merging it with others), or one with control
// characters.
func CheckService(name string) error {
	switch {
	case name == "":
		return errors.New("the service name is empty")
	case !utf8.ValidString(name):
		return fmt.Errorf("the service name %q is not valid UTF-8", name)
	case strings.IndexFunc(name, unicode.IsControl) >= 0:
		return fmt.Errorf("the service name %q holds control characters", name)
	}
	return nil
}

// empty is the view of no budgets at all.
type empty struct{}

func (empty) ServiceNames() []string                               { return nil }
func (empty) Records(string, store.Action) ([]store.Record, error) { return nil, nil }
func (empty) Streak(string) int                                    { return 0 }
func (empty) Last(string) (time.Time, error)                       { return time.Time{}, nil }
func (empty) Stamps() []string                                     { return nil }
