package tests

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"guard/internal/store/hookstate"
	"guard/internal/store/postgres/pgtest"
)

// TestSIGKILLDuringWritesLosesNothing runs writers that each run guard again
// and again on one state file, while about half the guard processes are
// killed with SIGKILL at a random moment of their life: before, during or
// after their read, their write or their rename. After every round the
// file must parse, and each writer's count must hold every run whose guard
// finished (and no more runs than were started).
func TestSIGKILLDuringWritesLosesNothing(t *testing.T) {
	dir := t.TempDir()
	state := filepath.Join(dir, "state.json")
	env := append(os.Environ(), "GUARD_STATE="+state, "HOME="+t.TempDir(), "GUARD_CONFIG=")
	killLoop(t, env, func() ([]byte, error) { return os.ReadFile(state) })

	// A last run tidies up after the dead: no temp file stays behind.
	cmd := exec.Command(guardBin, "run", "--name", "last", "--", "true")
	cmd.Env = env
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("run after the crashes: %v\n%s", err, out)
	}
	if tmps, _ := filepath.Glob(filepath.Join(dir, ".state.json.tmp*")); len(tmps) != 0 {
		t.Errorf("temp files left behind: %v", tmps)
	}
}

// TestSIGKILLOnPostgresLosesNothing is the same loop on a PostgreSQL
// state: a guard killed in the middle of its transaction leaves neither a
// half-written state nor a lock behind.
func TestSIGKILLOnPostgresLosesNothing(t *testing.T) {
	url := pgtest.Shared(t).NewDB(t)
	env := append(os.Environ(), "GUARD_STATE="+url, "HOME="+t.TempDir(), "GUARD_CONFIG=", "GUARD_HOST=storm")
	killLoop(t, env, func() ([]byte, error) {
		cmd := exec.Command(guardBin, "state", "export")
		cmd.Env = env
		return cmd.Output()
	})
}

// killLoop runs the SIGKILL loop of guard processes with env, and checks
// the state read reads after each round.
func killLoop(t *testing.T, env []string, read func() ([]byte, error)) {
	t.Helper()
	rounds, writers, round := 4, 8, 300*time.Millisecond
	if stress {
		rounds, round = 100, time.Second
	}
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	var mu sync.Mutex // guards r
	r := rand.New(rand.NewPCG(seed, 1))

	started := make([]int, writers)
	finished := make([]int, writers)
	killed := 0
	for n := range rounds {
		deadline := time.Now().Add(round)
		var wg sync.WaitGroup
		for w := range writers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for time.Now().Before(deadline) {
					cmd := exec.Command(guardBin, "run", "--name", fmt.Sprintf("writer %d", w), "--", "true")
					cmd.Env = env
					if err := cmd.Start(); err != nil {
						t.Error(err)
						return
					}
					started[w]++
					mu.Lock()
					kill := r.IntN(2) == 0
					after := time.Duration(r.IntN(8000)) * time.Microsecond
					mu.Unlock()
					var timer *time.Timer
					if kill {
						timer = time.AfterFunc(after, func() { _ = cmd.Process.Signal(syscall.SIGKILL) })
					}
					err := cmd.Wait()
					if timer != nil {
						timer.Stop()
					}
					var xe *exec.ExitError
					switch {
					case err == nil:
						finished[w]++
					case errors.As(err, &xe) && xe.Sys().(syscall.WaitStatus).Signal() == syscall.SIGKILL:
						mu.Lock()
						killed++
						mu.Unlock()
					default:
						t.Errorf("writer %d: %v", w, err)
					}
				}
			}()
		}
		wg.Wait()

		data, err := read()
		if err != nil {
			t.Fatalf("round %d: %v", n, err)
		}
		var d hookstate.Document
		if err := d.UnmarshalState(data); err != nil {
			t.Fatalf("round %d: the state file does not parse: %v\n%s", n, err, data)
		}
		for w := range writers {
			h, err := d.Hook(fmt.Sprintf("writer %d", w))
			if err != nil {
				t.Fatalf("round %d: writer %d: %v", n, w, err)
			}
			got := 0
			if h != nil {
				got = int(h.Totals.Successes)
			}
			if got < finished[w] || got > started[w] {
				t.Fatalf("round %d: writer %d has %d runs recorded; %d finished, %d started", n, w, got, finished[w], started[w])
			}
		}
	}
	t.Logf("%d rounds: %d guard runs, %d killed", rounds, sum(started), killed)
	if killed == 0 {
		t.Error("no guard process was killed: the test tested nothing")
	}
}

func sum(ns []int) int {
	s := 0
	for _, n := range ns {
		s += n
	}
	return s
}

// TestSIGKILLDuringSkipsCountsEachOnce (issue 36 item 3): skips of an open
// circuit are counted without the state's lock (the skip tally) while
// closed calls fold them into the state, about half of all guard processes
// killed with SIGKILL at a random moment: the skips the totals show always
// lie between those whose guard finished and those started (none lost,
// none counted twice), never go down, and end up in the state file itself.
func TestSIGKILLDuringSkipsCountsEachOnce(t *testing.T) {
	dir := t.TempDir()
	state := filepath.Join(dir, "state.json")
	env := append(os.Environ(), "GUARD_STATE="+state, "HOME="+t.TempDir(), "GUARD_CONFIG=")
	guard := func(args ...string) ([]byte, error) {
		cmd := exec.Command(guardBin, args...)
		cmd.Env = env
		return cmd.Output()
	}
	if out, err := guard("trip", "tripped"); err != nil {
		t.Fatalf("trip: %v\n%s", err, out)
	}
	skips := func() int64 {
		t.Helper()
		out, err := guard("status", "--json", "tripped")
		if err != nil {
			t.Fatalf("status: %v\n%s", err, out)
		}
		var st []struct {
			Totals struct{ Skips int64 } `json:"totals"`
		}
		if err := json.Unmarshal(out, &st); err != nil || len(st) != 1 {
			t.Fatalf("status --json: %v\n%s", err, out)
		}
		return st[0].Totals.Skips
	}
	rounds, callers, round := 4, 8, 300*time.Millisecond
	if stress {
		rounds, round = 50, time.Second
	}
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	var mu sync.Mutex
	r := rand.New(rand.NewPCG(seed, 2))
	var started, finished, killed int64
	var last int64
	for n := range rounds {
		deadline := time.Now().Add(round)
		var wg sync.WaitGroup
		for w := range callers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for time.Now().Before(deadline) {
					// Even callers skip; odd ones run, and fold.
					key := "tripped"
					if w%2 == 1 {
						key = fmt.Sprintf("closed %d", w)
					}
					cmd := exec.Command(guardBin, "run", "--name", key, "--", "true")
					cmd.Env = env
					if err := cmd.Start(); err != nil {
						t.Error(err)
						return
					}
					mu.Lock()
					if key == "tripped" {
						started++
					}
					kill := r.IntN(2) == 0
					after := time.Duration(r.IntN(6000)) * time.Microsecond
					mu.Unlock()
					var timer *time.Timer
					if kill {
						timer = time.AfterFunc(after, func() { _ = cmd.Process.Signal(syscall.SIGKILL) })
					}
					err := cmd.Wait()
					if timer != nil {
						timer.Stop()
					}
					var xe *exec.ExitError
					mu.Lock()
					switch {
					case err == nil && key == "tripped":
						finished++
					case err == nil:
					case errors.As(err, &xe) && xe.Sys().(syscall.WaitStatus).Signal() == syscall.SIGKILL:
						killed++
					default:
						t.Errorf("caller %d: %v", w, err)
					}
					mu.Unlock()
				}
			}()
		}
		wg.Wait()
		got := skips()
		if got < finished || got > started {
			t.Fatalf("round %d: %d skips counted; %d finished, %d started", n, got, finished, started)
		}
		if got < last {
			t.Fatalf("round %d: the skips counted went down, from %d to %d", n, last, got)
		}
		last = got
	}
	t.Logf("%d rounds: %d skips started, %d finished, %d guard processes killed, %d counted", rounds, started, finished, killed, last)
	if killed == 0 || finished == 0 {
		t.Error("no skip finished, or no guard process was killed: the test tested nothing")
	}
	// A closed call folds what is left into the state file itself.
	if out, err := guard("run", "--name", "last", "--", "true"); err != nil {
		t.Fatalf("run: %v\n%s", err, out)
	}
	data, err := os.ReadFile(state)
	if err != nil {
		t.Fatal(err)
	}
	var d hookstate.Document
	if err := d.UnmarshalState(data); err != nil {
		t.Fatal(err)
	}
	h, err := d.Hook("tripped")
	if err != nil || h == nil || h.Totals.Skips != last {
		t.Errorf("the state file holds %v skips (%v); status showed %d", h, err, last)
	}
}
