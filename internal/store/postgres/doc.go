// Package postgres is the PostgreSQL backend: the store interfaces on a
// database that many hosts share, for circuits and budgets that hold
// across hosts, and whose cost per call does not grow with the number of
// keys or of hosts.
//
// Each key's circuit is a row of guard_circuits (its entry of
// hook_state.json, so that every rule is the file backend's own, and export
// and import move the very same entries), each service's budget a row of
// guard_budgets, each run in flight a row of guard_runs, each event a row
// of guard_events; rows are keyed by a SHA-256 of their key, so keys of any
// length fit a btree.
//
// A call's statements go in rounds: each round is pipelined with one Sync,
// so the server runs it as one implicit transaction, rolled back whole if
// a statement fails, and never waits on the client inside it. Every round
// sets lock_timeout, statement_timeout and
// idle_in_transaction_session_timeout from guard's lock_timeout, with
// set_config(..., true): nothing outlives the transaction, so guard works
// through a transaction-mode pooler (pgbouncer). An update reads its rows
// in one round (a closed call's is the peek, which also lists the run),
// decides in Go, and writes in the next with compare-and-set on each row's
// version; a row that changed meanwhile (another host's call of the same
// key) is read again and the decision taken again. No lock is held across
// a round trip, and no row, lock or sequence is written by every call: the
// lifetime totals are kept per key (and, for pruned keys, in a few rows of
// guard_totals), event ids are random. A closed call is three round trips
// after the TCP connect: start-up and authentication, the peek with the
// run's listing, the record with the run's release, its event and the
// pruning of what has aged out (events past the retention, idle keys, runs
// long expired), a bounded batch of each.
//
// A run's row names its holder (host, pid, process start) and expires on
// the database's clock; the holder extends it while the run goes on (see
// Runs). A max_concurrent slot is such a row; a probe lease whose holder
// has no live row is reaped as dead, from any host.
//
// The schema is created on first use (or once by an administrator: guard
// state init) and versioned in guard_schema; a later guard migrates it, under
// a lock on guard_schema, in one transaction.
package postgres
