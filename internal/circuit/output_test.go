package circuit_test

import (
	"errors"
	"strings"
	"syscall"
	"testing"
	"time"

	"guard/breaker"
	"guard/config"
	"guard/internal/circuit"
	"guard/internal/supervise"
)

// TestClassifyOutput: the exit status first, then what the run printed
// (issue 34, item 6).
func TestClassifyOutput(t *testing.T) {
	b := config.Default("/h").CircuitBreaker
	b.IgnoreOutput = []string{"rate limit", "ECONNRESET"}
	b.FailureOutput = []string{"^ERROR:"}
	b.SlowCall = time.Second
	tests := []struct {
		name         string
		res          supervise.Result
		out          circuit.Output
		want         breaker.Outcome
		wantErr      string
		wantRetrying bool
	}{
		{"failure, rate limited on stderr", supervise.Result{ExitCode: 1}, circuit.Output{Stderr: []byte("a\nHTTP 429: rate limited\n")}, breaker.Ignored, "HTTP 429: rate limited", false},
		{"failure, ECONNRESET on stdout", supervise.Result{ExitCode: 7}, circuit.Output{Stdout: []byte("read ECONNRESET")}, breaker.Ignored, "ECONNRESET", false},
		{"failure, nothing matches", supervise.Result{ExitCode: 1}, circuit.Output{Stderr: []byte("bad token")}, breaker.Failure, "exit 1", true},
		{"success, ERROR at a line start", supervise.Result{ExitCode: 0}, circuit.Output{Stdout: []byte("ok\nERROR: boom\n")}, breaker.Failure, "failure_output \"^ERROR:\": ERROR: boom", true},
		{"success, ERROR mid-line is no match", supervise.Result{ExitCode: 0}, circuit.Output{Stdout: []byte("no ERROR: here")}, breaker.Success, "", false},
		{"a block stays a block", supervise.Result{ExitCode: 2}, circuit.Output{Stderr: []byte("ERROR: denied, rate limit")}, breaker.Ignored, "", false},
		{"a timeout stays a failure", supervise.Result{ExitCode: 124, TimedOut: true}, circuit.Output{Stderr: []byte("rate limited")}, breaker.Failure, "timeout", false},
		{"a signal stays a failure", supervise.Result{ExitCode: 137, Signal: syscall.SIGKILL}, circuit.Output{Stderr: []byte("rate limited")}, breaker.Failure, "killed", false},
		{"not started stays a failure", supervise.Result{ExitCode: 127, StartErr: errors.New("x: command not found")}, circuit.Output{Stderr: []byte("rate limited")}, breaker.Failure, "command not found", false},
		{"cancelled stays cancelled", supervise.Result{ExitCode: 130, Interrupted: syscall.SIGINT}, circuit.Output{Stderr: []byte("ERROR: x")}, breaker.Cancelled, "", false},
		{"a slow success is a failure, and not tried again", supervise.Result{ExitCode: 0, Elapsed: 2 * time.Second}, circuit.Output{}, breaker.Failure, "slow call", false},
	}
	for _, tc := range tests {
		r := circuit.ClassifyOutput(&tc.res, b, breaker.Decision{}, tc.out)
		if r.Outcome != tc.want || !strings.Contains(r.Error, tc.wantErr) {
			t.Errorf("%s: %s %q; want %s with %q", tc.name, r.Outcome, r.Error, tc.want, tc.wantErr)
		}
		if got := circuit.Retryable(&tc.res, r, b, tc.out); got != tc.wantRetrying {
			t.Errorf("%s: Retryable = %v; want %v", tc.name, got, tc.wantRetrying)
		}
	}
	// Exit 2 is never tried again, even where it is not ignored.
	b.IgnoreExitCodes = []int{}
	res := supervise.Result{ExitCode: 2}
	if r := circuit.ClassifyOutput(&res, b, breaker.Decision{}, circuit.Output{}); r.Outcome != breaker.Failure || circuit.Retryable(&res, r, b, circuit.Output{}) {
		t.Errorf("exit 2, not ignored: %s, retryable %v; want a failure never tried again", r.Outcome, circuit.Retryable(&res, r, b, circuit.Output{}))
	}
}
