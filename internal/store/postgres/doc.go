// Package postgres is the PostgreSQL backend: the store interfaces on a
// database that many hosts share, for circuits and budgets that hold
// across hosts.
//
// The state is kept as the JSON file backend keeps it, a document each for
// the hook state and the cooldown state, in a row of guard_state: so every
// rule (the circuit steps, the budgets, entries set aside, unknown fields
// kept) is the file backend's own, and export and import move the very same
// JSON. Each update is one short transaction that takes a transaction-level
// advisory lock on its document, reads it with the database's clock
// (now()), applies its step, writes the row back and appends its events to
// guard_events, in one round of statements; the lock is never held while a
// command runs. A max_concurrent slot is a session-level advisory lock held
// on guard's connection for as long as its run goes on, and a row in
// guard_slots that lists it: the lock goes with the connection, however
// guard ends.
//
// The schema is created on first use and versioned in guard_schema, so a
// later guard migrates it.
//
// Limits: every update of a state rewrites its whole document, so a state
// of many thousands of keys costs in proportion; the lock serialises every
// update of one state across hosts, as the file's flock does on one host.
package postgres
