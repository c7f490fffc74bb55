// Package file is guard's JSON file backend, the default: the store
// interfaces on files beside each other in one directory.
//
//   - hook_state.json (package hookstate's document) is the circuits
//     (circuits.go), and cooldown.json (package cooldownstate's) the
//     budgets (budgets.go). Each is one JSON document under a sidecar flock,
//     replaced whole by package statefile; a file that does not parse is
//     moved aside (statefile.go), and an entry that does not check out is
//     kept in STATE.quarantine (circuits.go).
//   - STATE.runs/ holds one slot file per run in flight, flock'ed while the
//     run lasts: max_concurrent's limit and the list 'guard status' shows
//     (runs.go).
//   - STATE.events.jsonl (beside the state, or logging.event_log) is the
//     audit trail, appended under its own flock and rotated at a size
//     (eventlog.go).
//   - STATE.skips is the skip tally: the skips guard run counts without the
//     state's lock and without rewriting the state, folded into the totals
//     by the next update, which records how far it has folded; a snapshot
//     adds the rest (skiptally.go, store.SkipCounter).
//   - Exports and imports of a whole file (checkpoint.go).
//
// Four flocks, each for a reason. The state's sidecar lock is waited for
// in the kernel's queue with a timeout (gofrs/flock, in statefile), because
// a caller must give up after lock_timeout and run the hook unguarded (the
// record of an outcome, after the command ran, waits record_timeout). The
// slot files are tried without blocking (tryLockFile), one after the other:
// an unlimited key takes the first free one, and a max_concurrent key's run
// polls its key's slots, with back-off, until its queue_timeout has passed
// (then it is refused with store.ErrFull). The event log's and the skip
// tally's are tried (lockWithin), so that a stopped holder of either never
// holds up the state: under the state's lock each is tried once. An
// append then left waiting is made once the state's lock is let go,
// trying until lock_timeout, and is otherwise left out with a warning; a
// skip counted without the state's lock tries the tally's until
// lock_timeout, then is counted under the state's; a fold leaves the
// tally to a later write.
// Each is flock(2) on Linux and macOS (lock_unix.go) and LockFileEx on
// Windows (lock_windows.go), where a lock is mandatory for the range it
// covers: guard's cover a byte past any content, so that readers of the log
// and the slots are never refused. No lock file is ever removed; a slot
// file is removed by the holder of its lock.
//
// The backend registers itself for paths (store.KindFile) when linked in.
package file
