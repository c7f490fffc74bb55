package store

import (
	"fmt"
	"strings"
	"time"
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
// that sit beside them, as a backend keeps them: a service's records of
// each action and its healthy streak, the stamps, and the event log. A
// backend only reads and writes them; the rules that decide with them
// (check, reserve, finish, release, the healthy streak, pruning) are
// package cooldown's, written once for every backend.
type Budgets interface {
	// Update runs fn in one transaction; see Circuits.Update.
	Update(now time.Time, fn func(tx BudgetTx) (changed bool, err error)) error
	// Snapshot returns a consistent view.
	Snapshot() (BudgetView, error)
}

// A Record is one action taken on a service, as its budget counts it.
type Record struct {
	Time    time.Time
	Success bool
	Error   string
	// InProgress says guard is running the action now, for the guard
	// process PID: a reservation, which counts like any other record.
	InProgress bool
	PID        int
	// Bare says the state keeps only the record's time (a bare timestamp,
	// as some deployments write their records): it has no outcome, and a
	// reservation kept so cannot be told by its PID. A change to anything
	// but its absence is not kept.
	Bare bool
	// Foreign says the record is kept only in the copy of the action's
	// times another tool writes (Claude Ops' restart_timestamps), not among
	// the action's own records: it counts, and is pruned and cleared with
	// them, but it is never one of guard's reservations.
	Foreign bool
	// Unreadable says the state holds a record here that guard cannot
	// read. It counts as if it had just happened, so that it never frees
	// room, and it is never pruned or changed.
	Unreadable bool
	// Ref is the backend's own mark of where the record is kept. Records
	// carries it, PutRecords reads it; a record the rules add has none (0).
	Ref int64
}

// A BudgetView reads the budgets.
type BudgetView interface {
	// ServiceNames returns every service with state, sorted.
	ServiceNames() []string
	// Records returns service's records of a, oldest kept first: the
	// action's own records, then the Foreign ones. An unknown service has
	// none.
	Records(service string, a Action) ([]Record, error)
	// Streak returns the service's healthy checks in a row.
	Streak(service string) int
	// Last returns when last_NAME was set; zero if never.
	Last(name string) (time.Time, error)
	// Stamps returns the NAMEs of every last_NAME set.
	Stamps() []string
}

// A BudgetTx is the budgets inside one Update.
type BudgetTx interface {
	BudgetView
	// PutRecords stores records as service's records of a. They are the
	// records the latest Records of the same service and action in this
	// transaction returned, with some changed, some left out (removed) and
	// new ones (Ref 0) added, in order. A service registers when one of
	// its records is added or changed, or its streak set: it gets what a
	// new entry has (an empty array for every configured action, in the
	// file).
	PutRecords(service string, a Action, records []Record) error
	// PutStreak sets the service's healthy checks in a row.
	PutStreak(service string, n int) error
	// PutStamp sets last_NAME to t.
	PutStamp(name string, t time.Time) error
	// Loaded returns the services the transaction has read, sorted: those
	// a change writes back (every service, for a backend that holds the
	// state in one document).
	Loaded() []string
	// Log queues events, appended with the transaction.
	Log(events ...Event)
}

// CheckStamp reports whether name can name a last_NAME stamp: lower-case
// letters, digits and _.
func CheckStamp(name string) error {
	if name == "" || strings.Trim(name, "abcdefghijklmnopqrstuvwxyz0123456789_") != "" {
		return fmt.Errorf("stamp name %q must be lower-case letters, digits and _ (e.g. run, daily_digest)", name)
	}
	return nil
}
