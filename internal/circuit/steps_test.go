package circuit_test

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"guard/breaker"
	"guard/internal/circuit"
	"guard/internal/store"
)

// A recorder is a store.CircuitTx that notes what a step asks of the store,
// so that the steps every backend shares are tested apart from any backend.
type recorder struct {
	circuits       map[string]breaker.Circuit
	events         []store.Event
	puts           int
	relaxed        bool
	execs, failing int
}

func newRecorder() *recorder { return &recorder{circuits: map[string]breaker.Circuit{}} }

func (r *recorder) Keys() []string {
	keys := make([]string, 0, len(r.circuits))
	for k := range r.circuits {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
func (r *recorder) Has(key string) bool                         { _, ok := r.circuits[key]; return ok }
func (r *recorder) Circuit(key string) (breaker.Circuit, error) { return r.circuits[key], nil }
func (r *recorder) Stats() store.Stats                          { return store.Stats{} }
func (r *recorder) Aside() []store.Aside                        { return nil }
func (r *recorder) Put(key string, c breaker.Circuit)           { r.circuits[key] = c; r.puts++ }
func (r *recorder) Relax()                                      { r.relaxed = true }
func (r *recorder) Rename(from, to string) (bool, error)        { return false, nil }
func (r *recorder) Count(key string, executions, failures int) {
	r.execs += executions
	r.failing += failures
}
func (r *recorder) Log(events ...store.Event) { r.events = append(r.events, events...) }

// A step is one call of a step function at a time, and what it must leave.
type step struct {
	at   time.Duration // after t0
	do   string        // admit, run ok, run failed, run ignored, reject, reset, trip, trip 1m, probe
	want stepWant
}

type stepWant struct {
	state   breaker.State
	events  string // the events logged, by name: "run transition"
	relaxed bool   // only counters of a healthy circuit moved
	counted string // executions/failures added to the totals: "1/0"
	run     bool   // for admit: whether the call may run
}

// runSteps applies steps to one key, checking each.
func runSteps(t *testing.T, s breaker.Settings, steps []step) {
	t.Helper()
	r := newRecorder()
	const key = "lint"
	alive := func(breaker.Lease) bool { return true }
	var lease breaker.Lease
	for i, st := range steps {
		now := t0.Add(st.at)
		r.events, r.relaxed, r.execs, r.failing = nil, false, 0, 0
		var err error
		run := true
		switch op, arg, _ := strings.Cut(st.do, " "); op {
		case "admit":
			var dec breaker.Decision
			dec, _, err = circuit.Admit(r, key, s, now, breaker.Lease{Host: "h", PID: 7}, alive)
			if run = dec.Run; run {
				lease = dec.Lease
			}
		case "run":
			res := breaker.Result{Outcome: breaker.Outcome(arg), Probe: lease.PID != 0, Lease: lease}
			if arg == "failed" {
				res.Outcome, res.Error = breaker.Failure, "exit 1"
			}
			_, err = circuit.Record(r, key, s, now, res, circuit.Run{Exit: 1})
			lease = breaker.Lease{}
		case "reject":
			err = circuit.Reject(r, key, now, "busy", false)
		case "reset":
			_, _, err = circuit.Reset(r, key, now)
		case "trip":
			d, _ := time.ParseDuration(arg)
			_, err = circuit.Trip(r, key, now, d, "by hand")
		case "probe":
			_, _, err = circuit.Probe(r, key, now)
		default:
			t.Fatalf("step %d: unknown step %q", i, st.do)
		}
		if err != nil {
			t.Fatalf("step %d (%s): %v", i, st.do, err)
		}
		c := r.circuits[key]
		if got := orClosed(c.State); got != st.want.state {
			t.Errorf("step %d (%s): state = %s, want %s", i, st.do, got, st.want.state)
		}
		var names []string
		for _, e := range r.events {
			names = append(names, e.Event)
		}
		if got := strings.Join(names, " "); got != st.want.events {
			t.Errorf("step %d (%s): events = %q, want %q", i, st.do, got, st.want.events)
		}
		if r.relaxed != st.want.relaxed {
			t.Errorf("step %d (%s): relaxed = %v, want %v", i, st.do, r.relaxed, st.want.relaxed)
		}
		if got := fmt.Sprintf("%d/%d", r.execs, r.failing); got != orNone(st.want.counted) {
			t.Errorf("step %d (%s): counted %s, want %s", i, st.do, got, orNone(st.want.counted))
		}
		if strings.HasPrefix(st.do, "admit") && run != st.want.run {
			t.Errorf("step %d (%s): run = %v, want %v", i, st.do, run, st.want.run)
		}
	}
}

func orClosed(s breaker.State) breaker.State {
	if s == "" {
		return breaker.Closed
	}
	return s
}

func orNone(s string) string {
	if s == "" {
		return "0/0"
	}
	return s
}

// TestStepsTripProbeAndClose walks a key through its life, step by step:
// what each step logs, counts and asks the store to keep durable.
func TestStepsTripProbeAndClose(t *testing.T) {
	s := settings // 3 failures trip it; 2 probes close it; a minute's cooldown
	runSteps(t, s, []step{
		{0, "admit", stepWant{state: breaker.Closed, run: true}},
		{0, "run success", stepWant{state: breaker.Closed, events: "run", relaxed: true, counted: "1/0"}},
		{time.Second, "run failed", stepWant{state: breaker.Closed, events: "run", counted: "1/1"}},
		{2 * time.Second, "run ignored", stepWant{state: breaker.Closed, events: "run", counted: "1/0"}},
		{3 * time.Second, "run failed", stepWant{state: breaker.Closed, events: "run", counted: "1/1"}},
		{4 * time.Second, "run failed", stepWant{state: breaker.Open, events: "run transition", counted: "1/1"}},
		{5 * time.Second, "admit", stepWant{state: breaker.Open, events: "skip", relaxed: true}},
		{5 * time.Second, "reject", stepWant{state: breaker.Open, events: "rejected"}},
		{65 * time.Second, "admit", stepWant{state: breaker.HalfOpen, events: "transition", run: true}},
		{66 * time.Second, "admit", stepWant{state: breaker.HalfOpen, events: "skip", relaxed: true}},
		{67 * time.Second, "run success", stepWant{state: breaker.HalfOpen, events: "run", counted: "1/0"}},
		{68 * time.Second, "admit", stepWant{state: breaker.HalfOpen, run: true, events: ""}},
		{69 * time.Second, "run success", stepWant{state: breaker.Closed, events: "run transition", counted: "1/0"}},
	})
}

// TestStepsByHand: trip, probe and reset log what they did, and put the
// circuit back.
func TestStepsByHand(t *testing.T) {
	runSteps(t, settings, []step{
		{0, "trip", stepWant{state: breaker.Open, events: "trip"}},
		{time.Hour, "admit", stepWant{state: breaker.Open, events: "skip", relaxed: true}}, // forced: never probes by itself
		{time.Hour, "probe", stepWant{state: breaker.HalfOpen, events: "probe"}},
		{time.Hour, "reset", stepWant{state: breaker.Closed, events: "reset"}},
		{time.Hour, "trip 1m", stepWant{state: breaker.Open, events: "trip"}},
		{time.Hour + 2*time.Minute, "admit", stepWant{state: breaker.HalfOpen, events: "transition", run: true}},
		{time.Hour + 2*time.Minute, "run failed", stepWant{state: breaker.Open, events: "run transition", counted: "1/1"}},
	})
}

// A skip's event says when the circuit may next run; in observe mode the
// would-be skip is logged as observed (the caller runs the call anyway),
// and probing a closed circuit is an error that changes nothing.
func TestSkipEventSaysUntilAndObserve(t *testing.T) {
	r := newRecorder()
	s := settings
	circuit.Trip(r, "k", t0, time.Minute, "")
	r.events = nil
	dec, _, _ := circuit.Admit(r, "k", s, t0.Add(time.Second), breaker.Lease{PID: 1}, nil)
	if dec.Run || len(r.events) != 1 || r.events[0].Until != "2026-11-21T12:01:00Z" || r.events[0].Outcome != "" {
		t.Errorf("skip: run %v, events %+v; want one skip until 12:01:00", dec.Run, r.events)
	}
	s.Observe = true
	r.events = nil
	dec, _, _ = circuit.Admit(r, "k", s, t0.Add(2*time.Second), breaker.Lease{PID: 1}, nil)
	if dec.Run || len(r.events) != 1 || r.events[0].Outcome != store.OutcomeObserved {
		t.Errorf("observe: run %v, events %+v; want a skip logged as observed", dec.Run, r.events)
	}
	r = newRecorder()
	if _, changed, err := circuit.Probe(r, "closed", t0); err == nil || changed || r.puts != 0 || len(r.events) != 0 {
		t.Errorf("Probe of a closed circuit = %v, %v; puts %d, events %v; want an error and no change", changed, err, r.puts, r.events)
	}
}

// ResetKeys closes every key or none: a key with no state stops it before
// anything changes.
func TestResetKeysIsAllOrNothing(t *testing.T) {
	r := newRecorder()
	circuit.Trip(r, "a", t0, 0, "")
	circuit.Trip(r, "b", t0, 0, "")
	r.events = nil
	closed, err := circuit.ResetKeys(r, []string{"a", "nope", "b"}, false, t0)
	var ns *circuit.NoStateError
	if !errors.As(err, &ns) || ns.Key != "nope" || closed != nil || len(r.events) != 0 || orClosed(r.circuits["a"].State) != breaker.Open {
		t.Fatalf("ResetKeys(a, nope, b) = %v, %v; events %v; want nothing done, nope missing", closed, err, r.events)
	}
	// "" is a key like any other (h13): one with no state is missing too.
	closed, err = circuit.ResetKeys(r, []string{"a", ""}, false, t0)
	if !errors.As(err, &ns) || ns.Key != "" || closed != nil || len(r.events) != 0 {
		t.Fatalf("ResetKeys(a, '') = %v, %v; want nothing done, '' missing", closed, err)
	}
	closed, err = circuit.ResetKeys(r, nil, true, t0)
	if err != nil || len(closed) != 2 || closed[0].From != breaker.Open || orClosed(r.circuits["b"].State) != breaker.Closed {
		t.Errorf("ResetKeys(all) = %v, %v; want a and b closed from open", closed, err)
	}
}

// TestProbingSkipSaysNoPastUntil: a call skipped because a probe runs
// elsewhere is logged without the cooldown's end, which has passed (it read
// "a probe running elsewhere until" a time gone by), and with its lease's
// expiry instead: the latest a probe of this key can still be running.
func TestProbingSkipSaysNoPastUntil(t *testing.T) {
	r := newRecorder()
	s := breaker.Settings{FailureThreshold: 1, SuccessThreshold: 1, Cooldown: time.Minute, HalfOpenMaxCalls: 1, ProbeLease: 10 * time.Minute}
	alive := func(breaker.Lease) bool { return true }
	if _, _, err := circuit.Admit(r, "k", s, t0, breaker.Lease{Host: "h", PID: 1}, alive); err != nil {
		t.Fatal(err)
	}
	if _, err := circuit.Record(r, "k", s, t0, breaker.Result{Outcome: breaker.Failure, Error: "exit 1"}, circuit.Run{}); err != nil {
		t.Fatal(err)
	}
	probeAt := t0.Add(2 * time.Minute)
	if dec, _, err := circuit.Admit(r, "k", s, probeAt, breaker.Lease{Host: "h", PID: 2}, alive); err != nil || !dec.Probe {
		t.Fatalf("the probe: %+v, %v", dec, err)
	}
	r.events = nil
	dec, _, err := circuit.Admit(r, "k", s, probeAt.Add(time.Second), breaker.Lease{Host: "h", PID: 3}, alive)
	if err != nil || dec.Run || dec.Skip != breaker.SkipProbing || len(r.events) != 1 {
		t.Fatalf("a call while the probe runs: %+v, %v, events %+v", dec, err, r.events)
	}
	if want := store.Stamp(probeAt.Add(10 * time.Minute)); r.events[0].Until != want {
		t.Errorf("the probing skip's until = %q; want %q, its lease's expiry", r.events[0].Until, want)
	}
}
