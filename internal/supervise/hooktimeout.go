package supervise

import "time"

// A Budget is how long guard lets a command run, and how long it gives it
// between SIGTERM and SIGKILL, when it must answer its caller within a
// timeout of the caller's own (Claude Code's timeout for a hook).
type Budget struct {
	Timeout   time.Duration // when guard stops the command; 0: never
	KillGrace time.Duration // from SIGTERM to SIGKILL
	// Hook is set when Timeout is the hook's timeout less guard's margin,
	// rather than guard's own timeout setting.
	Hook bool
}

// The margin guard keeps before a caller's timeout: a fixed part for
// guard's own work after the command is stopped (its grace, recording
// the outcome, exiting) and a share of the timeout for a loaded machine,
// at most maxMargin and never more than half the timeout.
const (
	marginFixed = 400 * time.Millisecond
	marginShare = 10 // percent
	maxMargin   = 5 * time.Second
)

// HookMargin returns how long before a caller's timeout of hook guard
// stops the command: a tenth of it plus 0.4s, at most 5s, and at most
// half of it. Claude Code's 600s default gives 5s; UserPromptSubmit's 30s,
// 3.4s; a 3s hook 0.7s; SessionEnd's 1.5s, 0.55s.
func HookMargin(hook time.Duration) time.Duration {
	return min(hook*marginShare/100+marginFixed, maxMargin, hook/2)
}

// HookBudget returns the budget of a command whose caller gives up on it
// after hook (0: the caller waits for ever), given guard's own timeout
// and kill_grace settings (timeout 0: none). guard stops the command
// HookMargin(hook) before hook, with a grace of at most half the margin,
// so that SIGKILL, the outcome's record and guard's exit all fit in it. A
// timeout setting that ends the command sooner still applies, its grace
// cut so that SIGKILL comes no later than it would for the hook's.
func HookBudget(hook, timeout, killGrace time.Duration) Budget {
	if hook <= 0 {
		return Budget{Timeout: timeout, KillGrace: killGrace}
	}
	margin := HookMargin(hook)
	stop, grace := hook-margin, min(killGrace, margin/2)
	if timeout > 0 && timeout < stop {
		return Budget{Timeout: timeout, KillGrace: min(killGrace, stop+grace-timeout)}
	}
	return Budget{Timeout: stop, KillGrace: grace, Hook: true}
}
