// Outcomes by output: ignore_output and failure_output judge a run by what
// it printed, after its exit status; and which failed runs may be tried
// again (retries).

package circuit

import (
	"bytes"
	"fmt"
	"strings"

	"guard/breaker"
	"guard/config"
	"guard/internal/supervise"
)

// Output is what a run printed, as much of it as guard kept: the start and
// the end of its stdout and of its stderr (see OutputKeep).
type Output struct {
	Stdout, Stderr []byte
}

// ClassifyOutput is Classify, and then b's output rules, in this order:
//
//  1. a run that was cancelled, did not start (a launch failure too), timed
//     out or was killed by a signal is what Classify says: what it printed
//     does not excuse it;
//  2. an exit status in ignore_exit_codes (2, a Claude hook's block) is
//     ignored, whatever it printed: a block is never made a failure;
//  3. a failing exit status is ignored if the output matches one of
//     ignore_output ("rate limited", "ECONNRESET": not the hook's fault);
//  4. a succeeding exit status is a failure if the output matches one of
//     failure_output; else slow_call may still make it one.
//
// Each pattern is searched in stdout, then in stderr; the first that
// matches decides, and the line it matched is kept in the result's Error.
func ClassifyOutput(res *supervise.Result, b config.Breaker, dec breaker.Decision, out Output) breaker.Result {
	r := Classify(res, b, dec)
	if len(b.IgnoreOutput) == 0 && len(b.FailureOutput) == 0 || !judgedByStatus(res, r) {
		return r
	}
	switch b.Classify(res.ExitCode) {
	case breaker.Failure:
		if re, line := matchOutput(b.IgnoreOutput, out); re != "" {
			r.Outcome = breaker.Ignored
			r.Error = fmt.Sprintf("exit %d, ignored: its output matched ignore_output %q: %s", res.ExitCode, re, line)
		}
	case breaker.Success:
		if re, line := matchOutput(b.FailureOutput, out); re != "" {
			r.Outcome = breaker.Failure
			r.Error = fmt.Sprintf("exit %d, but its output matched failure_output %q: %s", res.ExitCode, re, line)
		}
	}
	return r
}

// judgedByStatus reports whether r, what Classify made of res, came from
// the exit status alone: the run started, ran to its end and was neither
// timed out, killed nor cancelled.
func judgedByStatus(res *supervise.Result, r breaker.Result) bool {
	return res.Ran() && !res.TimedOut && res.Signal == 0 && res.Interrupted == nil && !launchFailed(r)
}

// launchFailed reports whether Classify found that the command never
// started.
func launchFailed(r breaker.Result) bool {
	return r.Outcome == breaker.Failure && strings.HasPrefix(r.Error, notStarted)
}

// notStarted begins the error of a run that never started (see Classify).
const notStarted = "not started: "

// matchOutput returns the first of patterns found in out, and the line it
// was found in; "" if none is.
func matchOutput(patterns []string, out Output) (string, string) {
	if len(patterns) == 0 {
		return "", ""
	}
	res := config.OutputPatterns(patterns)
	streams := [][]byte{endLines(out.Stdout), endLines(out.Stderr)}
	for i, re := range res {
		for _, text := range streams {
			if loc := re.FindIndex(text); loc != nil {
				return patterns[i], lineAt(text, loc[0], loc[1])
			}
		}
	}
	return "", ""
}

// endLines ends text's CR LF lines with LF alone, so that $ (which ends a
// line at LF) ends them where the line's text does.
func endLines(text []byte) []byte {
	if !bytes.Contains(text, []byte("\r\n")) {
		return text
	}
	return bytes.ReplaceAll(text, []byte("\r\n"), []byte("\n"))
}

// lineAt returns the line of text that holds text[start:end], cut to a
// few hundred bytes, for the record.
func lineAt(text []byte, start, end int) string {
	from := bytes.LastIndexByte(text[:start], '\n') + 1
	to := len(text)
	if i := bytes.IndexByte(text[end:], '\n'); i >= 0 {
		to = end + i
	}
	return supervise.Summary(text[from:to], 200)
}

// Retryable reports whether a run that came to r may be tried again
// (retries): it failed on its own account, by a failing exit status other
// than 2 or by a match of failure_output; not by a timeout, a signal (its
// own, or guard's passed on), a launch failure (a missing script stays
// missing) or by being slow (it did its work).
func Retryable(res *supervise.Result, r breaker.Result, b config.Breaker, out Output) bool {
	if r.Outcome != breaker.Failure || !judgedByStatus(res, r) || res.ExitCode == 2 {
		return false
	}
	switch b.Classify(res.ExitCode) {
	case breaker.Failure:
		return true
	case breaker.Success:
		re, _ := matchOutput(b.FailureOutput, out)
		return re != ""
	}
	return false
}
