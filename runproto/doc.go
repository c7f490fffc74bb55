// Package runproto is the protocol of guard run, on any store backend:
//
//   - Admit decides whether a call of a key may run. A call on a closed
//     circuit is decided on a lock-free Peek; anything that changes the
//     state (a probe lease, a transition, a skip to count) is decided again
//     inside one store transaction, where dead or expired probe leases are
//     reaped.
//   - Start takes the run's place among its key's max_concurrent slots
//     (or, for an unlimited key, lists it once the command has started).
//   - Classify turns what became of the command into the breaker's
//     outcome: success, ignored, failure (a slow call too) or cancelled.
//   - Record applies the outcome in one transaction, releasing any lease.
//
// It also names circuits: the key of a command (key.go).
package runproto
