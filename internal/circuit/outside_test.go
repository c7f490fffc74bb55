package circuit_test

import (
	"testing"
	"time"

	"guard/breaker"
	"guard/config"
	"guard/internal/circuit"
	"guard/internal/store"
)

// record is guard record: the outcome o of a call of key that guard did not
// run, recorded at now by process pid.
func record(t *testing.T, b backend, key string, now time.Time, pid int, o circuit.Outside) circuit.Recorded {
	t.Helper()
	var rec circuit.Recorded
	err := b.circuits.Update(now, func(tx store.CircuitTx) (bool, error) {
		var err error
		rec, err = circuit.RecordOutside(tx, key, settings, now, breaker.Lease{Host: "h", PID: pid, Start: 1}, func(breaker.Lease) bool { return true }, o.Result(config.Default("/h").CircuitBreaker), o.Duration)
		return !rec.Disabled, err
	})
	if err != nil {
		t.Fatal(err)
	}
	return rec
}

var (
	recordedFailure = circuit.Outside{Outcome: breaker.Failure, Error: "ECONNRESET"}
	recordedSuccess = circuit.Outside{Outcome: breaker.Success}
)

// TestRecordOutside: outcomes from outside (guard record) move the circuit
// as runs would, on every backend; one the circuit would not have let run
// does not (issue 34, item 1).
func TestRecordOutside(t *testing.T) {
	for name, open := range backends(t) {
		t.Run(name, func(t *testing.T) {
			b := open()
			for i := range 3 {
				rec := record(t, b, "k", t0.Add(time.Duration(i)*time.Second), 100, recordedFailure)
				if !rec.Counted {
					t.Fatalf("failure %d on a closed circuit not counted", i)
				}
			}
			c, _ := b.circuits.Peek("k")
			if c.State != breaker.Open || c.LastError != "ECONNRESET" {
				t.Fatalf("after 3 recorded failures: %s, %q; want open, ECONNRESET", c.State, c.LastError)
			}
			// While open, a recorded success is not admitted: counted in the
			// totals, it closes nothing.
			rec := record(t, b, "k", t0.Add(10*time.Second), 100, recordedSuccess)
			if rec.Counted || rec.Skip != breaker.SkipOpen || rec.Circuit.State != breaker.Open || rec.Circuit.Totals.Successes != 1 {
				t.Fatalf("a success while open: %+v; want it not counted, open, in the totals", rec)
			}
			// Once the cooldown has passed, the record is the probe: two
			// successes close the circuit.
			rec = record(t, b, "k", t0.Add(2*time.Minute), 100, recordedSuccess)
			if !rec.Counted || !rec.Probe || rec.Circuit.State != breaker.HalfOpen || len(rec.Circuit.Leases) != 0 {
				t.Fatalf("the first success after the cooldown: %+v; want a counted probe, half-open, no lease left", rec)
			}
			rec = record(t, b, "k", t0.Add(2*time.Minute+time.Second), 100, recordedSuccess)
			if rec.Circuit.State != breaker.Closed {
				t.Fatalf("after two probes: %s; want closed", rec.Circuit.State)
			}
			var names []string
			for _, e := range b.events() {
				if e.Event == store.EventRun && e.Reason == "" {
					t.Errorf("a recorded run logged without saying so: %+v", e)
				}
				names = append(names, e.Event)
			}
			want := "run run run transition run transition run run transition"
			if got := join(names); got != want {
				t.Errorf("events = %s; want %s", got, want)
			}
			view, _ := b.circuits.Snapshot()
			if st := view.Stats(); st.TotalExecutions != 6 || st.TotalFailures != 3 {
				t.Errorf("stats = %+v; want 6 runs, 3 failures", st)
			}
		})
	}
}

// TestRecordWhileAProbeRunsElsewhere: a recorded outcome while another
// process holds the probe lease is not the probe's.
func TestRecordWhileAProbeRunsElsewhere(t *testing.T) {
	for name, open := range backends(t) {
		t.Run(name, func(t *testing.T) {
			b := open()
			p := proto(b, "h", 200, everyoneAlive)
			for i := range 3 {
				run(t, p, "k", t0.Add(time.Duration(i)*time.Second), 1)
			}
			dec, _, err := admit(p, "k", t0.Add(2*time.Minute))
			if err != nil || !dec.Probe {
				t.Fatalf("no probe after the cooldown: %+v, %v", dec, err)
			}
			rec := record(t, b, "k", t0.Add(2*time.Minute+time.Second), 300, recordedSuccess)
			if rec.Counted || rec.Skip != breaker.SkipProbing || rec.Circuit.State != breaker.HalfOpen || len(rec.Circuit.Leases) != 1 {
				t.Fatalf("a success while pid 200 probes: %+v; want it not counted, the lease kept", rec)
			}
		})
	}
}

// TestDisableAndEnable: a key disabled by hand runs unguarded and records
// nothing until enabled, on every backend (issue 34, item 2).
func TestDisableAndEnable(t *testing.T) {
	for name, open := range backends(t) {
		t.Run(name, func(t *testing.T) {
			b := open()
			p := proto(b, "h", 100, everyoneAlive)
			for i := range 3 {
				run(t, p, "k", t0.Add(time.Duration(i)*time.Second), 1)
			}
			by := circuit.Manual{User: "ann", Host: "h", PID: 42, Reason: "INC-7"}
			var changed bool
			err := b.circuits.Update(t0.Add(5*time.Second), func(tx store.CircuitTx) (bool, error) {
				var err error
				_, changed, err = circuit.Disable(tx, "k", t0.Add(5*time.Second), by)
				return changed, err
			})
			if err != nil || !changed {
				t.Fatalf("Disable: %v, %v", changed, err)
			}
			dec, c, err := admit(p, "k", t0.Add(6*time.Second))
			if err != nil || !dec.Run || !dec.Disabled || c.Shown() != breaker.Disabled {
				t.Fatalf("a call while disabled: %+v, %s, %v; want it run, disabled", dec, c.Shown(), err)
			}
			if rec := record(t, b, "k", t0.Add(7*time.Second), 100, recordedFailure); !rec.Disabled {
				t.Fatalf("a record while disabled: %+v; want nothing recorded", rec)
			}
			c, _ = b.circuits.Peek("k")
			if c.Totals.Failures != 3 || c.Disabled == nil || c.Disabled.User != "ann" || c.Disabled.Reason != "INC-7" || c.Disabled.PID != 42 {
				t.Fatalf("after the record while disabled: %+v", c)
			}
			err = b.circuits.Update(t0.Add(8*time.Second), func(tx store.CircuitTx) (bool, error) {
				var err error
				_, changed, err = circuit.Enable(tx, "k", t0.Add(8*time.Second), by)
				return changed, err
			})
			if err != nil || !changed {
				t.Fatalf("Enable: %v, %v", changed, err)
			}
			dec, c, _ = admit(p, "k", t0.Add(9*time.Second))
			if dec.Run || c.State != breaker.Open {
				t.Fatalf("a call once enabled: %+v, %s; want the open circuit to skip it", dec, c.State)
			}
			var got []string
			for _, e := range b.events() {
				if e.Event == store.EventDisable || e.Event == store.EventEnable {
					got = append(got, e.Event+" "+e.From+">"+e.To+" "+e.User)
				}
			}
			if want := "disable open>disabled ann,enable disabled>open ann"; joinComma(got) != want {
				t.Errorf("events = %s; want %s", joinComma(got), want)
			}
		})
	}
}

func join(s []string) string {
	out := ""
	for i, x := range s {
		if i > 0 {
			out += " "
		}
		out += x
	}
	return out
}

func joinComma(s []string) string {
	out := ""
	for i, x := range s {
		if i > 0 {
			out += ","
		}
		out += x
	}
	return out
}
