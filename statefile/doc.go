// Package statefile stores one JSON document in one file that many processes
// share, such as guard's hook_state.json and cooldown.json.
//
// Guarantees:
//
//   - Every read-modify-write (Update) runs under an exclusive flock(2) on a
//     sidecar file, "<path>.lock", created with mode 0600 and never deleted.
//     Waiters queue: each waits in the kernel's own queue for the lock
//     (gofrs/flock's blocking Lock, in a goroutine), so that they are
//     served as the holder lets go, not whichever polls at the right
//     moment. A lock that is not obtained within the lock timeout (or
//     LockWithin's) fails with ErrLockTimeout rather than hanging its
//     caller; the wait given up on releases the lock at once if it gets it
//     later (queue.go). The wait is flock(2) on Linux and macOS and
//     LockFileEx on Windows, whose waiters the kernel also wakes as the
//     holder lets go; an uncontended lock costs what it did when it was
//     polled (one non-blocking try), a contended one a goroutine, and a
//     thread while it waits. guard's other flocks, on the event log and the
//     slot files, need no timeout.
//   - The document is only ever replaced whole, by atomicfile.Replace: a
//     temp file in the same directory (created with O_EXCL), written,
//     fsynced and closed, renamed over the target, and then the directory
//     is fsynced. A failure before the rename removes the temp file.
//     Readers therefore see the old document or the new one, never a mix,
//     and need no lock (Load).
//   - A relaxed write (an update whose document says so, see Relaxer: a
//     healthy run's counters, a skip's count) skips the directory's fsync,
//     and also the temp file's where the filesystem orders a replacing
//     rename after the new file's data (Linux only: ext4 with auto_da_alloc
//     and a journal in data=ordered mode, tmpfs; see renameKeepsData); on macOS it syncs the
//     temp file with F_BARRIERFSYNC, which orders its data before the
//     rename without waiting for the drive's cache. A power loss may then
//     undo a relaxed write, leaving the document before it, whole; it never
//     leaves a torn or empty file. Every other update is fully durable.
//   - Whether a filesystem orders a rename after the data is decided from
//     one statfs(2) for every filesystem but ext4; for ext4 it takes the
//     mount options, from /proc/self/mountinfo, and the journal's data mode
//     from ext4's own option list, /proc/fs/ext4/DEV/options (an ext4
//     without a journal has none, and is fsynced). That decision is made once
//     per mount and kept on the lock file (an extended attribute,
//     user.guard.mount, naming the device, the mount's ID and the
//     filesystem's ID): a later relaxed write on the same mount reads it
//     back with a statx(2) and a getxattr(2), under the lock, instead of
//     the mount table. Another filesystem at the path, or the same one
//     mounted again, has another mount and is decided afresh; a decision
//     older than ten seconds is too, so that a remount (which keeps the
//     mount's ID) is seen within ten seconds. Where the lock file cannot
//     hold the attribute, every relaxed write decides.
//   - A replaced file keeps the mode of the file it replaces; a new file is
//     0600. A symlinked path is resolved once, so the lock and the temp file
//     sit beside the real file and the link survives.
//   - A file that does not parse is never overwritten. Update moves it aside
//     to "<path>.corrupt-<UTC time>" and starts from an empty document.
//   - A document type keeps JSON members it does not know, at every level,
//     across a read and a write, with package jsonx's Extra.
//
// Platforms: the sequence and the guarantees are the same on Linux, macOS
// and Windows; the primitives differ (atomicfile's doc says which). The
// lock is flock(2) on Linux and macOS and LockFileEx on Windows (both
// through gofrs/flock), released by the system when its holder dies.
// Owners and modes (owner.go) follow the same rules on Linux and macOS;
// Windows has no owner to hand over, no modes beyond read-only and no
// sticky directories, so those rules do nothing there, and the files a
// reader opens are opened with FILE_SHARE_DELETE (OpenFile) so that a
// writer's rename is never refused because of a reader.
//
// Limits: the lock is advisory on Unix, so writers that do not take it (a
// person's editor, a jq one-liner) can still lose an update, though they
// cannot tear the file if they also replace it whole. flock over NFS is not
// reliable; keep state files on a local filesystem.
package statefile
