package breaker

import (
	"testing"
	"time"
)

// failThrice opens c with three failures at t0.
func failThrice(c *Circuit, s Settings) {
	for range 3 {
		c.Admit(s, t0, Lease{PID: 1}, nil)
		c.Record(s, t0, Result{Outcome: Failure, Error: "boom"})
	}
}

func TestDisabledRunsEveryCallAndMovesNothing(t *testing.T) {
	var c Circuit
	failThrice(&c, defaults)
	if c.State != Open {
		t.Fatalf("state = %s; want open", c.State)
	}
	ev, changed := c.Disable(t0.Add(sec), Disable{User: "ann", Host: "h", PID: 9, Reason: "flaky"})
	if !changed || ev.From != Open || ev.To != Disabled || ev.Reason != "flaky" {
		t.Fatalf("Disable = %+v, %v; want open -> disabled: flaky", ev, changed)
	}
	if c.Shown() != Disabled || c.Disabled.Since != t0.Add(sec) || c.Disabled.User != "ann" {
		t.Fatalf("after Disable: shown %s, %+v", c.Shown(), c.Disabled)
	}
	if _, again := c.Disable(t0.Add(2*sec), Disable{}); again {
		t.Errorf("Disable of a disabled circuit changed it")
	}
	before := c
	for i := range 5 {
		d := c.Admit(defaults, t0.Add(time.Duration(i)*sec), Lease{PID: 2}, nil)
		if !d.Run || !d.Disabled || d.Changed || d.Probe {
			t.Fatalf("call %d while disabled: %+v; want an unguarded run that changes nothing", i, d)
		}
	}
	// An outcome of a call admitted before the disable is counted, and
	// moves nothing.
	evs := c.Record(defaults, t0.Add(10*sec), Result{Outcome: Success})
	if len(evs) != 0 || c.State != Open || c.ConsecutiveFailures != before.ConsecutiveFailures || c.Totals.Successes != 1 {
		t.Errorf("a late success while disabled: events %v, state %s, %d failures in a row, totals %+v", evs, c.State, c.ConsecutiveFailures, c.Totals)
	}
	// A reset closes the circuit underneath and keeps the disable.
	c.Reset(t0.Add(11 * sec))
	if c.State != Closed || c.Disabled == nil {
		t.Errorf("after Reset: state %s, disabled %v; want closed underneath, still disabled", c.State, c.Disabled)
	}
	ev, changed = c.Enable(t0.Add(12*sec), "")
	if !changed || ev.From != Disabled || ev.To != Closed || c.Disabled != nil || ev.Reason != "enabled by hand" {
		t.Errorf("Enable = %+v, %v; disabled %v", ev, changed, c.Disabled)
	}
	if _, again := c.Enable(t0.Add(13*sec), ""); again {
		t.Errorf("Enable of an enabled circuit changed it")
	}
}

func TestEnableResumesTheStateUnderneath(t *testing.T) {
	var c Circuit
	failThrice(&c, defaults)
	c.Disable(t0.Add(min_), Disable{})
	// Enabled after the cooldown: the next call probes.
	if ev, _ := c.Enable(t0.Add(6*min_), ""); ev.To != Open {
		t.Fatalf("Enable went to %s; want open, as it was left", ev.To)
	}
	d := c.Admit(defaults, t0.Add(6*min_), Lease{PID: 3}, nil)
	if !d.Run || !d.Probe || c.State != HalfOpen {
		t.Errorf("first call after enabling past the cooldown: %+v, state %s; want a probe", d, c.State)
	}
}

func TestTripEndsADisable(t *testing.T) {
	var c Circuit
	c.Disable(t0, Disable{})
	ev := c.Trip(t0.Add(sec), 0, "")
	if c.Disabled != nil || ev.From != Disabled || c.State != Open {
		t.Errorf("Trip of a disabled circuit: %+v, disabled %v, state %s; want disabled -> open, enabled", ev, c.Disabled, c.State)
	}
	if d := c.Admit(defaults, t0.Add(2*sec), Lease{PID: 1}, nil); d.Run {
		t.Errorf("a call after the trip ran")
	}
}

func TestMinInterval(t *testing.T) {
	s := defaults
	s.MinInterval = time.Minute
	var c Circuit
	steps := []struct {
		at   time.Duration
		run  bool
		skip SkipReason
	}{
		{0, true, ""},
		{sec, false, SkipInterval},
		{min_ - 1, false, SkipInterval},
		{min_, true, ""},
		{min_ + 30*sec, false, SkipInterval},
		{2*min_ + 10*sec, true, ""},
	}
	for i, st := range steps {
		now := t0.Add(st.at)
		d := c.Admit(s, now, Lease{PID: 1}, nil)
		if d.Run != st.run || d.Skip != st.skip {
			t.Fatalf("step %d: run %v skip %q; want run %v skip %q", i, d.Run, d.Skip, st.run, st.skip)
		}
		if d.Run && (!d.Changed || !c.LastStart.Equal(now)) {
			t.Fatalf("step %d: a run under min_interval did not stamp LastStart (changed %v, %v)", i, d.Changed, c.LastStart)
		}
		if d.Run {
			c.Record(s, now, Result{Outcome: Success})
		}
		if c.Shown() != Closed {
			t.Fatalf("step %d: state %s; a min_interval skip must not move the circuit", i, c.State)
		}
	}
	if got := c.NextStart(s); !got.Equal(t0.Add(3*min_ + 10*sec)) {
		t.Errorf("NextStart = %v", got)
	}
}

func TestMinIntervalWhileHalfOpen(t *testing.T) {
	s := defaults
	s.MinInterval = 10 * min_
	s.FailureThreshold = 1
	var c Circuit
	c.Admit(s, t0, Lease{PID: 1}, nil)
	c.Record(s, t0, Result{Outcome: Failure})
	// The cooldown (5m) has passed, min_interval (10m) has not: no probe,
	// and no lease taken.
	d := c.Admit(s, t0.Add(6*min_), Lease{PID: 2}, nil)
	if d.Run || d.Skip != SkipInterval || len(c.Leases) != 0 {
		t.Fatalf("at 6m: %+v, leases %v; want a min_interval skip with no lease", d, c.Leases)
	}
	d = c.Admit(s, t0.Add(10*min_), Lease{PID: 2}, nil)
	if !d.Run || !d.Probe {
		t.Fatalf("at 10m: %+v; want a probe", d)
	}
}

func TestMinIntervalExcludedAndDisabledRun(t *testing.T) {
	s := defaults
	s.MinInterval = time.Hour
	for _, c := range []Circuit{{LastStart: t0}, {LastStart: t0, Disabled: &Disable{Since: t0}}} {
		ex := s
		ex.Exclude = c.Disabled == nil
		if d := c.Admit(ex, t0.Add(sec), Lease{PID: 1}, nil); !d.Run {
			t.Errorf("%+v: %+v; an excluded or disabled key always runs", c, d)
		}
	}
}

func TestMinIntervalClockJumpsBackwards(t *testing.T) {
	s := defaults
	s.MinInterval = time.Minute
	var c Circuit
	c.Admit(s, t0, Lease{PID: 1}, nil)
	// A day back: calls wait one interval from the step, not a day.
	day := 24 * time.Hour
	if d := c.Admit(s, t0.Add(-day), Lease{PID: 1}, nil); d.Run || d.Skip != SkipInterval {
		t.Fatalf("right after the step: %+v; want a min_interval skip", d)
	}
	if d := c.Admit(s, t0.Add(-day+min_), Lease{PID: 1}, nil); !d.Run {
		t.Fatalf("a minute after the step: %+v; want a run", d)
	}
}

func TestNoMinIntervalForgetsLastStart(t *testing.T) {
	c := Circuit{LastStart: t0}
	c.Record(defaults, t0.Add(sec), Result{Outcome: Success})
	if !c.LastStart.IsZero() {
		t.Errorf("LastStart = %v; want it gone once no min_interval is in force", c.LastStart)
	}
	if d := c.Admit(defaults, t0, Lease{PID: 1}, nil); d.Changed {
		t.Errorf("Admit without min_interval changed the circuit: a closed call must write nothing")
	}
}
