package guardrun

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"guard/config"
	"guard/internal/circuit"
	"guard/internal/supervise"
	"guard/internal/view"
)

// skipped tells the user, with msg, that key was not run, and exits as a
// skip does.
//
// With on_skip: block the call is blocked: msg goes to stderr, where
// Claude Code reads a block's reason, nothing goes to stdout, and guard
// exits 2. That is guard's deliberate, configured block, for a hook that
// must fail closed; the reason always says so.
//
// Otherwise, with a fallback, the fallback runs in the call's place (see
// fallback). Without one, guard exits open_exit_code (0) and the notice goes to stderr,
// or, under Claude Code (notice: auto with CLAUDE_PROJECT_DIR set, or
// notice: system-message), to stdout as {"systemMessage": ...}, which
// Claude shows the user; that is only possible with exit status 0, because
// Claude reads a hook's JSON only then. The event of the hook payload on
// stdin decides the rest (see skipEvent): a WorktreeCreate hook's stdout
// is the new worktree's path, so a skip there is a failure, exit 1, with
// the notice on stderr; on events whose systemMessage Claude Code
// discards, the notice goes to stderr.
func (e *Env) skipped(cfg *config.Config, b config.Breaker, key string, msg string) error {
	if b.OnSkip == "block" {
		return e.block(msg)
	}
	if b.Fallback != "" {
		if e.Getenv(fallbackReasonVar) == "" {
			return e.fallback(cfg, b, key, msg)
		}
		// This call comes from a fallback: a fallback never runs another,
		// or two open keys whose rules have fallbacks that call each other
		// would start guard inside guard, deeper and deeper, until the
		// first fallback's timeout.
		e.Warnf("the fallback of %s was not run: this call comes from the fallback of %s, and a fallback never runs another",
			circuit.KeyWord(key), circuit.KeyWord(e.Getenv(fallbackKeyVar)))
	}
	event := e.skipEvent(cfg)
	code := b.OpenExitCode
	if event == "WorktreeCreate" {
		// Whatever the notice setting: a failure states its reason.
		fmt.Fprintln(e.Stderr, view.Printable(msg)+"; a skipped WorktreeCreate hook creates no worktree, so this is a failure")
		return Exit(worktreeCreateExit(code))
	}
	mode := cfg.Notice
	if mode == "auto" {
		mode = "stderr"
		if e.Getenv(circuit.ProjectVar) != "" {
			mode = "system-message"
		}
	}
	switch {
	case mode == "system-message" && code == 0 && !discardsSystemMessage[event]:
		out, _ := json.Marshal(map[string]string{"systemMessage": msg})
		fmt.Fprintf(e.Stdout, "%s\n", out)
	case mode != "none":
		fmt.Fprintln(e.Stderr, view.Printable(msg))
	}
	return Exit(code)
}

// block ends a call guard skipped for a hook marked on_skip: block: the
// one line msg (guard: skipped "KEY": why; how to retry) on stderr, with
// what guard does about it, naming what marked the hook, nothing on
// stdout, and exit 2, Claude Code's block. The warnings held back are
// dropped, as for any exit 2: the reason is one line.
func (e *Env) block(msg string) error {
	fmt.Fprintln(e.Stderr, view.Printable(msg)+"; "+e.blockedBy())
	return Exit(2)
}

// blockedBy says what made guard block a skipped call, in the words the
// user set it with (newcomer-and-mission #10): --on-skip block on the
// hook's command line, which guard install writes for a hook whose
// "onFailure" is "block"; else on_skip: block in guardrails.yaml.
func (e *Env) blockedBy() string {
	if e.onSkipFlag {
		return `blocked, as --on-skip block asks for this hook (guard install writes it for "onFailure": "block")`
	}
	return "blocked, as on_skip: block in guardrails.yaml asks for this hook"
}

// skipExit is the status of a call guard skips with a warning (failure_mode:
// closed), as skipped would exit.
func (e *Env) skipExit(cfg *config.Config, b config.Breaker) int {
	if e.skipEvent(cfg) == "WorktreeCreate" {
		return worktreeCreateExit(b.OpenExitCode)
	}
	return b.OpenExitCode
}

// worktreeCreateExit is the status of a skipped WorktreeCreate hook: a
// failure, since Claude Code creates no worktree without the hook's path.
func worktreeCreateExit(openExitCode int) int {
	if openExitCode == 0 {
		return 1
	}
	return openExitCode
}

// discardsSystemMessage are the Claude Code hook events whose JSON output,
// systemMessage included, Claude Code discards (hooks reference: their
// decision control is "none", or their output is ignored): a skip notice
// there goes to stderr, and to the event log. (WorktreeCreate has its own
// rule: see skipped.)
var discardsSystemMessage = map[string]bool{
	"Notification":       true,
	"StopFailure":        true,
	"WorktreeRemove":     true,
	"InstructionsLoaded": true,
	"SessionEnd":         true,
	"PreCompact":         true,
	"PostCompact":        true,
	"Setup":              true,
	"ConfigChange":       true,
	"MessageDisplay":     true,
	"Elicitation":        true,
	"ElicitationResult":  true,
}

// skipEvent returns the hook_event_name of the Claude Code payload on
// stdin, for a call guard skips: the command does not run, so reading its
// stdin costs it nothing. It reads only under Claude Code (CLAUDE_PROJECT_DIR
// set, or notice: system-message), where stdin is a payload that ends;
// elsewhere, and for a payload that is not JSON, it returns "".
func (e *Env) skipEvent(cfg *config.Config) string {
	if e.Getenv(circuit.ProjectVar) == "" && cfg.Notice != "system-message" {
		return ""
	}
	var p struct {
		Event any `json:"hook_event_name"`
	}
	if json.Unmarshal(e.payload(), &p) != nil {
		return ""
	}
	s, _ := p.Event.(string)
	return s
}

// maxPayload is how much of its stdin guard reads for a hook payload; the
// child gets all of it either way.
const maxPayload = 4 << 20

// payload reads the Claude Code hook payload on stdin, once, and hands
// the child the very same bytes: those read, then the rest. A terminal is
// not read; a payload longer than maxPayload is cut there.
func (e *Env) payload() []byte {
	if e.payloadRead {
		return e.payloadBuf
	}
	e.payloadRead = true
	if e.Stdin == nil || supervise.IsTerminal(e.Stdin) {
		return nil
	}
	e.payloadBuf, _ = io.ReadAll(io.LimitReader(e.Stdin, maxPayload))
	e.Stdin = io.MultiReader(bytes.NewReader(e.payloadBuf), e.Stdin)
	return e.payloadBuf
}
