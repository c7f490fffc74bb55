package statefile

// OpenFile opens a file as os.OpenFile does, not inherited by the
// processes guard starts, in the way each system needs for a file that
// many processes share and that is replaced whole:
//
//   - Unix (osfile_unix.go): close-on-exec, and kept out of Go's network
//     poller, which cannot wait on regular files anyway: os.OpenFile finds
//     that out on every open, at the cost of five more system calls, and
//     guard opens several files on every run.
//   - Windows (osfile_windows.go): with FILE_SHARE_DELETE as well as read
//     and write sharing, which os.OpenFile does not give. A file another
//     process has open without it cannot be renamed over or removed, so
//     without it a reader of the state (guard status, a hook reading the
//     event log) would make every writer's replace fail. Every file guard
//     reads that another guard may replace, rotate or remove is opened
//     through OpenFile.
//
// NoFollow added to flag refuses a symlink at path where the system can:
// O_NOFOLLOW on Unix; nothing on Windows, which has no sticky directories
// for another user to plant a link in (see atomicfile.CheckLink).
//
// OpenFile(path, os.O_RDONLY, 0) is the portable spelling of os.Open for
// guard's shared files.
