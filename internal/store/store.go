package store

import (
	"strings"
	"time"

	"guard/breaker"
)

// Circuits is the state of every key's circuit breaker.
type Circuits interface {
	// Peek returns key's circuit as last written, without a lock; a key
	// with no state has a closed circuit. An entry that does not check out
	// gives an error (the next Update sets it aside).
	Peek(key string) (breaker.Circuit, error)
	// Update runs fn in one transaction. If fn reports a change, the state
	// is written and the events fn logged are appended; if fn fails,
	// nothing is.
	Update(now time.Time, fn func(tx CircuitTx) (changed bool, err error)) error
	// Snapshot returns a consistent view of every key.
	Snapshot() (CircuitView, error)
}

// An OutcomeRecorder is a Circuits whose queue for its lock is its own (the
// file's flock): it lets the update that records the outcome of a command
// that has already run wait longer for the lock than one made before a
// command (record_timeout against lock_timeout). A backend whose waits are
// the server's (PostgreSQL) need not be one.
type OutcomeRecorder interface {
	// UpdateOutcome is Update, for the record of an outcome, waiting up to
	// wait for the lock (0: as long as Update would).
	UpdateOutcome(now time.Time, wait time.Duration, fn func(tx CircuitTx) (changed bool, err error)) error
}

// A SkipCounter is a Circuits that can count a skip without the state's
// lock and without rewriting the state (the file: its skip tally, which
// its next update folds into the totals, and which its snapshots add):
// guard run's call whose circuit the lock-free read shows open, with
// nothing else to change, then costs no write of the state. The count is
// never lost nor made twice, and the totals a snapshot shows never go
// down. A backend whose writes are cheap rows (PostgreSQL) need not be one.
type SkipCounter interface {
	// CountSkip counts a call of key not run, blocked or not, and logs its
	// event ev. An error leaves nothing counted: the caller counts it
	// under the lock instead.
	CountSkip(key string, blocked bool, ev Event) error
}

// A CircuitTx is the state inside one Update.
type CircuitTx interface {
	CircuitView
	// Put stores c as key's circuit, adding the key if it is new.
	Put(key string, c breaker.Circuit)
	// Relax marks the transaction as one that only moved the counters of a
	// closed, healthy circuit (docs/guarantees.md: "Durability"): the store may write it
	// more cheaply, so that a power loss can lose it, but never a torn or
	// empty state. Nothing else may change in a relaxed transaction.
	Relax()
	// Rename moves from's state, whole, to the key to, if from has state
	// and to has none; it reports whether it did.
	Rename(from, to string) (bool, error)
	// Count adds to the lifetime totals over every key (Stats) the runs
	// recorded for key, and how many of them failed. A backend may keep
	// them with key, so that no one place is written by every call; they
	// outlive the key's state all the same.
	Count(key string, executions, failures int)
	// Log queues events, appended with the transaction.
	Log(events ...Event)
}

// A CircuitView reads the circuits.
type CircuitView interface {
	// Keys returns every key with state, sorted.
	Keys() []string
	// Has reports whether key has state.
	Has(key string) bool
	// Circuit returns key's circuit; a key with no state has a closed one.
	Circuit(key string) (breaker.Circuit, error)
	// Stats returns the totals over every key.
	Stats() Stats
	// Aside returns the entries found not to check out so far (Circuit
	// reads them as absent); the next Update sets them aside for good.
	Aside() []Aside
}

// An Aside is a key's state that did not check out (a value of the wrong
// type, an unknown state, a negative count): it is set aside on its own,
// and the key starts afresh, while every other key keeps working.
type Aside struct {
	Key string
	Raw []byte // the state as it was
	Err error
}

// Stats are the totals over every key, as the Python guardrails' report
// has them.
type Stats struct {
	TotalExecutions int64
	TotalFailures   int64
	HooksDisabled   int // circuits open now
	LastUpdated     time.Time
}

// A Holder holds a probe lease or a run slot: a process on a host.
type Holder struct {
	Host  string // "" is this host, for state written before hosts were recorded
	PID   int
	Start uint64 // the process's start time as the OS reports it; 0: unknown
}

// Liveness tells whether holders are alive.
type Liveness struct {
	Host  string                           // this host
	Local func(pid int, start uint64) bool // checks a process on this host
}

// Alive reports whether h is alive. A holder on another host cannot be
// checked from here: it counts as alive, and only its lease's expiry ends
// it.
func (l Liveness) Alive(h Holder) bool {
	if h.Host != "" && h.Host != l.Host {
		return true
	}
	return l.Local(h.PID, h.Start)
}

// Lease is Alive for a probe lease.
func (l Liveness) Lease(le breaker.Lease) bool {
	return l.Alive(Holder{Host: le.Host, PID: le.PID, Start: le.Start})
}

// A Clock is a transaction that keeps its own time: a database shared by
// many hosts decides on its clock (now()), so that hosts whose clocks
// disagree still agree on every decision.
type Clock interface{ Now() time.Time }

// TxNow returns the time of tx if it keeps one (see Clock), else now.
func TxNow(tx any, now time.Time) time.Time {
	if c, ok := tx.(Clock); ok {
		return c.Now()
	}
	return now
}

// SessionSep joins a command and the Claude Code session it is kept for,
// in the key of a circuit under scope: session. Such a key outlives its
// session by session_retention only: backends prune it then.
const SessionSep = " @ session "

// KeySession returns the session a key is kept for, or "" if it is not a
// session's key.
func KeySession(key string) string {
	i := strings.LastIndex(key, SessionSep)
	if i < 0 {
		return ""
	}
	return key[i+len(SessionSep):]
}
