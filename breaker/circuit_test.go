package breaker

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// An action is what a step does to the circuit.
type action int

const (
	call   action = iota // admit, and if admitted run and report outcome at once
	begin                // admit process pid and keep its decision open
	finish               // report outcome for the decision pid began
	kill                 // process pid dies
	trip                 // Trip for d (0: until reset)
	reset                // Reset
	probe                // Probe
)

type step struct {
	at      time.Duration // since t0; may go backwards
	act     action
	outcome Outcome
	slow    bool // the call was slower than slow_call
	pid     int
	d       time.Duration

	wantRun  bool   // for call and begin
	wantSkip string // for call and begin, when not run
	want     State
}

var defaults = Settings{
	FailureThreshold: 3,
	SuccessThreshold: 2,
	Cooldown:         5 * time.Minute,
	MaxCooldown:      time.Hour,
	HalfOpenMaxCalls: 1,
	ProbeLease:       10 * time.Minute,
}

// harness plays steps against one circuit, standing in for the processes
// that would share it.
type harness struct {
	c       Circuit
	s       Settings
	pending map[int]Decision
	dead    map[int]bool
}

func (h *harness) alive(l Lease) bool { return !h.dead[l.PID] }

func run(t *testing.T, s Settings, steps []step) *Circuit {
	t.Helper()
	h := &harness{s: s, pending: map[int]Decision{}, dead: map[int]bool{}}
	for i, st := range steps {
		now := t0.Add(st.at)
		switch st.act {
		case call, begin:
			d := h.c.Admit(s, now, Lease{PID: st.pid, Start: 1}, h.alive)
			if d.Run != st.wantRun {
				t.Fatalf("step %d: run = %v, want %v (state %s)", i, d.Run, st.wantRun, h.c.State)
			}
			if !d.Run && st.wantSkip != "" && string(d.Skip) != st.wantSkip {
				t.Fatalf("step %d: skip = %s, want %s", i, d.Skip, st.wantSkip)
			}
			if !d.Run {
				h.c.Skip(false)
			} else if st.act == call {
				h.c.Record(s, now, Result{Outcome: st.outcome, Slow: st.slow, Error: "err", Probe: d.Probe, Lease: d.Lease})
			} else {
				h.pending[st.pid] = d
			}
		case finish:
			d, ok := h.pending[st.pid]
			if !ok {
				t.Fatalf("step %d: pid %d has not begun", i, st.pid)
			}
			delete(h.pending, st.pid)
			h.c.Record(s, now, Result{Outcome: st.outcome, Slow: st.slow, Error: "err", Probe: d.Probe, Lease: d.Lease})
		case kill:
			h.dead[st.pid] = true
		case trip:
			h.c.Trip(now, st.d, "")
		case reset:
			h.c.Reset(now)
		case probe:
			if _, _, err := h.c.Probe(now); err != nil {
				t.Fatalf("step %d: Probe: %v", i, err)
			}
		}
		if got := h.c.state(); got != st.want {
			t.Fatalf("step %d: state = %s, want %s", i, got, st.want)
		}
	}
	return &h.c
}

const (
	min_ = time.Minute
	sec  = time.Second
)

func TestTripsAfterConsecutiveFailures(t *testing.T) {
	c := run(t, defaults, []step{
		{at: 0, act: call, outcome: Failure, wantRun: true, want: Closed},
		{at: 1 * sec, act: call, outcome: Failure, wantRun: true, want: Closed},
		{at: 2 * sec, act: call, outcome: Success, wantRun: true, want: Closed}, // breaks the run
		{at: 3 * sec, act: call, outcome: Failure, wantRun: true, want: Closed},
		{at: 4 * sec, act: call, outcome: Failure, wantRun: true, want: Closed},
		{at: 5 * sec, act: call, outcome: Failure, wantRun: true, want: Open},
		{at: 6 * sec, act: call, wantRun: false, wantSkip: "open", want: Open},
	})
	if c.FailureCount != 5 || c.ConsecutiveFailures != 3 {
		t.Errorf("failure_count, consecutive_failures = %d, %d; want 5, 3", c.FailureCount, c.ConsecutiveFailures)
	}
	if want := t0.Add(5*sec + 5*min_); !c.RetryAfter.Equal(want) {
		t.Errorf("RetryAfter = %v; want %v", c.RetryAfter, want)
	}
	if c.OpenReason != "3 consecutive failures" {
		t.Errorf("OpenReason = %q", c.OpenReason)
	}
	if c.Totals.Skips != 1 || c.Totals.Failures != 5 || c.Totals.Successes != 1 {
		t.Errorf("Totals = %+v", c.Totals)
	}
}

func TestIgnoredAndCancelledCountAsNeither(t *testing.T) {
	c := run(t, defaults, []step{
		{at: 0, act: call, outcome: Failure, wantRun: true, want: Closed},
		{at: 1 * sec, act: call, outcome: Failure, wantRun: true, want: Closed},
		{at: 2 * sec, act: call, outcome: Ignored, wantRun: true, want: Closed},
		{at: 3 * sec, act: call, outcome: Cancelled, wantRun: true, want: Closed},
		{at: 4 * sec, act: call, outcome: Failure, wantRun: true, want: Open},
	})
	if c.Totals.Ignored != 1 || c.Totals.Cancelled != 1 || c.Totals.Runs() != 5 {
		t.Errorf("Totals = %+v", c.Totals)
	}
}

func TestProbeClosesAfterSuccessThreshold(t *testing.T) {
	c := run(t, defaults, []step{
		{at: 0, act: call, outcome: Failure, wantRun: true, want: Closed},
		{at: 0, act: call, outcome: Failure, wantRun: true, want: Closed},
		{at: 0, act: call, outcome: Failure, wantRun: true, want: Open},
		{at: 5*min_ - 1, act: call, wantRun: false, want: Open},
		{at: 5 * min_, act: begin, pid: 1, wantRun: true, want: HalfOpen},
		{at: 5 * min_, act: call, wantRun: false, wantSkip: "probing", want: HalfOpen},
		{at: 5*min_ + sec, act: finish, pid: 1, outcome: Success, want: HalfOpen},
		{at: 5*min_ + 2*sec, act: call, outcome: Success, wantRun: true, want: Closed},
		{at: 5*min_ + 3*sec, act: call, outcome: Success, wantRun: true, want: Closed},
	})
	if c.FailureCount != 0 || c.LastError != "" || !c.RetryAfter.IsZero() || c.Reopens != 0 {
		t.Errorf("closed circuit kept failure state: %+v", c)
	}
}

func TestFailedProbeBacksOff(t *testing.T) {
	s := defaults
	s.FailureThreshold = 1
	s.SuccessThreshold = 1
	s.Cooldown = time.Minute
	s.MaxCooldown = 5 * time.Minute
	c := run(t, s, []step{
		{at: 0, act: call, outcome: Failure, wantRun: true, want: Open},        // open for 1m
		{at: 1 * min_, act: call, outcome: Failure, wantRun: true, want: Open}, // probe fails: 2m
		{at: 3*min_ - 1, act: call, wantRun: false, want: Open},
		{at: 3 * min_, act: call, outcome: Failure, wantRun: true, want: Open}, // 4m
		{at: 7*min_ - 1, act: call, wantRun: false, want: Open},
		{at: 7 * min_, act: call, outcome: Failure, wantRun: true, want: Open},  // 8m, capped at 5m
		{at: 12 * min_, act: call, outcome: Failure, wantRun: true, want: Open}, // still 5m
		{at: 17 * min_, act: call, outcome: Success, wantRun: true, want: Closed},
		{at: 17 * min_, act: call, outcome: Failure, wantRun: true, want: Open}, // back to 1m
	})
	if want := t0.Add(18 * min_); !c.RetryAfter.Equal(want) {
		t.Errorf("after closing, RetryAfter = %v; want %v", c.RetryAfter, want)
	}
}

func TestFixedCooldownWhenMaxEqualsCooldown(t *testing.T) {
	s := defaults
	s.FailureThreshold = 1
	s.SuccessThreshold = 1
	s.MaxCooldown = s.Cooldown
	run(t, s, []step{
		{at: 0, act: call, outcome: Failure, wantRun: true, want: Open},
		{at: 5 * min_, act: call, outcome: Failure, wantRun: true, want: Open},
		{at: 10*min_ - 1, act: call, wantRun: false, want: Open},
		{at: 10 * min_, act: call, outcome: Success, wantRun: true, want: Closed},
	})
}

func TestMaxCooldownBelowCooldownIsRaised(t *testing.T) {
	s := defaults
	s.Cooldown = 2 * time.Hour
	s.MaxCooldown = time.Hour
	if got := backoff(s, 0); got != 2*time.Hour {
		t.Errorf("backoff(0) = %s; want 2h", got)
	}
	if got := backoff(s, 40); got != 2*time.Hour {
		t.Errorf("backoff(40) = %s; want 2h", got)
	}
}

func TestBackoffDoesNotOverflow(t *testing.T) {
	s := Settings{Cooldown: time.Hour, MaxCooldown: 1 << 62}
	if got := backoff(s, 1000); got != 1<<62 {
		t.Errorf("backoff(1000) = %d; want the cap", got)
	}
}

func TestFailureWindowCatchesFlakyHooks(t *testing.T) {
	s := defaults
	s.FailureWindow = 10 * time.Minute
	c := run(t, s, []step{
		{at: 0, act: call, outcome: Failure, wantRun: true, want: Closed},
		{at: 1 * min_, act: call, outcome: Success, wantRun: true, want: Closed},
		{at: 2 * min_, act: call, outcome: Failure, wantRun: true, want: Closed},
		{at: 3 * min_, act: call, outcome: Success, wantRun: true, want: Closed},
		// The first failure has left the window: still 2 inside.
		{at: 10 * min_, act: call, outcome: Failure, wantRun: true, want: Closed},
		{at: 11 * min_, act: call, outcome: Success, wantRun: true, want: Closed},
		{at: 11*min_ + sec, act: call, outcome: Failure, wantRun: true, want: Open},
	})
	if c.OpenReason != "3 failures in 10m0s" {
		t.Errorf("OpenReason = %q", c.OpenReason)
	}
	if len(c.Failures) != 3 {
		t.Errorf("len(Failures) = %d; want 3 (pruned to the window)", len(c.Failures))
	}
}

func TestHalfOpenMaxCalls(t *testing.T) {
	s := defaults
	s.FailureThreshold = 1
	s.HalfOpenMaxCalls = 2
	s.SuccessThreshold = 2
	run(t, s, []step{
		{at: 0, act: call, outcome: Failure, wantRun: true, want: Open},
		{at: 5 * min_, act: begin, pid: 1, wantRun: true, want: HalfOpen},
		{at: 5 * min_, act: begin, pid: 2, wantRun: true, want: HalfOpen},
		{at: 5 * min_, act: begin, pid: 3, wantRun: false, wantSkip: "probing", want: HalfOpen},
		{at: 6 * min_, act: finish, pid: 1, outcome: Success, want: HalfOpen},
		{at: 6 * min_, act: finish, pid: 2, outcome: Success, want: Closed},
	})
}

func TestIgnoredProbeReleasesLease(t *testing.T) {
	s := defaults
	s.FailureThreshold = 1
	run(t, s, []step{
		{at: 0, act: call, outcome: Failure, wantRun: true, want: Open},
		{at: 5 * min_, act: begin, pid: 1, wantRun: true, want: HalfOpen},
		{at: 5 * min_, act: finish, pid: 1, outcome: Cancelled, want: HalfOpen},
		{at: 5 * min_, act: begin, pid: 2, wantRun: true, want: HalfOpen},
		{at: 5 * min_, act: finish, pid: 2, outcome: Ignored, want: HalfOpen},
		{at: 5 * min_, act: call, outcome: Success, wantRun: true, want: HalfOpen},
		{at: 5 * min_, act: call, outcome: Success, wantRun: true, want: Closed},
	})
}

func TestDeadProbeHolderIsReaped(t *testing.T) {
	s := defaults
	s.FailureThreshold = 1
	c := run(t, s, []step{
		{at: 0, act: call, outcome: Failure, wantRun: true, want: Open},
		{at: 5 * min_, act: begin, pid: 7, wantRun: true, want: HalfOpen},
		{at: 6 * min_, act: call, wantRun: false, wantSkip: "probing", want: HalfOpen},
		{at: 6 * min_, act: kill, pid: 7, want: HalfOpen},
		// The next caller reaps the lease, which re-opens with the cooldown
		// it had: a dead holder says nothing of the hook, so it is not
		// doubled as a failed or hung probe's is.
		{at: 7 * min_, act: call, wantRun: false, wantSkip: "open", want: Open},
		{at: 12*min_ - 1, act: call, wantRun: false, want: Open},
		{at: 12 * min_, act: begin, pid: 8, wantRun: true, want: HalfOpen},
		// The dead probe's report, had it come, no longer counts.
		{at: 12 * min_, act: finish, pid: 7, outcome: Success, want: HalfOpen},
	})
	if c.Totals.Abandoned != 1 {
		t.Errorf("Totals.Abandoned = %d; want 1", c.Totals.Abandoned)
	}
	if !strings.Contains(c.LastError, "pid 7 died") {
		t.Errorf("LastError = %q; want the dead pid named", c.LastError)
	}
	if len(c.Leases) != 1 || c.Leases[0].PID != 8 {
		t.Errorf("Leases = %+v; want only pid 8's", c.Leases)
	}
}

func TestExpiredLeaseIsReaped(t *testing.T) {
	s := defaults
	s.FailureThreshold = 1
	run(t, s, []step{
		{at: 0, act: call, outcome: Failure, wantRun: true, want: Open},
		{at: 5 * min_, act: begin, pid: 1, wantRun: true, want: HalfOpen},
		{at: 15*min_ - 1, act: call, wantRun: false, wantSkip: "probing", want: HalfOpen},
		{at: 15 * min_, act: call, wantRun: false, wantSkip: "open", want: Open},
		// The slow probe finally reports; its lease is gone, so it moves nothing.
		{at: 16 * min_, act: finish, pid: 1, outcome: Success, want: Open},
		// A hung probe counts as a failed one: the cooldown doubled.
		{at: 25*min_ - 1, act: call, wantRun: false, wantSkip: "open", want: Open},
		{at: 25 * min_, act: begin, pid: 2, wantRun: true, want: HalfOpen},
	})
}

func TestLateRunDoesNotMoveAnOpenCircuit(t *testing.T) {
	s := defaults
	s.FailureThreshold = 1
	c := run(t, s, []step{
		{at: 0, act: begin, pid: 1, wantRun: true, want: Closed},
		{at: 0, act: call, outcome: Failure, wantRun: true, want: Open},
		{at: sec, act: finish, pid: 1, outcome: Success, want: Open},
	})
	if c.LastSuccess.IsZero() {
		t.Error("LastSuccess not recorded for the late run")
	}
}

func TestTripUntilReset(t *testing.T) {
	c := run(t, defaults, []step{
		{at: 0, act: trip, want: Open},
		{at: 1000 * time.Hour, act: call, wantRun: false, wantSkip: "forced", want: Open},
		{at: 1000 * time.Hour, act: reset, want: Closed},
		{at: 1000 * time.Hour, act: call, outcome: Success, wantRun: true, want: Closed},
	})
	if c.Forced {
		t.Error("Forced survived Reset")
	}
}

func TestTripForAWhileThenProbes(t *testing.T) {
	run(t, defaults, []step{
		{at: 0, act: call, outcome: Success, wantRun: true, want: Closed},
		{at: 0, act: trip, d: 10 * min_, want: Open},
		{at: 10*min_ - 1, act: call, wantRun: false, wantSkip: "forced", want: Open},
		{at: 10 * min_, act: call, outcome: Success, wantRun: true, want: HalfOpen},
		{at: 10 * min_, act: call, outcome: Success, wantRun: true, want: Closed},
	})
}

func TestProbeByHand(t *testing.T) {
	run(t, defaults, []step{
		{at: 0, act: trip, want: Open},
		{at: sec, act: probe, want: HalfOpen},
		{at: sec, act: probe, want: HalfOpen}, // idempotent
		{at: 2 * sec, act: call, outcome: Success, wantRun: true, want: HalfOpen},
		{at: 3 * sec, act: call, outcome: Success, wantRun: true, want: Closed},
	})
	var c Circuit
	if _, _, err := c.Probe(t0); !errors.Is(err, ErrNotOpen) {
		t.Errorf("Probe on a closed circuit = %v; want ErrNotOpen", err)
	}
}

func TestResetClearsCountersKeepsTotals(t *testing.T) {
	s := defaults
	s.FailureThreshold = 1
	c := run(t, s, []step{
		{at: 0, act: call, outcome: Failure, wantRun: true, want: Open},
		{at: 5 * min_, act: call, outcome: Failure, wantRun: true, want: Open},
		{at: 6 * min_, act: reset, want: Closed},
		{at: 6 * min_, act: call, outcome: Failure, wantRun: true, want: Open},
	})
	if c.Totals.Failures != 3 {
		t.Errorf("Totals.Failures = %d; want 3", c.Totals.Failures)
	}
	// Reset cleared the re-open count: the cooldown is the base one again.
	if want := t0.Add(11 * min_); !c.RetryAfter.Equal(want) {
		t.Errorf("RetryAfter = %v; want %v", c.RetryAfter, want)
	}
}

func TestExcludedKeyNeverTrips(t *testing.T) {
	s := defaults
	s.Exclude = true
	c := run(t, s, []step{
		{at: 0, act: call, outcome: Failure, wantRun: true, want: Closed},
		{at: 0, act: call, outcome: Failure, wantRun: true, want: Closed},
		{at: 0, act: call, outcome: Failure, wantRun: true, want: Closed},
		{at: 0, act: call, outcome: Failure, wantRun: true, want: Closed},
	})
	if c.ConsecutiveFailures != 4 {
		t.Errorf("ConsecutiveFailures = %d; want 4 (still counted)", c.ConsecutiveFailures)
	}
}

func TestExcludedKeyRunsEvenWhenOpen(t *testing.T) {
	c := Circuit{}
	c.Trip(t0, 0, "")
	s := defaults
	s.Exclude = true
	if d := c.Admit(s, t0, Lease{}, nil); !d.Run || d.Probe {
		t.Fatalf("Admit = %+v; want a plain run", d)
	}
	c.Record(s, t0, Result{Outcome: Success})
	if c.State != Closed {
		t.Errorf("state = %s; want closed after an excluded key succeeds", c.State)
	}
}

func TestClockJumpsBackwardsWhileOpen(t *testing.T) {
	year := 365 * 24 * time.Hour
	c := run(t, defaults, []step{
		{at: 0, act: call, outcome: Failure, wantRun: true, want: Closed},
		{at: 0, act: call, outcome: Failure, wantRun: true, want: Closed},
		{at: 0, act: call, outcome: Failure, wantRun: true, want: Open},
		// The clock steps back a year. The circuit must not wait a year.
		{at: -year, act: call, wantRun: false, want: Open},
		{at: -year + 5*min_ - 1, act: call, wantRun: false, want: Open},
		{at: -year + 5*min_, act: call, outcome: Success, wantRun: true, want: HalfOpen},
		{at: -year + 5*min_, act: call, outcome: Success, wantRun: true, want: Closed},
	})
	if c.DisabledAt.After(t0.Add(-year + 5*min_)) {
		t.Errorf("DisabledAt = %v; still in the future", c.DisabledAt)
	}
}

func TestClockJumpsBackwardsDuringProbe(t *testing.T) {
	s := defaults
	s.FailureThreshold = 1
	run(t, s, []step{
		{at: 0, act: call, outcome: Failure, wantRun: true, want: Open},
		{at: 5 * min_, act: begin, pid: 1, wantRun: true, want: HalfOpen},
		// A day back: the lease lasts its 10 minutes from the step, not a day.
		{at: -24 * time.Hour, act: call, wantRun: false, wantSkip: "probing", want: HalfOpen},
		{at: -24*time.Hour + 10*min_, act: call, wantRun: false, wantSkip: "open", want: Open},
	})
}

func TestClockJumpsBackwardsInFailureWindow(t *testing.T) {
	s := defaults
	s.FailureWindow = 10 * time.Minute
	run(t, s, []step{
		{at: 0, act: call, outcome: Failure, wantRun: true, want: Closed},
		{at: sec, act: call, outcome: Failure, wantRun: true, want: Closed},
		// An hour back, the two failures count as now, then age normally.
		{at: -time.Hour, act: call, outcome: Success, wantRun: true, want: Closed},
		{at: -time.Hour + 10*min_, act: call, outcome: Failure, wantRun: true, want: Closed},
		{at: -time.Hour + 10*min_, act: call, outcome: Failure, wantRun: true, want: Closed},
		{at: -time.Hour + 10*min_, act: call, outcome: Failure, wantRun: true, want: Open},
	})
}

func TestClockJumpsForwardReapsLease(t *testing.T) {
	s := defaults
	s.FailureThreshold = 1
	run(t, s, []step{
		{at: 0, act: call, outcome: Failure, wantRun: true, want: Open},
		{at: 5 * min_, act: begin, pid: 1, wantRun: true, want: HalfOpen},
		{at: 48 * time.Hour, act: call, wantRun: false, wantSkip: "open", want: Open},
	})
}

func TestAdmitOnClosedChangesNothing(t *testing.T) {
	var c Circuit
	if d := c.Admit(defaults, t0, Lease{PID: 1}, nil); !d.Run || d.Changed || d.Probe {
		t.Errorf("Admit on a new circuit = %+v; want a run with no change", d)
	}
}

func TestUnknownStateRuns(t *testing.T) {
	c := Circuit{State: "degraded"}
	if d := c.Admit(defaults, t0, Lease{}, nil); !d.Run {
		t.Errorf("Admit with unknown state = %+v; want run", d)
	}
}

func TestEventsDescribeTransitions(t *testing.T) {
	s := defaults
	s.FailureThreshold = 1
	var c Circuit
	c.Admit(s, t0, Lease{}, nil)
	evs := c.Record(s, t0, Result{Outcome: Failure, Error: "exit 1"})
	if len(evs) != 1 || evs[0].From != Closed || evs[0].To != Open || evs[0].Reason != "1 failure" {
		t.Fatalf("events = %+v; want closed -> open because of 1 failure", evs)
	}
	d := c.Admit(s, t0.Add(5*min_), Lease{PID: 3}, nil)
	if len(d.Events) != 1 || d.Events[0].To != HalfOpen {
		t.Fatalf("admit events = %+v; want open -> half_open", d.Events)
	}
	d = c.Admit(s, t0.Add(20*min_), Lease{PID: 4}, nil)
	if len(d.Events) != 2 || d.Events[0].Kind != Reaped || d.Events[0].Lease.PID != 3 || d.Events[1].To != Open {
		t.Fatalf("admit events = %+v; want pid 3 reaped, then half_open -> open", d.Events)
	}
}

func BenchmarkAdmitRecordClosed(b *testing.B) {
	var c Circuit
	now := t0
	for b.Loop() {
		now = now.Add(time.Second)
		d := c.Admit(defaults, now, Lease{PID: 1}, nil)
		c.Record(defaults, now, Result{Outcome: Success, Probe: d.Probe, Lease: d.Lease})
	}
}

func TestProbeReportMatchesItsLeaseByHolder(t *testing.T) {
	s := defaults
	s.FailureThreshold = 1
	s.SuccessThreshold = 1
	var c Circuit
	c.Record(s, t0, Result{Outcome: Failure})
	now := t0.Add(5*min_ + 700*time.Millisecond)
	d := c.Admit(s, now, Lease{PID: 5, Start: 77}, nil)
	// The state file keeps times to the second: the stored lease's times no
	// longer equal the ones the probe holds.
	c.Leases[0].Acquired = c.Leases[0].Acquired.Truncate(time.Second)
	c.Record(s, now.Add(time.Second), Result{Outcome: Success, Probe: true, Lease: d.Lease})
	if c.State != Closed || len(c.Leases) != 0 {
		t.Errorf("state = %s, leases = %v; want the probe's success to close the circuit", c.State, c.Leases)
	}
}

// TestFormatPercent covers hostile-user-3 m9: a share prints as the
// percentage a person wrote, never in the noise of its binary value
// (failure_rate: 0.0001% as 9.999999999999999e-05%).
func TestFormatPercent(t *testing.T) {
	for _, tc := range []struct {
		share float64
		want  string
	}{
		{0.5, "50%"},
		{1, "100%"},
		{0, "0%"},
		{0.0001 / 100, "0.0001%"},
		{0.07, "7%"},
		{0.333 / 100, "0.333%"},
		{12.5 / 100, "12.5%"},
		{1e-9 / 100, "0.000000001%"},
		{0.1 + 0.2, "30%"},
		{1.0 / 3, "33.3333333333%"},
	} {
		if got := FormatPercent(tc.share); got != tc.want {
			t.Errorf("FormatPercent(%v) = %q; want %q", tc.share, got, tc.want)
		}
	}
}
