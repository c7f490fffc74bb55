package store

import (
	"errors"
	"os"
	"time"
)

// A Run is a run in flight: it holds one of its key's slots.
type Run struct {
	Key      string
	Holder   Holder // the guard process running it
	ChildPID int    // the command's, once it has started
	// ChildStart is the command's start time, as the OS reports it, where
	// the backend records it; 0: unknown.
	ChildStart uint64
	Started    time.Time
	Deadline   time.Time // zero: no timeout
	// KillGrace is the run's time from SIGTERM to SIGKILL, which a slot
	// that may be lost (Losing) leaves its command before it can expire.
	KillGrace time.Duration
	// Orphaned is set when the guard process is gone but the command it
	// started still runs (on a platform where it does not die with
	// guard): the run still holds its slot.
	Orphaned bool
}

// Runs are the slots that max_concurrent limits, across every process (and,
// in a shared backend, every host) that shares the state.
type Runs interface {
	// Acquire takes a slot for run among limit slots of its key, waiting
	// up to wait for one to free; with limit 0 the key is unlimited and
	// the slot only lists the run. It gives up with ErrFull when none
	// freed, and with ErrStopped as soon as stop (if not nil) reports
	// true. A slot is freed by Release, and by the backend when its holder
	// dies, however it dies.
	Acquire(run Run, limit int, wait time.Duration, stop func() bool) (Slot, error)
	// List returns the runs in flight whose holder alive says is alive.
	List(alive func(Holder) bool) ([]Run, error)
}

// A Slot is a place held by one run.
type Slot interface {
	// Started records the command's process, for List.
	Started(childPID int)
	// Release frees the slot.
	Release()
}

// A Held is a Slot its run's command can hold too: a file whose lock the
// kernel keeps while any process has it open. Handed to the command (see
// supervise.Spec.Hold), it keeps the slot taken after guard is killed for
// as long as the command, or anything it started, still runs: a parent-
// death signal ends only the command itself (faults #2). Release frees the
// slot whatever still holds the file.
type Held interface {
	Slot
	// File is the slot's file, or nil if the slot is not one to hand on
	// (a pool slot, which a background process left running would keep).
	File() *os.File
}

// Errors of Runs.Acquire.
var (
	ErrFull    = errors.New("every concurrency slot is taken")
	ErrStopped = errors.New("stopped while waiting for a slot")
)

// A Queued is a Slot whose release can ride with the store's next
// transaction (a database's next round trip), so that a run's release and
// its recorded outcome are one write: a Protocol calls ReleaseLater just
// before that transaction. A Release after it sends the release at once if
// no transaction has carried it, and else does nothing.
type Queued interface {
	Slot
	ReleaseLater()
}

// A Losing is a Slot that can be lost while its run goes on: a database's
// row whose holder could not extend it (the database away) expires, and
// another run may then take it. Lost is closed when the run must stop its
// command, early enough that it is gone (SIGTERM at once, SIGKILL after
// the run's KillGrace) before that can happen; LostWhy then says why.
// Lease says how long the slot lasts unless extended, and, when the
// store's setting was too short for the run's KillGrace and one round's
// time limit (RoundLimit) and was raised for it, that setting (else 0).
type Losing interface {
	Slot
	Lost() <-chan struct{}
	LostWhy() string
	Lease() (given, asked time.Duration)
	RoundLimit() time.Duration
}

// A SlotReleaser is a CircuitTx that can release a slot with its own
// write, and only if that write commits: a call its update decides to skip
// ends its run in the same transaction as the skip, and a decision taken
// again after a conflict (an update's function may run more than once)
// that runs the call keeps it. ReleaseSlot reports whether it took s.
// (A release queued for the store's next transaction instead would go
// with the write of whatever attempt came last: a run that was decided a
// probe would then lose its run in the very write that gives it its
// lease, and be reaped alive: faults #1.)
type SlotReleaser interface {
	ReleaseSlot(s Slot) bool
}

// A Lister is a Runs that lists a run of an unlimited key without a write
// of its own: the listing rides with the store's next read. A Protocol
// then lists the run before it decides, with the peek, so that a probe's
// holder is listed (and seen alive from other hosts) before it holds its
// lease.
type Lister interface {
	Runs
	ListsAhead()
}

// A Witness is a transaction that knows from the state itself whether a
// holder on another host is alive: a run's entry that its holder keeps
// extending while it runs, and that lapses soon after it dies. Alive
// reports whether h, holding a lease of key, is alive, and false for known
// when the transaction cannot tell (a holder on this host: Liveness checks
// its process).
type Witness interface {
	Alive(key string, h Holder) (alive, known bool)
}
