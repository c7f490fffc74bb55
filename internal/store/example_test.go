package store_test

import (
	"fmt"
	"time"

	"guard/breaker"
	"guard/internal/circuit"
	"guard/internal/store"
	"guard/internal/store/storetest"
)

// Every change of the state is one Update: here a failed run is recorded
// and its event logged in the same transaction. storetest is the
// in-memory backend; the JSON file (hookstate) and any other backend
// implement the same interface.
func ExampleCircuits() {
	var circuits store.Circuits = storetest.NewCircuits()
	s := breaker.Settings{FailureThreshold: 1, Cooldown: time.Minute, MaxCooldown: time.Hour}
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	err := circuits.Update(now, func(tx store.CircuitTx) (bool, error) {
		_, err := circuit.Record(tx, "lint", s, now, breaker.Result{Outcome: breaker.Failure, Error: "exit 1"}, circuit.Run{Exit: 1})
		return true, err
	})
	if err != nil {
		panic(err)
	}
	c, _ := circuits.Peek("lint")
	fmt.Println(c.State, c.LastError)
	view, _ := circuits.Snapshot()
	fmt.Println(view.Keys(), view.Stats().TotalFailures)
	// Output:
	// open exit 1
	// [lint] 1
}

// A holder on another host cannot be checked from here: it is alive until
// its lease expires.
func ExampleLiveness() {
	l := store.Liveness{Host: "a", Local: func(pid int, start uint64) bool { return false }}
	fmt.Println(l.Alive(store.Holder{Host: "a", PID: 7}), l.Alive(store.Holder{Host: "b", PID: 7}))
	// Output: false true
}
