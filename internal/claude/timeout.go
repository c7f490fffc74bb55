package claude

import "strconv"

// HookTimeout is how long Claude Code lets a command hook of event run
// when the hook sets no "timeout", in seconds (measured with Claude Code
// 2.1.328): 600 for a command hook, but 30 on UserPromptSubmit and 1.5 on
// SessionEnd (which CLAUDE_CODE_SESSIONEND_HOOKS_TIMEOUT_MS changes).
func HookTimeout(event string) float64 {
	switch event {
	case "UserPromptSubmit":
		return 30
	case "SessionEnd":
		return 1.5
	}
	return 600
}

// sessionEndLimit is the longest Claude Code waits for the SessionEnd
// hooks, whatever their "timeout": it ends them all after the longest of
// their timeouts, but at most 60 s (measured with Claude Code 2.1.328;
// CLAUDE_CODE_SESSIONEND_HOOKS_TIMEOUT_MS can raise it).
const sessionEndLimit = 60

// HookLimit is how long Claude Code lets a command hook of event whose
// "timeout" is timeout (0: none) run, in seconds: its timeout, or the
// default for its event (HookTimeout), but for SessionEnd at most 60 s,
// after which Claude Code cancels it whatever its timeout says.
func HookLimit(event string, timeout float64) float64 {
	if timeout <= 0 {
		timeout = HookTimeout(event)
	}
	if event == "SessionEnd" {
		return min(timeout, sessionEndLimit)
	}
	return timeout
}

// MaxHookTimeout is the longest "timeout" install hands guard run (about
// 31 years): a longer one is no limit, and guard run would refuse it.
const MaxHookTimeout = 1e9

// Seconds writes a number of seconds as guard run --hook-timeout takes
// it, and as settings.json writes a "timeout": 600, 1.5.
func Seconds(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
