// Package notify starts the on_state_change command of a key's circuit on
// its transitions, without delaying or failing the call that made them.
//
// Start hands the transitions to a helper, guard itself run again with a
// hidden command, started detached (a session of its own on Unix; on
// Windows a process group and a console of its own, with no window): no standard stream of the caller's is
// handed down, so a hook's caller (Claude Code, reading its stdout and
// stderr to their end) never waits for it, and what kills the hook's
// process group does not kill it. guard does not wait for the helper.
// The helper runs the command once per transition, in order, each run
// bounded by on_state_change_timeout, and logs how each went; it is what
// bounds the command in time once guard has exited.
//
// A Transition travels to the helper as one JSON line on its stdin (a pipe
// of its own, not the caller's: the command line is capped by the kernel,
// and a flood of transitions would not fit); Encode and Decode are the two
// ends.
package notify
