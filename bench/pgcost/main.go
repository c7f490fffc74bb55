//go:build linux

// Command pgcost measures what a closed guard run costs with its state in
// PostgreSQL (a throwaway cluster on 127.0.0.1, reached over TCP) against
// the JSON file, side by side: the two scenarios are interleaved, one run
// of each in turn. It is run by bench/run.sh, which builds guard.
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"time"

	"guard/internal/store/postgres/pgtest"
)

func main() {
	guard := flag.String("guard", "", "the guard binary")
	runs := flag.Int("runs", 200, "runs of each scenario")
	flag.Parse()
	srv, err := pgtest.Start()
	if err != nil {
		fmt.Fprintln(os.Stderr, "pgcost: cannot start PostgreSQL:", err)
		os.Exit(1)
	}
	defer srv.Stop()
	dir, _ := os.MkdirTemp("", "pgcost")
	defer os.RemoveAll(dir)
	scenarios := []struct {
		name, bin, state string
		times            []time.Duration
	}{
		{name: "JSON file", bin: *guard, state: filepath.Join(dir, "state.json")},
		{name: "PostgreSQL on 127.0.0.1, guard (hands over to guard-pg)", bin: *guard, state: srv.URL("postgres")},
		{name: "PostgreSQL on 127.0.0.1, guard-pg called directly", bin: *guard + "-pg", state: srv.URL("postgres")},
	}
	run := func(bin, state string) time.Duration {
		cmd := exec.Command(bin, "run", "--name", "k", "--", "/bin/true")
		cmd.Env = append(os.Environ(), "GUARD_STATE="+state, "HOME="+dir, "GUARD_CONFIG=")
		start := time.Now()
		if out, err := cmd.CombinedOutput(); err != nil || len(out) > 0 {
			fmt.Fprintf(os.Stderr, "pgcost: %v: %s\n", err, out)
			os.Exit(1)
		}
		return time.Since(start)
	}
	for i := range *runs + 10 {
		for j := range scenarios {
			d := run(scenarios[j].bin, scenarios[j].state)
			if i >= 10 { // the first runs warm caches up
				scenarios[j].times = append(scenarios[j].times, d)
			}
		}
	}
	median := func(ts []time.Duration) time.Duration {
		slices.Sort(ts)
		return ts[len(ts)/2]
	}
	base := median(scenarios[0].times)
	fmt.Printf("| state | median closed call | vs the file |\n|---|---:|---:|\n")
	for _, s := range scenarios {
		m := median(s.times)
		fmt.Printf("| %s | %.2f ms | %.2fx |\n", s.name, float64(m.Microseconds())/1000, float64(m)/float64(base))
	}
}
