// Package safeopen opens the files guard reads for its own purposes
// without ever waiting on them: its config, Claude Code's settings files,
// the scripts doctor inspects, slot records, event logs, checkpoints to
// import. open(2) of a FIFO with no writer waits for one for ever, and a
// read of a character device (a terminal) or a FIFO until it has
// something to say; guard would hang, the hook behind it with it.
//
// Open opens with O_NONBLOCK, so that the open itself cannot wait, looks
// at what it opened, refuses anything that is not a regular file (a FIFO,
// a device, a socket, a directory) with a NotRegularError that says what
// it is, and then reads it as any file. The null device is the one
// exception: it never waits, reads as empty, and GUARD_CONFIG=/dev/null is
// how a user says "no config". A regular file's reads do not
// wait but on the disk, or on a network filesystem whose server is gone:
// that the kernel does not let guard cut short, but a signal still ends
// guard.
package safeopen
