// Package supervise runs guard's child process the way timeout(1) would,
// and reports what became of it.
//
// The child inherits guard's stdin and stdout as they are, so a hook's JSON
// passes through byte for byte. Its stderr is copied through unchanged while
// the last few KiB are kept for the record of a failure.
//
// The child runs in a process group of its own, so that a timeout or an
// interrupt can reach the processes it started too: SIGTERM to the group,
// then SIGKILL after the grace period. The exception is a child whose stdin
// is a terminal: it stays in guard's process group so that it can still
// read the terminal, and then only the child itself is signalled.
//
// Signals sent to guard (SIGINT, SIGTERM, SIGHUP, SIGQUIT) are passed on to
// the child, which then gets the same grace before SIGKILL; the result is
// marked as interrupted so that the caller can record it as cancelled.
package supervise
