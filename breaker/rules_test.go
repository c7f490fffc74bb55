package breaker

import (
	"testing"
	"time"
)

// The trip rules of the breakers people trust, each a step table.

// failure_rate 50% with minimum_calls 4 over a 10m failure_window
// (resilience4j's failureRateThreshold + minimumNumberOfCalls, Polly's
// FailureRatio + MinimumThroughput + SamplingDuration).
func TestFailureRate(t *testing.T) {
	s := defaults
	s.FailureRate, s.MinimumCalls, s.FailureWindow = 0.5, 4, 10*time.Minute
	c := run(t, s, []step{
		// A hook that fails one call in two never trips a consecutive rule...
		{at: 0, act: call, outcome: Failure, wantRun: true, want: Closed},
		{at: 1 * sec, act: call, outcome: Success, wantRun: true, want: Closed},
		{at: 2 * sec, act: call, outcome: Failure, wantRun: true, want: Closed}, // 2 of 3: too few calls
		// ...but the rate does, once minimum_calls calls ended.
		{at: 3 * sec, act: call, outcome: Success, wantRun: true, want: Open}, // 2 of 4 = 50%
	})
	if c.OpenReason != "2 of 4 calls failed in 10m0s (failure_rate 50%)" {
		t.Errorf("OpenReason = %q", c.OpenReason)
	}
	// Calls that left the window no longer count.
	run(t, s, []step{
		{at: 0, act: call, outcome: Failure, wantRun: true, want: Closed},
		{at: 1 * sec, act: call, outcome: Failure, wantRun: true, want: Closed},
		{at: 11 * min_, act: call, outcome: Success, wantRun: true, want: Closed},
		{at: 11*min_ + sec, act: call, outcome: Success, wantRun: true, want: Closed},
		{at: 11*min_ + 2*sec, act: call, outcome: Success, wantRun: true, want: Closed},
		{at: 11*min_ + 3*sec, act: call, outcome: Failure, wantRun: true, want: Closed}, // 1 of 4
		{at: 11*min_ + 4*sec, act: call, outcome: Failure, wantRun: true, want: Closed}, // 2 of 5
		{at: 11*min_ + 5*sec, act: call, outcome: Failure, wantRun: true, want: Open},   // 3 of 6
	})
	// Ignored and cancelled calls are not calls the rate counts.
	run(t, s, []step{
		{at: 0, act: call, outcome: Failure, wantRun: true, want: Closed},
		{at: 1 * sec, act: call, outcome: Ignored, wantRun: true, want: Closed},
		{at: 2 * sec, act: call, outcome: Cancelled, wantRun: true, want: Closed},
		{at: 3 * sec, act: call, outcome: Success, wantRun: true, want: Closed},
		{at: 4 * sec, act: call, outcome: Success, wantRun: true, want: Closed},
		{at: 5 * sec, act: call, outcome: Success, wantRun: true, want: Closed}, // 1 of 4 = 25%
	})
}

// failure_threshold 3 of_last 5 (failsafe-go's WithFailureThresholdRatio).
func TestKOfLastN(t *testing.T) {
	s := defaults
	s.FailureThreshold, s.OfLast = 3, 5
	c := run(t, s, []step{
		{at: 0, act: call, outcome: Failure, wantRun: true, want: Closed},
		{at: 1 * sec, act: call, outcome: Success, wantRun: true, want: Closed},
		{at: 2 * sec, act: call, outcome: Failure, wantRun: true, want: Closed},
		{at: 3 * sec, act: call, outcome: Success, wantRun: true, want: Closed},
		{at: 4 * sec, act: call, outcome: Success, wantRun: true, want: Closed}, // fsfss: 2 of 5
		{at: 5 * sec, act: call, outcome: Failure, wantRun: true, want: Closed}, // sfssf: the first fell out
		{at: 6 * sec, act: call, outcome: Failure, wantRun: true, want: Open},   // fssff: 3 of 5
	})
	if c.OpenReason != "3 failures in the last 5 calls" {
		t.Errorf("OpenReason = %q", c.OpenReason)
	}
	// However far apart: the last n calls, not a time window.
	run(t, s, []step{
		{at: 0, act: call, outcome: Failure, wantRun: true, want: Closed},
		{at: 10 * time.Hour, act: call, outcome: Failure, wantRun: true, want: Closed},
		{at: 20 * time.Hour, act: call, outcome: Failure, wantRun: true, want: Open},
	})
}

// slow_call_rate 80% with slow_call (the caller's Result.Slow), minimum
// calls 5 (resilience4j's slowCallRateThreshold): slow successes trip it.
func TestSlowCallRate(t *testing.T) {
	s := defaults
	s.SlowCallRate, s.MinimumCalls, s.FailureWindow = 0.8, 5, 10*time.Minute
	c := run(t, s, []step{
		{at: 0, act: call, outcome: Success, slow: true, wantRun: true, want: Closed},
		{at: 1 * sec, act: call, outcome: Success, slow: true, wantRun: true, want: Closed},
		{at: 2 * sec, act: call, outcome: Success, wantRun: true, want: Closed},
		{at: 3 * sec, act: call, outcome: Success, slow: true, wantRun: true, want: Closed}, // 3 of 4: too few
		{at: 4 * sec, act: call, outcome: Success, slow: true, wantRun: true, want: Open},   // 4 of 5 = 80%
	})
	if c.OpenReason != "4 of 5 calls slow in 10m0s (slow_call_rate 80%)" {
		t.Errorf("OpenReason = %q", c.OpenReason)
	}
	if c.Totals.Successes != 5 || c.Totals.Failures != 0 {
		t.Errorf("slow successes counted as failures: %+v", c.Totals)
	}
	// The failure_window rule still holds beside it.
	run(t, s, []step{
		{at: 0, act: call, outcome: Failure, wantRun: true, want: Closed},
		{at: 1 * sec, act: call, outcome: Failure, wantRun: true, want: Closed},
		{at: 2 * sec, act: call, outcome: Failure, wantRun: true, want: Open},
	})
}

// half_open_max_calls 3: three trials at once across processes; two
// successes close it, the first failure re-opens it.
func TestSeveralTrials(t *testing.T) {
	s := defaults
	s.HalfOpenMaxCalls, s.SuccessThreshold = 3, 2
	open := []step{
		{at: 0, act: call, outcome: Failure, wantRun: true, want: Closed},
		{at: 0, act: call, outcome: Failure, wantRun: true, want: Closed},
		{at: 0, act: call, outcome: Failure, wantRun: true, want: Open},
	}
	run(t, s, append(open[:3:3],
		step{at: 6 * min_, act: begin, pid: 1, wantRun: true, want: HalfOpen},
		step{at: 6 * min_, act: begin, pid: 2, wantRun: true, want: HalfOpen},
		step{at: 6 * min_, act: begin, pid: 3, wantRun: true, want: HalfOpen},
		step{at: 6 * min_, act: begin, pid: 4, wantRun: false, wantSkip: "probing", want: HalfOpen},
		step{at: 6*min_ + sec, act: finish, pid: 1, outcome: Success, want: HalfOpen},
		step{at: 6*min_ + sec, act: finish, pid: 2, outcome: Success, want: Closed},
	))
	run(t, s, append(open[:3:3],
		step{at: 6 * min_, act: begin, pid: 1, wantRun: true, want: HalfOpen},
		step{at: 6 * min_, act: begin, pid: 2, wantRun: true, want: HalfOpen},
		step{at: 6*min_ + sec, act: finish, pid: 1, outcome: Success, want: HalfOpen},
		step{at: 6*min_ + sec, act: finish, pid: 2, outcome: Failure, want: Open},
	))
}

// With a failure rate, the trials decide by the rate once success_threshold
// of them ended: 1 failure in 4 trials is under 50%.
func TestTrialsByRate(t *testing.T) {
	s := defaults
	s.FailureRate, s.MinimumCalls, s.FailureWindow = 0.5, 2, 10*time.Minute
	s.HalfOpenMaxCalls, s.SuccessThreshold = 4, 4
	open := []step{
		{at: 0, act: call, outcome: Failure, wantRun: true, want: Closed},
		{at: 0, act: call, outcome: Failure, wantRun: true, want: Open},
	}
	trials := func(outcomes ...Outcome) []step {
		steps := append([]step{}, open...)
		for i := range outcomes {
			steps = append(steps, step{at: 6 * min_, act: begin, pid: i + 1, wantRun: true, want: HalfOpen})
		}
		for i, o := range outcomes {
			want := HalfOpen
			if i == len(outcomes)-1 {
				want = Closed
				if o == "" {
					want = Open
				}
			}
			if o == "" {
				o = Failure
			}
			steps = append(steps, step{at: 6*min_ + sec, act: finish, pid: i + 1, outcome: o, want: want})
		}
		return steps
	}
	c := run(t, s, trials(Failure, Success, Success, Success))
	if c.state() != Closed {
		t.Errorf("1 of 4 trials failed: %s; want closed", c.state())
	}
	c = run(t, s, trials(Failure, Success, Failure, ""))
	if c.OpenReason != "3 of 4 trials failed (failure_rate 50%)" {
		t.Errorf("OpenReason = %q", c.OpenReason)
	}
}
