// Command crowd measures a crowd of guard processes on one state file: N
// callers start together and each runs guard run -- /bin/true a few times
// back to back, each on a key of its own, on a state of 10 and of 10,000
// keys, as Claude Code's parallel hooks and a team of agents do. It prints
// a Markdown table for BENCHMARKS.md (bench/run.sh runs it): the calls a
// second the crowd made, a call's median and worst wall time (the worst
// wait a hook saw), and the outcomes lost: the calls the state did not
// count, and the calls that warned (an outcome not recorded says so).
//
// guard runs with its default lock_timeout and record_timeout, and no
// config file. Every figure is from the run that prints it.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
)

var (
	guardBin = flag.String("guard", "", "the guard binary")
	sizes    = flag.String("keys", "10,10000", "keys in the state, comma-separated")
	crowds   = flag.String("callers", "64,128", "parallel callers, comma-separated")
	calls    = flag.Int("calls", 3, "calls each caller makes, one after the other")
	verbose  = flag.Bool("v", false, "print what calls that were not clean said")
)

func main() {
	flag.Parse()
	if *guardBin == "" {
		fmt.Fprintln(os.Stderr, "crowd: -guard is required")
		os.Exit(2)
	}
	dir, err := os.MkdirTemp("", "guard-crowd")
	check(err)
	defer os.RemoveAll(dir)
	fmt.Printf("## A crowd on one state file\n\n")
	fmt.Printf("`bench/crowd`: N guard processes start together, each runs `guard run --name KEY -- /bin/true` %d times back to back on a key of its own, on one state file that holds 10 or 10,000 keys beforehand; guard's defaults (`lock_timeout` 2s before the command, `record_timeout` 10s after it; no config file). Lost: the calls the state did not count (`global_stats.total_executions`); warned: the calls that said something on stderr (an outcome not recorded says so). The worst wait is the slowest call's wall time, the wait a hook saw.\n\n", *calls)
	fmt.Printf("| keys | callers | calls | calls/s | median call | worst call | lost | warned |\n|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, n := range ints(*sizes) {
		for _, c := range ints(*crowds) {
			r := crowd(dir, n, c)
			fmt.Printf("| %d | %d | %d | %.0f | %s ms | %s ms | **%d** | %d |\n", n, c, r.calls, r.rate, ms(r.p50), ms(r.worst), r.lost, r.warned)
		}
	}
	fmt.Println()
}

type result struct {
	calls, lost, warned int
	rate                float64
	p50, worst          time.Duration
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "crowd:", err)
		os.Exit(1)
	}
}

func ints(s string) []int {
	var out []int
	for _, f := range strings.Split(s, ",") {
		var n int
		fmt.Sscan(f, &n)
		out = append(out, n)
	}
	return out
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1f", float64(d.Microseconds())/1000) }

func key(i int) string { return fmt.Sprintf("python3 /srv/hooks/check-%05d.py --strict", i) }

// crowd runs c callers on a fresh state of n keys.
func crowd(dir string, n, c int) result {
	state := filepath.Join(dir, fmt.Sprintf("k%d-c%d", n, c), "hook_state.json")
	check(os.MkdirAll(filepath.Dir(state), 0o700))
	env := append(os.Environ(), "GUARD_STATE="+state, "HOME="+dir, "GUARD_CONFIG=", "CLAUDE_PROJECT_DIR=")
	imported(dir, state, n, env)
	for range 3 { // warm the page cache
		cmd := exec.Command(*guardBin, "run", "--name", key(0), "--", "/bin/true")
		cmd.Env = env
		check(cmd.Run())
	}
	before := executions(state)

	var mu sync.Mutex
	var times []time.Duration
	warned := 0
	var wg sync.WaitGroup
	gate := make(chan struct{})
	for i := range c {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-gate
			for range *calls {
				cmd := exec.Command(*guardBin, "run", "--name", key(i%max(n, 1)), "--", "/bin/true")
				cmd.Env = env
				start := time.Now()
				out, err := cmd.CombinedOutput()
				d := time.Since(start)
				mu.Lock()
				times = append(times, d)
				if err != nil || len(out) > 0 {
					warned++
					if *verbose {
						fmt.Fprintf(os.Stderr, "crowd: %v: %s", err, out)
					}
				}
				mu.Unlock()
			}
		}()
	}
	start := time.Now()
	close(gate)
	wg.Wait()
	elapsed := time.Since(start)
	slices.Sort(times)
	made := len(times)
	return result{calls: made, lost: made - (executions(state) - before), warned: warned,
		rate: float64(made) / elapsed.Seconds(), p50: times[made/2], worst: times[made-1]}
}

// imported writes a state of n closed keys with a history, as a busy
// host's looks, through guard state import.
func imported(dir, state string, n int, env []string) {
	var doc strings.Builder
	doc.WriteString(`{"version": 1, "hooks": {`)
	for i := range n {
		if i > 0 {
			doc.WriteString(",")
		}
		fmt.Fprintf(&doc, `%q: {"state": "closed", "failure_count": 0, "consecutive_failures": 0, "consecutive_successes": 12, "first_failure": null, "last_failure": "2026-11-01T10:00:00+00:00", "last_success": "2026-11-20T10:00:00+00:00", "last_error": "exit 1: ImportError: no module named yaml", "disabled_at": null, "retry_after": null, "last_run": "2026-11-20T10:00:00+00:00", "totals": {"successes": 480, "failures": 3, "ignored": 0, "cancelled": 0, "abandoned": 0, "skips": 0, "rejected": 0}}`, key(i))
	}
	doc.WriteString(`}, "global_stats": {"total_executions": 0, "total_failures": 0, "hooks_disabled": 0, "last_updated": null}}`)
	src := filepath.Join(dir, fmt.Sprintf("import-%d.json", n))
	check(os.WriteFile(src, []byte(doc.String()), 0o600))
	cmd := exec.Command(*guardBin, "state", "import", src)
	cmd.Env = env
	if out, err := cmd.CombinedOutput(); err != nil {
		check(fmt.Errorf("state import: %v: %s", err, out))
	}
}

// executions returns the runs the state has counted.
func executions(state string) int {
	data, err := os.ReadFile(state)
	check(err)
	var doc struct {
		GlobalStats struct {
			TotalExecutions int `json:"total_executions"`
		} `json:"global_stats"`
	}
	check(json.Unmarshal(data, &doc))
	return doc.GlobalStats.TotalExecutions
}
