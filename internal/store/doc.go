// Package store says what guard keeps and how the rest of guard reaches
// it, whatever keeps it: the circuits of every key (with their probe
// leases and counts), the runs in flight that max_concurrent limits, and
// the event log that explains both, and the action budgets of services.
// A backend only reads and writes: a key's circuit, a service's records
// and streak, the stamps, the runs, the events. The rules are written once
// above it, over package breaker: package circuit (the steps and the run
// protocol) and package cooldown (the budget steps), which with the CLI
// work through these interfaces only; a backend implements them and
// registers itself for a kind of location (Register): store/file for paths,
// the default, and store/postgres for postgres:// URLs, linked into
// guard-pg only. This package owns the data every backend shares: the
// Event, the errors callers branch on (ErrBusy, ErrCorrupt), holders. The
// two documents (store/hookstate, store/cooldownstate) are the JSON file
// formats, which the backends read and write.
//
// A backend guarantees:
//
//   - Peek is a lock-free read, advice for a call that changes nothing: it
//     may be stale, never torn.
//   - Update runs its function in one transaction over the whole state: no
//     other update of any key interleaves, the events the function logs are
//     appended in the same step, and nothing is written if it fails. It is
//     short: it is never held while a command runs.
//   - Snapshot is a consistent view, for reports and exports.
//   - A Holder (of a probe lease, or of a run slot) is named by host, pid
//     and process start time. Liveness knows that a holder on this host
//     can be checked, and that a holder on another host cannot: it is
//     alive until its lease expires.
package store
