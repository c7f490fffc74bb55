// Package statefile stores one JSON document in one file that many processes
// share, such as guard's hook_state.json and cooldown.json.
//
// Guarantees:
//
//   - Every read-modify-write (Update) runs under an exclusive flock(2) on a
//     sidecar file, "<path>.lock", created with mode 0600 and never deleted.
//     A lock that is not obtained within the lock timeout fails with
//     ErrLockTimeout rather than hanging its caller. (The lock is taken with
//     gofrs/flock, polled, because it needs that timeout; guard's other
//     flocks, on the event log and the slot files, need none.)
//   - The document is only ever replaced whole, by atomicfile.Replace: a
//     temp file in the same directory (created with O_EXCL), written,
//     fsynced and closed, renamed over the target, and then the directory
//     is fsynced. A failure before the rename removes the temp file.
//     Readers therefore see the old document or the new one, never a mix,
//     and need no lock (Load).
//   - A relaxed write (an update whose document says so, see Relaxer: a
//     healthy run's counters, a skip's count) skips the directory's fsync,
//     and also the temp file's where the filesystem orders a replacing
//     rename after the new file's data (ext4 with auto_da_alloc and
//     data=ordered, tmpfs; see renameKeepsData). A power loss may then undo
//     a relaxed write, leaving the document before it, whole; it never
//     leaves a torn or empty file. Every other update is fully durable.
//   - A replaced file keeps the mode of the file it replaces; a new file is
//     0600. A symlinked path is resolved once, so the lock and the temp file
//     sit beside the real file and the link survives.
//   - A file that does not parse is never overwritten. Update moves it aside
//     to "<path>.corrupt-<UTC time>" and starts from an empty document.
//   - A document type keeps JSON members it does not know, at every level,
//     across a read and a write, with package jsonx's Extra.
//
// Limits: the lock is an advisory flock, so writers that do not take it (a
// person's editor, a jq one-liner) can still lose an update, though they
// cannot tear the file if they also replace it whole. flock over NFS is not
// reliable; keep state files on a local filesystem.
package statefile
