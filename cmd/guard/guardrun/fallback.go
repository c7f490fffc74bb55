package guardrun

import (
	"guard/breaker"
	"guard/config"
	"guard/internal/circuit"
	"guard/internal/store"
	"guard/internal/supervise"
	"guard/internal/view"
)

// The variables a fallback gets: the key it stands in for, and why the
// call was skipped. A guard run that finds them set is run by a fallback.
const (
	fallbackKeyVar    = "GUARD_KEY"
	fallbackReasonVar = "GUARD_SKIP_REASON"
)

// fallback runs b's fallback in place of a call of key guard did not run
// (msg says why, e.skipWhy in a word): with the call's stdin (the hook's
// payload; the very bytes, if guard read them) and environment, plus
// GUARD_KEY and GUARD_SKIP_REASON, under the run's shell, stopped after
// fallback_timeout (cut to fit --hook-timeout). Its stdout and exit status
// are the call's when it did its job: a status in success_exit_codes or
// ignore_exit_codes (its own 2 is its own block). A fallback that failed
// (another status, a timeout, a signal, a launch failure) is a warning,
// and the call exits as the skip would have, with none of its stdout (held
// back until its status is known, up to maxHeld: a failed fallback's
// partial JSON must not reach Claude Code as the hook's answer): guard
// never exits 2, nor fails the call, on the fallback's account. The skip
// notice goes to stderr (stdout is the fallback's), unless notice: none;
// the run is logged as a fallback event. It is never the hook's outcome.
// (A hook with on_skip: block never gets here: its block wins.)
func (e *Env) fallback(cfg *config.Config, b config.Breaker, key, msg string) error {
	if cfg.Notice != "none" {
		e.notef("%s; ran its fallback instead", view.Printable(msg))
	}
	// The skip's own status, should the fallback fail, is found now: it
	// may read the payload (a WorktreeCreate hook's), which the fallback
	// then gets as it is.
	skipCode := e.skipExit(cfg, b)
	fb := e.hookBudget(config.Breaker{Timeout: b.FallbackTimeout, KillGrace: b.KillGrace})
	shell := ShellPath(e.runShell)
	if e.SigsReady != nil {
		<-e.SigsReady
	}
	e.childStarted = true // a panic from here on must not run the hook after its fallback
	stdout := &held{dst: e.Stdout}
	res := supervise.Run(supervise.Spec{
		Argv:        []string{shell, "-c", b.Fallback},
		Env:         append(e.Environ(), fallbackKeyVar+"="+key, fallbackReasonVar+"="+e.skipWhy),
		Stdin:       e.Stdin,
		Stdout:      stdout,
		Stderr:      e.Stderr,
		Timeout:     fb.Timeout,
		KillGrace:   fb.KillGrace,
		HookTimeout: e.hookTimeout,
		Signals:     e.Sigs,
	})
	failed := !res.Ran() || res.TimedOut || res.Signal != 0 || b.Classify(res.ExitCode) == breaker.Failure
	if !failed && res.LaunchFailure() != "" {
		failed = true // it never started, whatever its status says
	}
	ev := store.Event{Time: e.Now(), Event: store.EventFallback, Key: key, Reason: e.skipWhy, Outcome: string(breaker.Success),
		Exit: store.Int(res.ExitCode), DurationMS: store.Int64(res.Elapsed.Milliseconds())}
	if failed {
		ev.Outcome, ev.Error = string(breaker.Failure), res.Describe(fb.Timeout)
	}
	if res.Interrupted != nil {
		ev.Outcome = string(breaker.Cancelled)
	}
	if failed && res.Interrupted == nil {
		stdout.drop()
	} else {
		stdout.pass()
	}
	// What became of the action: the fallback's own 2 blocks it (as a
	// hook's does); else the call exits as the fallback did, or as the
	// skip would have (never 2).
	ev.Verdict = store.VerdictOf(!failed && res.Interrupted == nil && res.ExitCode == 2)
	if e.runHooks != nil {
		if a, ok := e.runHooks.Events.(store.Appender); ok {
			if err := a.Append(ev); err != nil {
				e.LogFailed(err)
			}
		}
	}
	switch {
	case res.Interrupted != nil:
		return Exit(res.ExitCode) // guard's caller ended the call: 128+n
	case failed:
		e.Warnf("the fallback of %s failed (%s); exit %d, as the skip would without it", circuit.KeyWord(key), view.Printable(ev.Error), skipCode)
		return Exit(skipCode)
	}
	return Exit(res.ExitCode)
}
