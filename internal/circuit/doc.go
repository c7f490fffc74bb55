// Package circuit is a key's circuit breaker on any store backend: the
// steps that apply package breaker's decisions inside one store transaction
// (steps.go), the protocol of guard run built on them (protocol.go), and
// the names of circuits, their keys (key.go, scope.go).
//
// The protocol:
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
package circuit
