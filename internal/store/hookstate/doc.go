// Package hookstate is guard's hook state document, hook_state.json: its
// schema, its hand-written codec, the search for one key in a sealed file,
// and the Document every backend that keeps it uses as a store.CircuitTx
// (package circuit's steps run on it).
//
// The format is a superset of the Python guardrails' file. Each key's entry
// keeps their fields (state, failure_count, consecutive_failures,
// consecutive_successes, first_failure, last_failure, last_success,
// last_error, disabled_at, retry_after) with their meanings, and adds
// guard's own (reopen_count, open_reason, forced, failure_times,
// probe_leases, last_run, totals). Timestamps are written as RFC 3339 UTC
// at second precision; any RFC 3339 form is read. Members guard does not
// know are kept at every level.
package hookstate
