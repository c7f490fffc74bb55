package circuit_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"guard/breaker"
	"guard/config"
	"guard/internal/circuit"
	"guard/internal/store"
	"guard/internal/store/file"
	"guard/internal/store/postgres"
	"guard/internal/store/postgres/pgtest"
	"guard/internal/store/storetest"
	"guard/internal/supervise"
)

var t0 = time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)

var settings = breaker.Settings{FailureThreshold: 3, SuccessThreshold: 2, Cooldown: time.Minute, MaxCooldown: time.Hour, HalfOpenMaxCalls: 1, ProbeLease: 10 * time.Minute}

// A backend is what the protocol runs on, and a way to read its events.
type backend struct {
	circuits store.Circuits
	runs     store.Runs
	events   func() []store.Event
}

// backends returns every backend the protocol's tests run on: the
// in-memory test double, the JSON file, and PostgreSQL (a throwaway
// cluster; skipped outside CI where the machine has none).
func backends(t *testing.T) map[string]func() backend {
	return map[string]func() backend{
		"memory": func() backend {
			c := storetest.NewCircuits()
			return backend{c, storetest.NewRuns(), c.Events}
		},
		"postgres": func() backend {
			db, err := postgres.Open(context.Background(), pgtest.Shared(t).NewDB(t), postgres.Settings{ConnectTimeout: time.Second})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(db.Close)
			db.LocalClock = true // the tests play time forward
			ev := db.Events()
			return backend{db.Circuits(), db.Runs(), func() []store.Event {
				res, err := ev.Read(nil)
				if err != nil {
					t.Fatal(err)
				}
				return res.Events
			}}
		},
		"file": func() backend {
			dir := t.TempDir()
			h, err := file.OpenHooks(config.Default(dir), filepath.Join(dir, "state.json"), store.Options{LogFailed: func(err error) { t.Error(err) }})
			if err != nil {
				t.Fatal(err)
			}
			return backend{h.Circuits, h.Runs, func() []store.Event {
				res, err := h.Events.Read(nil)
				if err != nil {
					t.Fatal(err)
				}
				return res.Events
			}}
		},
	}
}

// proto returns a protocol on b for the process pid on host, with alive
// deciding which holders live.
func proto(b backend, host string, pid int, alive func(pid int, start uint64) bool) *circuit.Protocol {
	return &circuit.Protocol{
		Circuits: b.circuits, Runs: b.runs,
		Live: store.Liveness{Host: host, Local: alive},
		Self: store.Holder{Host: host, PID: pid, Start: 1},
	}
}

func everyoneAlive(int, uint64) bool { return true }

func run(t *testing.T, p *circuit.Protocol, key string, now time.Time, exit int) breaker.Decision {
	t.Helper()
	dec, _, err := admit(p, key, now)
	if err != nil {
		t.Fatal(err)
	}
	if !dec.Run {
		return dec
	}
	res := supervise.Result{ExitCode: exit}
	r := circuit.Classify(&res, config.Default("/h").CircuitBreaker, dec)
	if err := p.Record(key, settings, now, r, circuit.Run{Exit: exit}); err != nil {
		t.Fatal(err)
	}
	return dec
}

// admit is what guard run does before the command: Start, which lists the
// run where the store lists runs ahead (its holder is then alive to other
// hosts), then Admit.
func admit(p *circuit.Protocol, key string, now time.Time) (breaker.Decision, breaker.Circuit, error) {
	if _, err := p.Start(key, 0, 0, now, time.Time{}, nil); err != nil {
		return breaker.Decision{}, breaker.Circuit{}, err
	}
	return p.Admit(key, settings, now)
}

func eventNames(evs []store.Event) []string {
	var out []string
	for _, e := range evs {
		out = append(out, e.Event)
	}
	return out
}

func TestProtocol(t *testing.T) {
	for name, open := range backends(t) {
		t.Run(name, func(t *testing.T) {
			t.Run("closed runs and trips", func(t *testing.T) {
				b := open()
				p := proto(b, "h1", 100, everyoneAlive)
				for i := range 3 {
					if dec := run(t, p, "k", t0.Add(time.Duration(i)*time.Second), 1); !dec.Run {
						t.Fatalf("run %d skipped while closed", i)
					}
				}
				dec, c, err := admit(p, "k", t0.Add(5*time.Second))
				if err != nil || dec.Run || c.State != breaker.Open {
					t.Fatalf("after 3 failures: run %v, state %v, %v; want a skip of an open circuit", dec.Run, c.State, err)
				}
				view, _ := b.circuits.Snapshot()
				if st := view.Stats(); st.TotalExecutions != 3 || st.TotalFailures != 3 || st.HooksDisabled != 1 {
					t.Errorf("stats = %+v; want 3 runs, 3 failures, 1 open", st)
				}
				got := eventNames(b.events())
				want := []string{"run", "run", "run", "transition", "skip"}
				if len(got) != len(want) {
					t.Fatalf("events = %v; want %v", got, want)
				}
				for i := range want {
					if got[i] != want[i] {
						t.Fatalf("events = %v; want %v", got, want)
					}
				}
			})
			t.Run("one probe among many hosts", func(t *testing.T) {
				b := open()
				p := proto(b, "h1", 100, everyoneAlive)
				for range 3 {
					run(t, p, "k", t0, 1)
				}
				later := t0.Add(2 * time.Minute)
				first, _, err := admit(proto(b, "h1", 200, everyoneAlive), "k", later)
				if err != nil || !first.Run || !first.Probe {
					t.Fatalf("first caller after the cooldown: %+v, %v; want a probe", first, err)
				}
				// A caller on another host sees the lease of h1's prober: its
				// holder cannot be checked from h2, so it only expires.
				other, _, err := admit(proto(b, "h2", 200, func(int, uint64) bool { return false }), "k", later.Add(time.Second))
				if err != nil || other.Run || other.Skip != breaker.SkipProbing {
					t.Fatalf("second caller on another host: %+v, %v; want it skipped while the probe runs", other, err)
				}
				// After the lease expires, h2 reaps it: an abandoned probe,
				// which re-opens the circuit.
				expired := later.Add(settings.ProbeLease + time.Second)
				last, _, err := admit(proto(b, "h2", 400, everyoneAlive), "k", expired)
				if err != nil || last.Run || len(last.Events) == 0 || last.Events[0].Kind != breaker.Reaped {
					t.Fatalf("caller on another host after the lease expired: %+v, %v; want the lease reaped", last, err)
				}
			})
			t.Run("a dead prober on this host is reaped", func(t *testing.T) {
				b := open()
				for range 3 {
					run(t, proto(b, "h1", 100, everyoneAlive), "k", t0, 1)
				}
				later := t0.Add(2 * time.Minute)
				if first, _, _ := admit(proto(b, "h1", 200, everyoneAlive), "k", later); !first.Probe {
					t.Fatal("no probe after the cooldown")
				}
				dec, c, err := admit(proto(b, "h1", 300, func(int, uint64) bool { return false }), "k", later.Add(time.Second))
				if err != nil || len(dec.Events) == 0 || dec.Events[0].Kind != breaker.Reaped || c.Totals.Abandoned != 1 {
					t.Fatalf("caller on the prober's host after it died: %+v, %v; want its lease reaped as abandoned", dec, err)
				}
			})
			t.Run("max_concurrent", func(t *testing.T) {
				b := open()
				p := proto(b, "h1", 100, everyoneAlive)
				slot, err := p.Start("k", 1, 0, t0, time.Time{}, nil)
				if err != nil || slot == nil {
					t.Fatalf("Start = %v, %v", slot, err)
				}
				if _, err := p.Start("k", 1, 0, t0, time.Time{}, nil); !errors.Is(err, store.ErrFull) {
					t.Errorf("second Start = %v; want ErrFull", err)
				}
				if _, err := p.Start("k", 1, time.Minute, t0, time.Time{}, func() bool { return true }); !errors.Is(err, store.ErrStopped) {
					t.Errorf("Start stopped while queued = %v; want ErrStopped", err)
				}
				runs, _ := b.runs.List(func(store.Holder) bool { return true })
				if len(runs) != 1 || runs[0].Key != "k" || runs[0].Holder.Host != "h1" {
					t.Errorf("runs in flight = %+v; want k's, held on h1", runs)
				}
				slot.Release()
				if _, err := p.Start("k", 1, 0, t0, time.Time{}, nil); err != nil {
					t.Errorf("Start after Release = %v", err)
				}
				if err := p.Reject("k", t0, "full", false); err != nil {
					t.Fatal(err)
				}
				c, _ := b.circuits.Peek("k")
				if c.Totals.Rejected != 1 {
					t.Errorf("rejected = %d; want 1", c.Totals.Rejected)
				}
			})
		})
	}
}

func TestClassify(t *testing.T) {
	b := config.Default("/h").CircuitBreaker
	slow := b
	slow.SlowCall = time.Second
	tests := []struct {
		name string
		res  supervise.Result
		b    config.Breaker
		want breaker.Outcome
		err  string
	}{
		{"success", supervise.Result{ExitCode: 0}, b, breaker.Success, ""},
		{"block", supervise.Result{ExitCode: 2}, b, breaker.Ignored, ""},
		{"failure", supervise.Result{ExitCode: 1, Tail: []byte("boom\n")}, b, breaker.Failure, "exit 1: boom"},
		{"not found", supervise.Result{ExitCode: 127, StartErr: errors.New("x: command not found")}, b, breaker.Failure, "exit 127: x: command not found"},
		{"interrupted", supervise.Result{ExitCode: 143, Interrupted: supervise.Signals[1]}, b, breaker.Cancelled, ""},
		{"slow", supervise.Result{ExitCode: 0, Elapsed: 2 * time.Second}, slow, breaker.Failure, "slow call: took 2s, over slow_call 1s"},
	}
	for _, tc := range tests {
		r := circuit.Classify(&tc.res, tc.b, breaker.Decision{})
		if r.Outcome != tc.want || r.Error != tc.err {
			t.Errorf("%s: Classify = %v %q; want %v %q", tc.name, r.Outcome, r.Error, tc.want, tc.err)
		}
	}
}

func TestMain(m *testing.M) {
	code := m.Run()
	pgtest.StopShared()
	os.Exit(code)
}

// Only the counters of a closed, healthy circuit, and a skip count, may be
// written the cheaper way; a failure, the success that ends a run of
// failures, a probe and a trip are written in full.
func TestOnlyHealthyCountersAreRelaxed(t *testing.T) {
	c := storetest.NewCircuits()
	p := proto(backend{c, storetest.NewRuns(), c.Events}, "h1", 100, everyoneAlive)
	for _, step := range []struct {
		exit    int
		relaxed bool
	}{
		{0, true},  // healthy: counters only
		{0, true},  // still
		{2, true},  // ignored: counts as neither
		{1, false}, // a failure moves towards the threshold
		{0, false}, // the success that resets it is a state change too
		{0, true},  // healthy again
		{1, false},
		{1, false},
		{1, false}, // trips
	} {
		before := c.Relaxed()
		run(t, p, "k", t0, step.exit)
		if got := c.Relaxed() > before; got != step.relaxed {
			t.Fatalf("exit %d: relaxed %v; want %v", step.exit, got, step.relaxed)
		}
	}
	before := c.Relaxed()
	if dec := run(t, p, "k", t0.Add(time.Second), 0); dec.Run || c.Relaxed() != before+1 {
		t.Errorf("a skip (run %v) was not relaxed", dec.Run)
	}
	later := t0.Add(2 * time.Minute)
	before = c.Relaxed()
	if dec := run(t, p, "k", later, 0); !dec.Probe || c.Relaxed() != before {
		t.Errorf("a successful probe was relaxed (probe %v)", dec.Probe)
	}
}

// lockCheck is a file store that fails the test when the protocol takes
// its lock, counts a skip or takes a slot before it has called Ready.
type lockCheck struct {
	store.Circuits
	t     *testing.T
	ready *bool
}

func (c lockCheck) check(what string) {
	c.t.Helper()
	if !*c.ready {
		c.t.Errorf("%s before Ready", what)
	}
}

func (c lockCheck) Update(now time.Time, fn func(store.CircuitTx) (bool, error)) error {
	c.check("Update")
	return c.Circuits.Update(now, fn)
}

func (c lockCheck) CountSkip(key string, blocked bool, ev store.Event) error {
	c.check("CountSkip")
	return c.Circuits.(store.SkipCounter).CountSkip(key, blocked, ev)
}

type runsCheck struct {
	store.Runs
	c lockCheck
}

func (r runsCheck) Acquire(run store.Run, limit int, wait time.Duration, stop func() bool) (store.Slot, error) {
	r.c.check("Acquire")
	return r.Runs.Acquire(run, limit, wait, stop)
}

// Protocol.Ready comes before anything a signal must not kill guard
// holding (a lock, a lease, a slot, a skip's count), and not at all for a
// call the lock-free read decides alone (a closed circuit): guard run sets
// its signal handlers up meanwhile (issue 36).
func TestReadyBeforeLocks(t *testing.T) {
	b := backends(t)["file"]()
	ready := false
	c := lockCheck{b.circuits, t, &ready}
	p := proto(backend{c, runsCheck{b.runs, c}, b.events}, "h", os.Getpid(), everyoneAlive)
	calls := 0
	p.Ready = func() { calls++; ready = true }

	dec, _, err := p.Admit("k", settings, t0)
	if err != nil || !dec.Run {
		t.Fatalf("Admit of a new key = %+v, %v", dec, err)
	}
	if calls != 0 {
		t.Fatalf("a closed circuit's admission called Ready")
	}
	if err := p.Record("k", settings, t0, breaker.Result{Outcome: breaker.Failure}, circuit.Run{Exit: 1}); err != nil {
		t.Fatal(err)
	}
	if calls != 1 {
		t.Fatalf("Record called Ready %d times, want 1", calls)
	}

	// A skip counted without the state's lock, a slot, a run's listing:
	// each after Ready, in a protocol of its own.
	for i := 0; i < 2; i++ {
		if err := p.Record("k", settings, t0, breaker.Result{Outcome: breaker.Failure}, circuit.Run{Exit: 1}); err != nil {
			t.Fatal(err)
		}
	}
	for name, step := range map[string]func(p *circuit.Protocol) error{
		"skip": func(p *circuit.Protocol) error {
			dec, _, err := p.Admit("k", settings, t0.Add(time.Second))
			if err == nil && dec.Run {
				t.Errorf("an open circuit ran")
			}
			return err
		},
		"slot": func(p *circuit.Protocol) error {
			s, err := p.Start("other", 1, 0, t0, time.Time{}, nil)
			if s != nil {
				s.Release()
			}
			return err
		},
		"register": func(p *circuit.Protocol) error {
			if s := p.Register("other", t0, time.Time{}, os.Getpid()); s != nil {
				s.Release()
			}
			return nil
		},
	} {
		ready = false
		p := proto(backend{c, runsCheck{b.runs, c}, b.events}, "h", os.Getpid(), everyoneAlive)
		p.Ready = func() { ready = true }
		if err := step(p); err != nil {
			t.Errorf("%s: %v", name, err)
		}
		if !ready {
			t.Errorf("%s: Ready not called", name)
		}
	}
}

// stalePeek is a store whose lock-free read shows what it held before:
// another call took the probe between this call's read and its update.
type stalePeek struct {
	store.Circuits
	before breaker.Circuit
}

func (s stalePeek) Peek(string) (breaker.Circuit, error) { return s.before, nil }

// A skip the update decides though the lock-free read showed a run (a
// probe due that another call takes first) asks SkipBlocks too, so that
// its verdict is the call's (a skipped WorktreeCreate hook blocks), as
// for a skip the read showed (issue 33 item 2; review of a4ab1a1).
func TestSkipBlocksAskedWhenTheUpdateSkips(t *testing.T) {
	b := backends(t)["memory"]()
	first := proto(b, "h", 1, everyoneAlive)
	for range settings.FailureThreshold {
		run(t, first, "k", t0, 1)
	}
	due := t0.Add(settings.Cooldown + time.Second)
	before, _ := b.circuits.Peek("k")
	if dec, _, err := first.Admit("k", settings, due); err != nil || !dec.Run {
		t.Fatalf("the first call after the cooldown: %+v, %v; want its probe", dec, err)
	}
	second := proto(backend{stalePeek{b.circuits, before}, b.runs, b.events}, "h", 2, everyoneAlive)
	asked := 0
	second.SkipBlocks = func() bool { asked++; return true }
	dec, _, err := second.Admit("k", settings, due)
	if err != nil || dec.Run {
		t.Fatalf("the second call: %+v, %v; want a skip (the probe is the first's)", dec, err)
	}
	evs := b.events()
	if last := evs[len(evs)-1]; asked != 1 || last.Event != store.EventSkip || last.Verdict != store.VerdictOf(true) {
		t.Errorf("SkipBlocks asked %d times, last event %+v; want once, a skip blocked", asked, last)
	}
}
