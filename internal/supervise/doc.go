// Package supervise runs guard's child process the way timeout(1) would,
// and reports what became of it. Its lifetime is guard's: what ends guard
// ends the child and what the child started, and guard ends them itself at
// a timeout (see HookBudget for the caller's own timeout).
//
// The child inherits guard's stdin and stdout as they are, so a hook's JSON
// passes through byte for byte. Its stderr is copied through unchanged while
// the last few KiB are kept for the record of a failure.
//
// On Unix the child runs in guard's own process group, so that a signal
// sent to that group (Claude Code sends SIGTERM, then SIGKILL, to the group
// of every hook it gives up on; a terminal sends Ctrl-C to its foreground
// group) reaches the child and what it started exactly as without guard.
// guard's own stops (a timeout, kill_background, the escalation after an
// interrupt) go to guard's descendants, found in the process table, and
// never to guard itself, its parent or the other commands of a pipeline;
// a process in a session of its own (setsid: a daemon the hook detached on
// purpose) is left alone. SIGTERM, then SIGKILL after the grace; SIGCONT
// with SIGTERM, so that a stopped process can act on it.
//
// What each platform adds (proc_linux.go, proc_darwin.go, start_windows.go):
//
//   - Linux: the child has a parent-death signal (SIGKILL), so a SIGKILL of
//     guard alone ends it too, and guard is a child subreaper, so what the
//     child orphans stays guard's descendant and is found.
//   - macOS: neither exists. A SIGKILL of guard alone leaves the child
//     running; orphans are found through guard's process group when guard
//     leads it (as under Claude Code).
//   - Windows: the child runs in a job object that kills every process in
//     it when guard's handle closes, however guard ends; Ctrl-Break stands
//     for SIGTERM and TerminateJobObject for SIGKILL. There are no signals
//     to pass on but Ctrl-Break.
//
// Signals sent to guard (SIGINT, SIGTERM, SIGHUP, SIGQUIT) are passed on to
// the child, except those a terminal sent to its foreground group, which
// the child got already; the child then gets the grace before SIGKILL, and
// the result is marked as interrupted so that the caller can record it as
// cancelled. A signal after the timeout leaves the run a timeout.
package supervise
