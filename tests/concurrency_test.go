package tests

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// TestParallelRunsLoseNoUpdate runs 16 workers that each run guard 40
// times on one state file (200 times, the design's figure, with -tags
// stress; bench/run.sh measures it too); every run must be counted. The
// guard it runs is this test binary, under -race in CI, which makes each
// process start slow: hence fewer runs by default.
func TestParallelRunsLoseNoUpdate(t *testing.T) {
	workers, runs := 16, 40
	if stress {
		runs = 200
	}
	if testing.Short() {
		runs = 20
	}
	if raceEnabled && !stress {
		runs = 12
	}
	state := filepath.Join(t.TempDir(), "state.json")
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range runs {
				cmd := exec.Command(guardBin, "run", "--name", "shared", "--", "true")
				// A long lock_timeout: this counts runs, and a loaded machine must not
				// turn a slow lock into an outcome given up.
				cmd.Env = append(os.Environ(), "GUARD_STATE="+state, "HOME="+t.TempDir(), "GUARD_CONFIG=", "GUARDRAILS_LOCK_TIMEOUT=2m")
				if out, err := cmd.CombinedOutput(); err != nil || len(out) > 0 {
					errs <- fmt.Errorf("worker %d run %d: %v: %s", w, i, err, out)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}

	data, err := os.ReadFile(state)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Hooks map[string]struct {
			Totals struct {
				Successes int `json:"successes"`
			} `json:"totals"`
		} `json:"hooks"`
		GlobalStats struct {
			TotalExecutions int `json:"total_executions"`
		} `json:"global_stats"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatalf("state file does not parse: %v", err)
	}
	want := workers * runs
	if got := doc.GlobalStats.TotalExecutions; got != want {
		t.Errorf("total_executions = %d; want %d", got, want)
	}
	if got := doc.Hooks["shared"].Totals.Successes; got != want {
		t.Errorf("successes = %d; want %d", got, want)
	}
}
