//go:build linux

// Command driver measures guard's whole-process costs against the Go floor
// (bench/gorun: an empty Go program that runs the same child through
// os/exec) and the like-for-like floor (bench/floor: the same lock,
// read-modify-write and durability as a closed call, no more), and checks
// them against the figures guard must reach. It is run by bench/run.sh.
//
// Scenarios are interleaved, one run of each in turn, so that whatever
// else the machine does affects them alike; the ratios that matter are
// computed within one invocation, because absolute times are not stable
// from one to the next.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"syscall"
	"text/tabwriter"
	"time"

	"guard/breaker"
	"guard/internal/circuit"
	"guard/internal/store/hookstate"
)

var (
	runs      = flag.Int("runs", 200, "runs of each scenario")
	parallel  = flag.Int("parallel", 16, "parallel callers in the throughput test")
	each      = flag.Int("each", 200, "runs per parallel caller")
	out       = flag.String("out", "BENCHMARKS.md", "the report to write (empty: none)")
	guardBin  = flag.String("guard", "", "the guard binary")
	floorBin  = flag.String("floor", "", "the like-for-like floor binary (bench/floor)")
	gorunBin  = flag.String("gorun", "", "the Go floor binary (bench/gorun)")
	gorunWith = flag.String("gorun-with", "", "bench/gorun built with -tags gorun_with, which adds guard's supervision parts one by one (empty: not measured)")
	goflock   = flag.String("goflock", "", "bench/goflock, flock(1) written in Go (empty: not measured)")
	guardPG   = flag.String("guard-pg", "", "guard-pg, guard with the PostgreSQL driver linked in, measured on the file (empty: not measured)")
	rssBin    = flag.String("rss", "", "the rss helper (bench/rss)")
	gobench   = flag.String("gobench", "", "output of go test -bench to include in the report")
	initRuns  = flag.Int("init-runs", 30, "runs of guard and of the Go floor with GODEBUG=inittrace=1")
	keep      = flag.Bool("keep", false, "keep the scratch directory (state files, event logs) and print its path")
	config    = flag.String("config", "guardrails.example.yaml", "the guardrails.yaml in place for every guard call (empty: none)")
	baseline  = flag.String("baseline", "", "an earlier guard binary whose closed call is measured beside this one's, interleaved (empty: not measured)")
	baseName  = flag.String("baseline-name", "", "what the report calls the baseline (empty: its path)")
	baseCfg   = flag.String("baseline-config", "", "the guardrails.yaml in place for the baseline's calls (its own version's example; empty: -config)")
	journal   = flag.String("journal", "", "a directory on a journalled filesystem (bench/run.sh loop-mounts an ext4 image when it runs as root), where the closed call and the like-for-like floor are measured again (empty: not measured)")
)

// journalDir is the directory under -journal the journalled scenarios use.
var journalDir string

// A scenario is one command measured again and again.
type scenario struct {
	id   string // how the report finds it
	name string
	argv []string
	env  []string

	wall, cpu []time.Duration
	rss       int64 // peak, KiB
}

func main() {
	flag.Parse()
	if *guardBin == "" || *floorBin == "" || *gorunBin == "" || *rssBin == "" {
		fmt.Fprintln(os.Stderr, "driver: -guard, -floor, -gorun and -rss are required (bench/run.sh builds them)")
		os.Exit(2)
	}
	dir, err := os.MkdirTemp("", "guard-bench-")
	check(err)
	if *keep {
		fmt.Fprintf(os.Stderr, "driver: scratch directory %s\n", dir)
	} else {
		defer os.RemoveAll(dir)
	}
	home := filepath.Join(dir, "home")
	check(os.MkdirAll(home, 0o700))
	baseEnv := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "LANG=C"}
	cfgEnv := "GUARD_CONFIG="
	if *config != "" {
		abs, err := filepath.Abs(*config)
		check(err)
		cfgEnv += abs
	}
	stateEnv := func(name string) []string {
		return append(slices.Clone(baseEnv), "GUARD_STATE="+filepath.Join(dir, name), cfgEnv)
	}

	writeState(filepath.Join(dir, "k10.json"), 10, false)
	writeState(filepath.Join(dir, "floor.json"), 10, false) // the floor's: the same document
	writeState(filepath.Join(dir, "skip.json"), 10, true)
	writeState(filepath.Join(dir, "k1000.json"), 1000, false)
	writeState(filepath.Join(dir, "k10000.json"), 10000, false)
	noConfig := append(slices.Clone(baseEnv), "GUARD_STATE="+filepath.Join(dir, "k10.json"), "GUARD_CONFIG=")
	scenarios := []*scenario{
		{id: "gorun", name: "Go floor (bench/gorun)", argv: []string{*gorunBin, "/bin/true"}, env: baseEnv},
		{id: "floor", name: "like-for-like floor (bench/floor)", argv: []string{*floorBin, filepath.Join(dir, "floor.json"), "/bin/true"}, env: baseEnv},
		{id: "true", name: "/bin/true", argv: []string{"/bin/true"}, env: baseEnv},
		{id: "flock", name: "flock LOCKFILE /bin/true", argv: []string{flockBin(), filepath.Join(dir, "flock.lock"), "/bin/true"}, env: baseEnv},
		{id: "closed", name: "closed call (10 keys)", argv: []string{*guardBin, "run", "--name", benchKey(5), "--", "/bin/true"}, env: stateEnv("k10.json")},
		{id: "skip", name: "skipped call (open)", argv: []string{*guardBin, "run", "--name", "tripped", "--", "/bin/true"}, env: stateEnv("skip.json")},
		{id: "k1000", name: "closed call (1,000 keys)", argv: []string{*guardBin, "run", "--name", benchKey(500), "--", "/bin/true"}, env: stateEnv("k1000.json")},
		{id: "k10000", name: "closed call (10,000 keys)", argv: []string{*guardBin, "run", "--name", benchKey(5000), "--", "/bin/true"}, env: stateEnv("k10000.json")},
		// The same binary, config and child with the breaker switched off:
		// what a call costs before guard touches any state.
		{id: "pass", name: "pass-through (breaker disabled)", argv: []string{*guardBin, "run", "--name", benchKey(5), "--", "/bin/true"},
			env: append(stateEnv("k10.json"), "GUARDRAILS_CIRCUIT_BREAKER_ENABLED=false")},
		// The same with no config file: what reading the example costs.
		{id: "pass0", name: "pass-through, no config file", argv: []string{*guardBin, "run", "--name", benchKey(5), "--", "/bin/true"},
			env: append(noConfig, "GUARDRAILS_CIRCUIT_BREAKER_ENABLED=false")},
	}
	if *guardPG != "" {
		writeState(filepath.Join(dir, "k10pg.json"), 10, false)
		scenarios = append(scenarios, &scenario{id: "pg", name: "closed call, guard-pg (10 keys)", argv: []string{*guardPG, "run", "--name", benchKey(5), "--", "/bin/true"}, env: stateEnv("k10pg.json")})
	}
	if *baseline != "" {
		// An earlier guard on the same calls, with the example config of
		// its own version (a newer one may name keys it does not know).
		env := stateEnv("k10base.json")
		if *baseCfg != "" {
			abs, err := filepath.Abs(*baseCfg)
			check(err)
			env = append(env, "GUARD_CONFIG="+abs) // the last one wins
		}
		writeState(filepath.Join(dir, "k10base.json"), 10, false)
		scenarios = append(scenarios, &scenario{id: "base", name: "closed call (10 keys), baseline", argv: []string{*baseline, "run", "--name", benchKey(5), "--", "/bin/true"}, env: env})
	}
	if *gorunWith != "" {
		// The Go floor with each part of guard's supervision that costs
		// start-up time, done as guard does it (bench/gorun's doc).
		with := func(id, name, parts string) *scenario {
			return &scenario{id: id, name: name, argv: []string{*gorunWith, "/bin/true"}, env: append(slices.Clone(baseEnv), "GORUN_WITH="+parts)}
		}
		scenarios = append(scenarios,
			with("with", "Go floor, built with its parts", ""),
			with("with-signals", "… + the signal subscription", "signals"),
			with("with-pipe", "… + the stderr pipe", "pipe"),
			with("with-pdeath", "… + parent-death signal, subreaper", "pdeath"))
	}
	if *journal != "" {
		// The same closed call and floor with their states on a
		// journalled filesystem, the usual one on Linux, where a healthy
		// closed call's write needs no fsync (see docs/guarantees.md,
		// Durability); the scratch directory's may be another.
		jdir, err := os.MkdirTemp(*journal, "guard-bench-")
		check(err)
		defer os.RemoveAll(jdir)
		writeState(filepath.Join(jdir, "k10.json"), 10, false)
		writeState(filepath.Join(jdir, "floor.json"), 10, false)
		jenv := append(slices.Clone(baseEnv), "GUARD_STATE="+filepath.Join(jdir, "k10.json"), cfgEnv)
		scenarios = append(scenarios,
			&scenario{id: "jfloor", name: "like-for-like floor, journalled ext4", argv: []string{*floorBin, filepath.Join(jdir, "floor.json"), "/bin/true"}, env: baseEnv},
			&scenario{id: "jclosed", name: "closed call (10 keys), journalled ext4", argv: []string{*guardBin, "run", "--name", benchKey(5), "--", "/bin/true"}, env: jenv})
		journalDir = jdir
	}
	if *goflock != "" {
		scenarios = append(scenarios, &scenario{id: "goflock", name: "goflock LOCKFILE /bin/true", argv: []string{*goflock, filepath.Join(dir, "goflock.lock"), "/bin/true"}, env: baseEnv})
	}
	for _, s := range scenarios { // warm the page cache
		s.once()
		s.wall, s.cpu, s.rss = nil, nil, 0
	}
	// Each round runs every scenario once, in a new random order: a
	// scenario's cost must not depend on which one ran before it (the
	// floor's fsyncs leave the filesystem's journal busy for whatever
	// follows).
	order := slices.Clone(scenarios)
	for range *runs {
		rand.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
		for _, s := range order {
			s.once()
		}
	}
	for _, s := range scenarios {
		for range 5 {
			s.peakRSS()
		}
	}
	thr := throughput(dir, stateEnv("parallel.json"))
	var guardInit, floorInit initCost
	for _, s := range scenarios {
		switch s.id {
		case "closed":
			guardInit = inittrace(s, *initRuns)
		case "gorun":
			floorInit = inittrace(s, *initRuns)
		}
	}

	var report bytes.Buffer
	writeReport(&report, scenarios, thr, dir, guardInit, floorInit)
	os.Stdout.Write(report.Bytes())
	if *out != "" {
		check(os.WriteFile(*out, report.Bytes(), 0o644))
		fmt.Fprintf(os.Stderr, "wrote %s\n", *out)
	}
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "driver:", err)
		os.Exit(1)
	}
}

// benchKey is the key of the ith hook in a benchmark state. The measured
// calls use the middle one, so that a lookup cannot get lucky.
func benchKey(i int) string {
	return fmt.Sprintf("uv run $CLAUDE_PROJECT_DIR/.claude/hooks/check_%d.py --strict", i)
}

// writeState writes a hook state with n closed keys that have seen some
// runs, and a forced-open "tripped" key if tripped.
func writeState(path string, n int, tripped bool) {
	d := &hookstate.Document{Version: 1}
	now := time.Now()
	s := breaker.Settings{FailureThreshold: 3, SuccessThreshold: 2, Cooldown: 5 * time.Minute, MaxCooldown: time.Hour}
	for i := range n {
		key := benchKey(i)
		for j := range 5 {
			circuit.Record(d, key, s, now.Add(-time.Duration(5-j)*time.Minute), breaker.Result{Outcome: breaker.Success}, circuit.Run{})
		}
		circuit.Record(d, key, s, now.Add(-time.Minute), breaker.Result{Outcome: breaker.Failure, Error: "exit 1: something went wrong"}, circuit.Run{Exit: 1})
	}
	if tripped {
		circuit.Trip(d, "tripped", now, 0, "bench")
	}
	data, err := d.MarshalState()
	check(err)
	check(os.WriteFile(path, data, 0o600))
}

// once runs the scenario's command once and records its costs.
func (s *scenario) once() {
	cmd := exec.Command(s.argv[0], s.argv[1:]...)
	cmd.Env = s.env
	cmd.Stdout, cmd.Stderr = io.Discard, io.Discard
	start := time.Now()
	if err := cmd.Run(); err != nil {
		if _, ok := err.(*exec.ExitError); !ok {
			check(err)
		}
	}
	s.wall = append(s.wall, time.Since(start))
	s.cpu = append(s.cpu, cmd.ProcessState.UserTime()+cmd.ProcessState.SystemTime())
}

// peakRSS runs the command once through the rss helper: the peak RSS a
// process shows when forked from the (large) driver starts at the
// driver's own size.
func (s *scenario) peakRSS() {
	cmd := exec.Command(*rssBin, s.argv...)
	cmd.Env = s.env
	out, err := cmd.Output()
	check(err)
	var kib int64
	fmt.Sscan(string(out), &kib)
	s.rss = max(s.rss, kib)
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

type throughputResult struct {
	callers, each int
	elapsed       time.Duration
	counted       int64
}

// throughput runs parallel callers on one state file and counts what the
// state recorded.
func throughput(dir string, env []string) throughputResult {
	r := throughputResult{callers: *parallel, each: *each}
	var wg sync.WaitGroup
	start := time.Now()
	for range r.callers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range r.each {
				cmd := exec.Command(*guardBin, "run", "--name", "shared", "--", "true")
				cmd.Env = env
				check(cmd.Run())
			}
		}()
	}
	wg.Wait()
	r.elapsed = time.Since(start)
	data, err := os.ReadFile(filepath.Join(dir, "parallel.json"))
	check(err)
	var doc struct {
		GlobalStats struct {
			TotalExecutions int64 `json:"total_executions"`
		} `json:"global_stats"`
	}
	check(json.Unmarshal(data, &doc))
	r.counted = doc.GlobalStats.TotalExecutions
	return r
}

func ms(d time.Duration) string { return fmt.Sprintf("%.2f ms", float64(d.Microseconds())/1000) }

// paired returns the median over rounds of a's wall time divided by b's:
// both ran in every round, one after the other in a shuffled order, so the
// load of a shared machine falls on both sides of each ratio alike.
func paired(a, b *scenario) float64 {
	r := make([]float64, len(a.wall))
	for i := range a.wall {
		r[i] = float64(a.wall[i]) / float64(b.wall[i])
	}
	slices.Sort(r)
	return r[len(r)/2]
}

// diff returns the median over rounds of a's wall time less b's.
func diff(a, b *scenario) time.Duration {
	d := make([]time.Duration, len(a.wall))
	for i := range a.wall {
		d[i] = a.wall[i] - b.wall[i]
	}
	slices.Sort(d)
	return d[len(d)/2]
}

// An initCost is the package initialisation of a program, measured with
// GODEBUG=inittrace=1: for each package, the least it took over the runs.
type initCost map[string]time.Duration

func (c initCost) total() time.Duration {
	var t time.Duration
	for _, d := range c {
		t += d
	}
	return t
}

// inittrace runs s's command n times with GODEBUG=inittrace=1 and returns
// each package's least initialisation time.
func inittrace(s *scenario, n int) initCost {
	c := initCost{}
	for range n {
		cmd := exec.Command(s.argv[0], s.argv[1:]...)
		cmd.Env = append(slices.Clone(s.env), "GODEBUG=inittrace=1")
		var stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = io.Discard, &stderr
		cmd.Run()
		seen := map[string]time.Duration{}
		for _, l := range strings.Split(stderr.String(), "\n") {
			// init gopkg.in/yaml%2ev3 @0.78 ms, 0.13 ms clock, 25720 bytes, 276 allocs
			f := strings.Fields(l)
			if len(f) < 7 || f[0] != "init" || f[6] != "clock," {
				continue
			}
			var ms float64
			fmt.Sscan(f[4], &ms)
			pkg := strings.ReplaceAll(f[1], "%2e", ".")
			seen[pkg] += time.Duration(ms * float64(time.Millisecond))
		}
		for pkg, d := range seen {
			if old, ok := c[pkg]; !ok || d < old {
				c[pkg] = d
			}
		}
	}
	return c
}

func writeReport(w io.Writer, ss []*scenario, thr throughputResult, dir string, guardInit, floorInit initCost) {
	fmt.Fprintf(w, "# guard benchmarks\n\n")
	fmt.Fprintf(w, "Written by `bench/run.sh` on %s. Absolute times vary from run to run and machine to machine; the ratios, measured within one run with the scenarios interleaved, are what the figures are about.\n\n", time.Now().UTC().Format("2006-01-02"))
	fmt.Fprintf(w, "## Machine\n\n")
	for _, line := range machine(dir) {
		fmt.Fprintf(w, "- %s\n", line)
	}
	by := map[string]*scenario{}
	for _, s := range ss {
		by[s.id] = s
	}
	gorun, floor, closed, skip, k1000, pass := by["gorun"], by["floor"], by["closed"], by["skip"], by["k1000"], by["pass"]

	fmt.Fprintf(w, "\n## Whole-process costs (%d runs each, median)\n\n", *runs)
	fmt.Fprintf(w, "Each round runs every scenario once, in a new random order; a ratio is the median over the rounds of the two scenarios' ratio in that round.\n\n")
	tw := tabwriter.NewWriter(w, 0, 0, 1, ' ', tabwriter.Debug)
	fmt.Fprintf(tw, "| scenario\t wall\t CPU\t peak RSS\t wall vs Go floor\t|\n|---\t---\t---\t---\t---\t|\n")
	for _, s := range ss {
		rss := "-"
		if s.rss > 0 {
			rss = fmt.Sprintf("%.1f MiB", float64(s.rss)/1024)
		}
		fmt.Fprintf(tw, "| %s\t %s\t %s\t %s\t %.2fx\t|\n", s.name, ms(median(s.wall)), ms(median(s.cpu)), rss, paired(s, gorun))
	}
	tw.Flush()

	lost := int64(thr.callers*thr.each) - thr.counted
	fmt.Fprintf(w, "\n## Parallel callers\n\n%d processes x %d runs of `guard run -- true` on one state file: %s in all, %.0f runs/s, %d counted, **%d lost**.\n",
		thr.callers, thr.each, thr.elapsed.Round(time.Millisecond), float64(thr.callers*thr.each)/thr.elapsed.Seconds(), thr.counted, lost)

	var peak int64
	for _, s := range ss { // guard's and guard-pg's
		if s.argv[0] == *guardBin || s.argv[0] == *guardPG {
			peak = max(peak, s.rss)
		}
	}
	fmt.Fprintf(w, "\n## Figures guard must reach\n\n| figure | target | measured | |\n|---|---|---|---|\n")
	figure := func(name, target, measured string, ok bool) {
		mark := "holds"
		if !ok {
			mark = "**misses**"
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s |\n", name, target, measured, mark)
	}
	x := func(r float64) string { return fmt.Sprintf("%.2fx", r) }
	figure("closed call vs the Go floor (`bench/gorun`)", "at most 1.3x", x(paired(closed, gorun)), paired(closed, gorun) <= 1.3)
	fmt.Fprintf(w, "| closed call vs the like-for-like floor (`bench/floor`) | reported | %s | |\n", x(paired(closed, floor)))
	if jc, jf := by["jclosed"], by["jfloor"]; jc != nil {
		figure("closed call vs the Go floor, state on a journalled ext4", "at most 1.3x", x(paired(jc, gorun)), paired(jc, gorun) <= 1.3)
		fmt.Fprintf(w, "| like-for-like floor vs the Go floor, state on a journalled ext4 | reported | %s | |\n", x(paired(jf, gorun)))
		fmt.Fprintf(w, "| closed call vs the like-for-like floor, state on a journalled ext4 | reported | %s | |\n", x(paired(jc, jf)))
	}
	if b := by["base"]; b != nil {
		// Drift against the last revision measured from outside
		// (bench/BASELINE): a change that slows the closed call shows
		// as a miss here, whatever the floors do.
		figure(fmt.Sprintf("closed call vs %s", baseLabel()), "at most 1.05x", x(paired(closed, b)), paired(closed, b) <= 1.05)
	}
	figure("skipped call vs closed call", "at most 0.7x", x(paired(skip, closed)), paired(skip, closed) <= 0.7)
	figure("1,000 keys vs 10 keys", "at most 1.5x", x(paired(k1000, closed)), paired(k1000, closed) <= 1.5)
	figure("peak RSS of guard", "under 20 MiB", fmt.Sprintf("%.1f MiB", float64(peak)/1024), peak < 20*1024)
	figure(fmt.Sprintf("lost updates, %d x %d", thr.callers, thr.each), "0", fmt.Sprint(lost), lost == 0)
	fmt.Fprintf(w, "\nEvery guard call here runs with `guardrails.example.yaml` in place (GUARD_CONFIG), as a realistic config, on a state of 10 keys written by guard's own code. The Go floor is `bench/gorun`: an otherwise empty static Go program that runs `/bin/true` through os/exec and waits, the least any Go program that runs a command pays. The like-for-like floor is `bench/floor`: the Go floor plus guard's job done the simplest way, with the same lock, read-modify-write and durability as a closed call: it reads the same 10-key state (decoded whole with encoding/json), runs the command, then updates the state under its lock through package statefile, as a relaxed write, as a healthy closed call is (on this run's filesystem: see docs/guarantees.md, Durability). Every guard call here also appends a line to the event log and registers its run for `guard status`; the floor does neither. `flock LOCKFILE /bin/true` (util-linux) is the C reference: it too takes a lock and starts the command (%s against the Go floor).\n", x(paired(by["flock"], gorun)))
	if jc := by["jclosed"]; jc != nil {
		fmt.Fprintf(w, "\nThe journalled rows run the same closed call and like-for-like floor with their states on an ext4 filesystem with a journal (data=ordered, the default on Linux; see Machine), where a healthy closed call's write is relaxed: no fsync, the rename ordered after the data by ext4 itself. bench/run.sh makes it when it runs as root: an image file loop-mounted with direct I/O. The other rows' state directory is the machine's own; where it has no journal, as on the machine the CI runs on, every write is fsynced (docs/guarantees.md, Durability), and the like-for-like floor pays that too (%s against the Go floor there, %s on the journalled ext4).\n",
			x(paired(floor, gorun)), x(paired(by["jfloor"], gorun)))
	}
	if g := by["goflock"]; g != nil {
		fmt.Fprintf(w, "\n`goflock LOCKFILE /bin/true` (bench/goflock) does what flock(1) does, written in Go, with a raw fork and exec: %.2fx flock here, %.2fx the Go floor.\n",
			paired(g, by["flock"]), paired(g, gorun))
	}

	fmt.Fprintf(w, "\n## Where a closed call's time goes (this run)\n\n")
	fmt.Fprintf(w, "Medians over the rounds of the difference between two scenarios of the same round (wall time). Package initialisation is from `GODEBUG=inittrace=1` (the least time of each package over %d runs of each program), and is part of guard's own start.\n\n", *initRuns)
	fmt.Fprintf(w, "| step | measured as | wall | share of a closed call | what guard does to keep it small |\n|---|---|---:|---:|---|\n")
	total := median(closed.wall)
	row := func(step, as string, d time.Duration, saves string) {
		fmt.Fprintf(w, "| %s | %s | %s | %.0f %% | %s |\n", step, as, ms(d), 100*float64(d)/float64(total), saves)
	}
	row("the command itself", "`/bin/true`", median(by["true"].wall), "")
	row("the Go floor's own: the Go runtime starting, os/exec's fork, exec and wait", "Go floor − `/bin/true`", diff(gorun, by["true"]),
		"guard forks and execs with syscall.ForkExec and waits with wait4: os/exec starts a throwaway child of its own on its first start, to check the kernel's pidfd support")
	row("guard's own start: its binary and package initialisation, command line, config, signal set-up, supervision (stderr pipe, process group)", "pass-through − Go floor", diff(pass, gorun),
		"the `guard` binary has guard run only: it hands every other command to guard-cli and a PostgreSQL state to guard-pg, so yaml.v3, urfave/cli, mvdan/sh and pgx are not linked (cmd/guard/deps_test.go); its command line is read by hand")
	row("… of which package initialisation beyond the Go floor's", "inittrace, guard − Go floor", guardInit.total()-floorInit.total(),
		"the libraries above off the path; the shell tables and regular expressions built on first use")
	row("… of which reading the example config", "pass-through − pass-through with no config file", diff(pass, by["pass0"]),
		"a parser of its own for plain YAML (BenchmarkParse below: fast against yaml.v3, which only guard-cli links); the cooldown section left undecoded")
	if by["with"] != nil {
		row("… of which subscribing to the four signals guard passes on", "Go floor with it − without (bench/gorun -tags gorun_with)", diff(by["with-signals"], by["with"]),
			"subscribed in the background from package init (internal/earlysig), waited for only before a lock, a slot or the child; SIGPIPE not subscribed at all (guard writes through duplicates of fd 1 and 2), one round trip to the runtime's signal thread less")
		row("… of which the child's stderr through a pipe guard copies on", "the same, with the pipe", diff(by["with-pipe"], by["with"]),
			"kept: its tail is the state's last_error; stdout and stdin are the child's own")
		row("… of which the child's parent-death signal (from a locked thread) and guard a subreaper", "the same, with them", diff(by["with-pdeath"], by["with"]),
			"kept: what kills guard kills its child (docs/guarantees.md, lifetimes)")
	}
	row("the state work: the look before the run, the run's slot, the locked update, the event line", "closed − pass-through", diff(closed, pass),
		"a lock-free look decides a closed circuit; run slots reused from a pool; a state guard wrote is searched for the one key, not decoded whole; a healthy closed call's write skips the fsync where the filesystem orders a rename after its data (not on this machine's root: see Machine), decided once per mount and cached on the lock file")
	row("a closed call", "", total, "")
	type pkg struct {
		name string
		d    time.Duration
	}
	var pkgs []pkg
	for name, d := range guardInit {
		if d > floorInit[name] {
			pkgs = append(pkgs, pkg{name, d - floorInit[name]})
		}
	}
	slices.SortFunc(pkgs, func(a, b pkg) int { return int(b.d - a.d) })
	fmt.Fprintf(w, "\nPackage initialisation, guard against the Go floor: %s against %s in all; the packages that take longest beyond the floor's:", ms(guardInit.total()), ms(floorInit.total()))
	for i, p := range pkgs {
		if i == 8 {
			break
		}
		sep := ","
		if i == 0 {
			sep = ""
		}
		fmt.Fprintf(w, "%s %s %s", sep, p.name, ms(p.d))
	}
	fmt.Fprintf(w, ".\n")

	if b := by["base"]; b != nil {
		fmt.Fprintf(w, "\nThe baseline row is an earlier build of guard (%s), run interleaved with this one on the same calls with its own version's example config: this guard's closed call is %s the baseline's (%s against %s).\n",
			baseLabel(), x(paired(closed, b)), ms(total), ms(median(b.wall)))
	}
	if pg := by["pg"]; pg != nil {
		fmt.Fprintf(w, "\n`guard-pg` is guard with the PostgreSQL driver (pgx) linked in, here on the same kind of JSON file: its larger binary starts more slowly (%s a closed call of guard). `make install` installs both and guard hands a `postgres://` state to guard-pg, so a call on a file never pays for the driver; `make install-pg` (guard-pg installed as guard) does.\n",
			x(paired(pg, closed)))
	}
	fmt.Fprintf(w, "\n## Go benchmarks of the hot paths\n\n`go test -run '^$' -bench . -benchmem ./breaker ./statefile ./internal/jsonx ./internal/store/hookstate ./internal/store/file ./config`: the breaker's decision, a locked and durable update of a small file (most of it fsync), checking and splitting a state of 1,000 keys, guard run's look (Peek) and update on a state of 1,000 keys, for a file guard wrote (sealed) and for one another tool wrote (unsealed: checked in full, and laid out afresh once), and parsing the example config with guard's fast parser for plain YAML against yaml.v3 (which still parses any file outside that subset).\n")
	if *gobench != "" {
		if data, err := os.ReadFile(*gobench); err == nil {
			fmt.Fprintf(w, "\n```\n%s```\n", data)
		}
	}
}

// flockBin returns util-linux's flock, which .ci/run installs.
func flockBin() string {
	p, err := exec.LookPath("flock")
	if err != nil {
		fmt.Fprintln(os.Stderr, "driver: flock(1) is needed (apt-get install util-linux)")
		os.Exit(1)
	}
	return p
}

// machine describes where the benchmarks ran.
func machine(dir string) []string {
	var lines []string
	if data, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, l := range strings.Split(string(data), "\n") {
			if strings.HasPrefix(l, "model name") {
				lines = append(lines, "CPU: "+strings.TrimSpace(strings.SplitN(l, ":", 2)[1]))
				break
			}
		}
	}
	lines = append(lines, fmt.Sprintf("cores: %d", runtime.NumCPU()))
	var u syscall.Utsname
	if syscall.Uname(&u) == nil {
		lines = append(lines, fmt.Sprintf("kernel: %s %s", utsString(u.Sysname[:]), utsString(u.Release[:])))
	}
	lines = append(lines, "Go: "+runtime.Version())
	var fs syscall.Statfs_t
	if syscall.Statfs(dir, &fs) == nil {
		lines = append(lines, fmt.Sprintf("state directory filesystem: %s%s (%s)", fsName(fs.Type), mountNote(dir, fs.Type), dir))
	}
	if journalDir != "" && syscall.Statfs(journalDir, &fs) == nil {
		lines = append(lines, fmt.Sprintf("journalled state directory filesystem: %s%s (%s, %s)", fsName(fs.Type), mountNote(journalDir, fs.Type), journalDir, loopNote(journalDir)))
	}
	if data, err := os.ReadFile("/proc/loadavg"); err == nil {
		lines = append(lines, "load average when the report was written: "+strings.Join(strings.Fields(string(data))[:3], " "))
	}
	if data, err := os.ReadFile("/proc/meminfo"); err == nil {
		lines = append(lines, "memory: "+strings.Join(strings.Fields(strings.SplitN(string(data), "\n", 2)[0])[1:], " "))
	}
	return lines
}

// mountNote says how the ext4 filesystem dir is on is mounted, where that
// changes what a write costs: its mount options, and whether it has a
// journal (without one, creating a file skips the inodes freed in the last
// minute, and a busy directory's creates get slower).
func mountNote(dir string, fsType int64) string {
	if fsType != 0xEF53 {
		return ""
	}
	var st syscall.Stat_t
	data, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil || syscall.Stat(dir, &st) != nil {
		return ""
	}
	dev := fmt.Sprintf("%d:%d", (st.Dev>>8)&0xfff|(st.Dev>>32)&^0xfff, st.Dev&0xff|(st.Dev>>12)&^0xff)
	for _, l := range strings.Split(string(data), "\n") {
		// ID PARENT MAJOR:MINOR ROOT MOUNTPOINT OPTIONS [OPTIONAL...] - TYPE SOURCE SUPER-OPTIONS
		f := strings.Fields(l)
		if len(f) < 10 || f[2] != dev {
			continue
		}
		for i := 6; i+3 < len(f); i++ {
			if f[i] != "-" {
				continue
			}
			journal := "no journal"
			if m, _ := filepath.Glob("/proc/fs/jbd2/" + filepath.Base(f[i+2]) + "-*"); len(m) > 0 {
				journal = "journal"
			}
			return fmt.Sprintf(", %s, %s", f[i+3], journal)
		}
	}
	return ""
}

func utsString(b []int8) string {
	var s []byte
	for _, c := range b {
		if c == 0 {
			break
		}
		s = append(s, byte(c))
	}
	return string(s)
}

func fsName(t int64) string {
	switch t {
	case 0xEF53:
		return "ext4"
	case 0x01021994:
		return "tmpfs"
	case 0x58465342:
		return "xfs"
	case 0x794c7630:
		return "overlayfs"
	case 0x9123683E:
		return "btrfs"
	}
	return fmt.Sprintf("type %#x", t)
}

// loopNote says whether dir's filesystem is on a loop device (bench/run.sh
// mounts one), with the file behind it and whether the device writes it
// with direct I/O, as a disk would take the writes, or through the page
// cache of the filesystem that holds the file.
func loopNote(dir string) string {
	var st syscall.Stat_t
	if syscall.Stat(dir, &st) != nil {
		return "device unknown"
	}
	major, minor := (st.Dev>>8)&0xfff|(st.Dev>>32)&^0xfff, st.Dev&0xff|(st.Dev>>12)&^0xff
	if major != 7 {
		return "not a loop device"
	}
	sys := fmt.Sprintf("/sys/block/loop%d/loop/", minor)
	backing, err := os.ReadFile(sys + "backing_file")
	if err != nil {
		return fmt.Sprintf("loop%d", minor)
	}
	io := "buffered I/O"
	if dio, _ := os.ReadFile(sys + "dio"); strings.TrimSpace(string(dio)) == "1" {
		io = "direct I/O"
	}
	return fmt.Sprintf("loop%d on %s, %s", minor, strings.TrimSpace(string(backing)), io)
}

// baseLabel is what the report calls the baseline build.
func baseLabel() string {
	if *baseName != "" {
		return *baseName
	}
	return "`" + *baseline + "`"
}
