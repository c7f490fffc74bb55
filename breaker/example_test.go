package breaker_test

import (
	"fmt"
	"time"

	"guard/breaker"
)

// A circuit trips after its failure threshold, skips calls while open,
// lets one probe through after the cooldown, and closes after enough
// successful probes. Time is passed in: the package reads no clock.
func ExampleCircuit() {
	s := breaker.Settings{FailureThreshold: 2, SuccessThreshold: 1, Cooldown: time.Minute, MaxCooldown: time.Hour, HalfOpenMaxCalls: 1, ProbeLease: time.Minute}
	t0 := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	me := breaker.Lease{PID: 42}
	alive := func(breaker.Lease) bool { return true }
	var c breaker.Circuit
	for i := range 2 {
		d := c.Admit(s, t0, me, alive)
		c.Record(s, t0, breaker.Result{Outcome: breaker.Failure, Error: fmt.Sprintf("exit 1 (%d)", i), Probe: d.Probe, Lease: d.Lease})
	}
	fmt.Println(c.State, c.Admit(s, t0.Add(time.Second), me, alive).Run)
	d := c.Admit(s, t0.Add(2*time.Minute), me, alive)
	fmt.Println(c.State, d.Run, d.Probe)
	c.Record(s, t0.Add(2*time.Minute), breaker.Result{Outcome: breaker.Success, Probe: d.Probe, Lease: d.Lease})
	fmt.Println(c.State)
	// Output:
	// open false
	// half_open true true
	// closed
}

// A budget allows Limit actions inside any Window.
func ExampleBudget() {
	b := breaker.Budget{Limit: 2, Window: 4 * time.Hour}
	t0 := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	done := []time.Time{t0, t0.Add(time.Hour)}
	v := b.Check(done, t0.Add(2*time.Hour))
	fmt.Println(v.Allowed, v.Used, v.NextAllowed.Format(time.Kitchen))
	// Output: false 2 4:00PM
}

// A window slides: an event exactly its length old is out of it.
func ExampleWindow() {
	w := breaker.Window{Length: time.Hour}
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	times := []time.Time{now.Add(-2 * time.Hour), now.Add(-time.Hour), now.Add(-59 * time.Minute)}
	fmt.Println(w.Count(times, now), len(w.Prune(times, now)))
	// Output: 1 1
}
