// Package store says what guard keeps and how the rest of guard reaches
// it, whatever keeps it: the circuits of every key (with their probe
// leases and counts), the runs in flight that max_concurrent limits, and
// the event log that explains both. The run protocol (package runproto),
// the circuit steps (package circuit) and the CLI work through these
// interfaces only; a backend implements them. The JSON file backend
// (hookstate, bulkhead, eventlog) is the embedded default.
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
