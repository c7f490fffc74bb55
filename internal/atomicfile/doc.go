// Package atomicfile replaces files atomically and durably: the one way
// guard writes a file whole (Replace), whether a state file (package
// statefile calls it under its lock, relaxing the fsyncs where it may), a
// report, a checkpoint or Claude Code's settings.json (WriteFile).
// A reader sees the old file or the new one, never a mix; after a crash of
// the machine, the old or the new one, never an empty one. Files keep
// their mode, owner and group where the system has them.
//
// It also holds the rule for symlinks another user planted in a sticky
// world-writable directory (CheckLink, Resolve), which every file guard
// writes follows: the state and the files beside it as much as WriteFile's.
//
// The sequence is the same everywhere (a temp file beside the target,
// write, sync, close, rename over the target, sync the directory); each
// system's own primitives carry it out, in file_unix.go and
// file_windows.go:
//
//   - Linux: fsync(2) of the temp file, rename(2), fsync(2) of the
//     directory, which is what makes a rename durable there.
//   - macOS: os.File.Sync, which is fcntl(F_FULLFSYNC) on darwin (Go's
//     internal/poll/fd_fsync_darwin.go; plain fsync(2) only where the
//     filesystem refuses F_FULLFSYNC, such as SMB): a plain fsync on macOS
//     leaves the data in the drive's cache. The directory is synced the
//     same way: on APFS, whose metadata (a rename included) is committed
//     in copy-on-write transactions, a sync of the directory is what asks
//     for the transaction holding the rename to reach the disk, and
//     F_FULLFSYNC then empties the drive's cache. No raw fsync is made.
//   - Windows: FlushFileBuffers of the temp file (os.File.Sync), then a
//     write-through rename: SetFileInformationByHandle(FileRenameInfoEx)
//     with POSIX semantics, so that the state can be replaced while a
//     reader has the old file open (it then keeps reading the old one),
//     and MoveFileEx(MOVEFILE_REPLACE_EXISTING|MOVEFILE_WRITE_THROUGH)
//     where the filesystem has no POSIX rename (FAT, older Windows). There
//     is no directory sync: Windows cannot open a directory for a flush,
//     and a write-through rename returns only once NTFS has the new name
//     on disk. A rename refused because another program (an antivirus, an
//     editor) holds the file without FILE_SHARE_DELETE is retried for a
//     moment. Files guard reads are opened with FILE_SHARE_DELETE (see
//     statefile.OpenFile) so that they never block a writer's rename.
//
// Owners and modes: on Linux and macOS a replaced file keeps its mode,
// owner and group (root writing a user's file gives it back to the user).
// Windows has no owner a process can give away and no modes but
// read-only: a replaced file keeps its read-only attribute, and the new
// file's security descriptor is inherited from its directory, as every
// new file's is.
//
// Limits: it relies on rename and sync within one directory of a local
// filesystem; NFS and SMB give weaker guarantees.
package atomicfile
