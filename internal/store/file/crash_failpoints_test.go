//go:build failpoints && unix

package file

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
	"time"

	"guard/breaker"
	"guard/internal/store"
	"guard/internal/store/hookstate"
	"guard/statefile"
)

// TestCrashLeavesTheLogBehindTheState covers faults #9: a guard killed at
// any step of recording a run leaves the event log behind the state, never
// ahead of it. Before the state's rename neither has the run; from the
// rename on the state counts it, and the log has its event only if the
// guard lived to append it (the gap docs/observability.md describes); the
// log never has an event of a run the state does not count.
func TestCrashLeavesTheLogBehindTheState(t *testing.T) {
	if os.Getenv("FILE_CRASH_CHILD") != "" {
		recordOneRun(t, os.Getenv("FILE_CRASH_CHILD"))
		return
	}
	for _, step := range statefile.Failpoints {
		t.Run(step, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "state.json")
			cmd := exec.Command(os.Args[0], "-test.run=^TestCrashLeavesTheLogBehindTheState$")
			cmd.Env = append(os.Environ(), "FILE_CRASH_CHILD="+path, "GUARD_FAILPOINT="+step)
			err := cmd.Run()
			var xe *exec.ExitError
			if !errors.As(err, &xe) || xe.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
				t.Fatalf("child was not stopped at %s: %v", step, err)
			}
			s := crashCircuits(t, path)
			c, err := s.Peek("k")
			if err != nil {
				t.Fatal(err)
			}
			counted := c.Totals.Successes
			res, err := EventLogs{s.Log()}.Read(nil)
			if err != nil && !errors.Is(err, os.ErrNotExist) {
				t.Fatal(err)
			}
			logged := int64(len(res.Events))
			if logged > counted {
				t.Fatalf("after %s: the log has %d runs, the state counts %d: the log is ahead of the state", step, logged, counted)
			}
			renamed := slices.Index(statefile.Failpoints, step) >= slices.Index(statefile.Failpoints, "after-rename")
			if renamed != (counted == 1) {
				t.Errorf("after %s: the state counts %d runs; want %d", step, counted, map[bool]int{true: 1, false: 0}[renamed])
			}
			if renamed && logged != 0 {
				t.Errorf("after %s: the log has the run's event; a guard killed before its append leaves none", step)
			}
		})
	}
}

// crashCircuits opens the state at path with its event log beside it.
func crashCircuits(t *testing.T, path string) *Circuits {
	t.Helper()
	s, err := openCircuits(path, statefile.Options{LockTimeout: 5 * time.Second}, hookstate.Retention{},
		func(real string) (*EventLog, error) {
			return &EventLog{Path: filepath.Join(filepath.Dir(real), "events.jsonl"), MaxSize: 1 << 20, MaxFiles: 1}, nil
		}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// recordOneRun records one successful run of key k with its event, as
// guard run does (the child of TestCrashLeavesTheLogBehindTheState).
func recordOneRun(t *testing.T, path string) {
	s := crashCircuits(t, path)
	now := time.Now()
	err := s.Update(now, func(tx store.CircuitTx) (bool, error) {
		c, err := tx.Circuit("k")
		if err != nil {
			return false, err
		}
		c.Record(breaker.Settings{FailureThreshold: 3, SuccessThreshold: 2}, now, breaker.Result{Outcome: breaker.Success})
		tx.Put("k", c)
		tx.Log(store.Event{Time: now, Event: store.EventRun, Key: "k", Outcome: "success"})
		return true, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	os.Exit(0) // the failpoint did not stop it: the parent says so
}
