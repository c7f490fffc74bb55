// Package hookstate is guard's hook state file, hook_state.json: its schema,
// and the breaker operations applied to one key inside a locked update.
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
