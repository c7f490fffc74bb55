// Package breaker holds guard's decision logic: one sliding-window engine
// (Window), and the two things built on it: the circuit breaker state
// machine (Circuit), whose failure_window counts failures with it, and the
// action budgets of service cooldowns (Budget).
//
// The package is pure. It does no I/O, never reads the clock and starts no
// process: every decision takes now as an argument, and whatever a decision
// did (a transition, a reaped lease) is returned as a value for the caller to
// persist and log. This keeps every rule testable as a table of steps, with
// the clock jumping wherever a test wants, including backwards.
//
// A circuit goes CLOSED -> OPEN after enough failures, OPEN -> HALF_OPEN once
// its cooldown has passed, and HALF_OPEN -> CLOSED after enough successful
// probes (or back to OPEN, with a doubled cooldown, after a failed one).
// Probes run under leases so that only a bounded number run at once, and a
// lease whose holder dies is reaped by the next caller.
//
// Values in this package are not safe for concurrent use. guard serialises
// access to a circuit with the state file's lock.
package breaker
