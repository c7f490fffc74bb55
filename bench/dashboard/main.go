// Command dashboard measures the dashboard on a big state, for
// BENCHMARKS.md (bench/run.sh runs it): how long 'guard report --format
// html' takes for 1,000 keys and 100,000 events and how much the page
// weighs, how soon headless Chromium draws it, and what one look of the
// serve loop costs as the event log grows older. It prints a Markdown
// section on stdout.
package main

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"time"

	"guard/breaker"
	"guard/config"
	"guard/internal/chromium"
	"guard/internal/circuit"
	"guard/internal/store"
	"guard/internal/store/file"
	"guard/internal/view/dashboard"
)

func main() {
	guard := flag.String("guard", "", "the guard binary, with guard-web beside it")
	keys := flag.Int("keys", 1000, "keys in the state")
	events := flag.Int("events", 100000, "events in the log, over the last 7 days")
	runs := flag.Int("runs", 5, "runs of guard report --format html")
	only := flag.String("state", "", "only write the big state into `DIR`, and stop")
	example := flag.String("example", "", "only write the state of docs/dashboard.png into `DIR`, print its environment, and stop")
	shots := flag.String("screenshot", "", "only draw the example state with -guard and photograph it in headless Chromium into `DIR` (dashboard.png at 1400 px, dashboard-400.png at 400 px), and stop")
	flag.Parse()
	if *example != "" {
		fmt.Println(strings.Join(makeExample(*example, time.Now()), " "))
		return
	}
	if *shots != "" {
		if *guard == "" {
			fail("-screenshot needs -guard")
		}
		screenshots(*guard, *shots)
		return
	}
	if *only != "" {
		s := makeState(*only, *keys, *events, 7*24*time.Hour, time.Now())
		fmt.Println(strings.Join(s.env(), " "))
		return
	}
	if *guard == "" {
		fail("-guard is required")
	}
	now := time.Now()
	loadAverage := "unknown"
	if b, err := os.ReadFile("/proc/loadavg"); err == nil {
		loadAverage = strings.Join(strings.Fields(string(b))[:3], " ")
	}
	dir, err := os.MkdirTemp("", "guard-dashboard-bench")
	check(err)
	defer os.RemoveAll(dir)

	// The page.
	st := makeState(filepath.Join(dir, "page"), *keys, *events, 7*24*time.Hour, now)
	page := filepath.Join(dir, "page.html")
	var times []time.Duration
	for range *runs {
		cmd := exec.Command(*guard, "report", "--format", "html", "--output", page)
		cmd.Env = append(os.Environ(), st.env()...)
		start := time.Now()
		if out, err := cmd.CombinedOutput(); err != nil || len(out) > 0 {
			fail(fmt.Sprintf("guard report --format html: %v: %s", err, out))
		}
		times = append(times, time.Since(start))
	}
	fi, err := os.Stat(page)
	check(err)
	paint, load, drawn := browserOpen(dir, page)

	fmt.Printf("\n## Dashboard\n\n")
	fmt.Printf("Measured by `bench/dashboard` (run by `bench/run.sh`) on %s: %s, %d cores, %s; load average %s when it started.\n\n",
		now.UTC().Format("2006-01-02"), cpuModel(), runtime.NumCPU(), runtime.Version(), loadAverage)
	fmt.Printf("A state of %d keys (%d open, %d half-open) and an event log of %d events over the last 7 days (%s in %d files, rotated at the default 10 MB):\n\n",
		*keys, *keys/10, *keys/20, *events, mib(st.logBytes()), len(st.log.Files()))
	fmt.Printf("| figure | target | measured | |\n|---|---|---|---|\n")
	med := median(times)
	fmt.Printf("| `guard report --format html`, the whole command (handed over to guard-web), median of %d | under 1 s | %s | %s |\n", *runs, ms(med), holds(med < time.Second))
	fmt.Printf("| the page's weight | under 2 MB | %s (%d bytes) | %s |\n", mib(fi.Size()), fi.Size(), holds(fi.Size() < 2_000_000))
	if drawn > 0 {
		fmt.Printf("| headless Chromium showing the page: its first contentful paint, median of 3 | | %s | |\n", ms(paint))
		fmt.Printf("| ... its load event (parsed, styled, its script has sorted the tiles) | | %s | |\n", ms(load))
		fmt.Printf("| ... its first frame after that, the page drawn (from the start of the navigation, by the page's own Performance API) | under 1 s | %s | %s |\n", ms(drawn), holds(drawn < time.Second))
	}

	// The serve loop, as the log grows older.
	fmt.Printf("\nOne look of `guard serve`'s loop (`dashboard.Model.Refresh`, in process, on the same state file of %d keys) after 10 runs of one key, each recorded as `guard run` records it (the state written, the event appended), against how many events the log holds; and, for comparison, what reading the whole log once costs, which a loop that re-read it would pay at every look (medians of 20):\n\n", *keys)
	fmt.Printf("| events in the log | its age | a look after 10 runs | a look with nothing new | reading the whole log |\n|---|---|---|---|---|\n")
	for _, n := range []struct {
		events int
		age    time.Duration
	}{{1000, 24 * time.Hour}, {10000, 7 * 24 * time.Hour}, {100000, 7 * 24 * time.Hour}, {100000, 60 * 24 * time.Hour}} {
		s := makeState(filepath.Join(dir, fmt.Sprintf("loop-%d-%d", n.events, n.age/time.Hour)), *keys, n.events, n.age, now)
		look, idle, whole := s.loop(now)
		fmt.Printf("| %d | %s | %s | %s | %s |\n", n.events, config.FormatDuration(n.age), ms(look), ms(idle), ms(whole))
	}
	fmt.Printf("\nA look reads what was appended to the log (`store.Tail`) and the circuits of the keys it names; its cost follows what happened since the last look, not the log's size or age. Each key's timeline keeps only its last 7 days. The page fetches only the tiles that changed.\n")
}

// A state is a state file of many keys and its event log.
type state struct {
	dir   string
	cfg   *config.Config
	hooks *store.Hooks
	log   *file.EventLog
	keys  []string
}

func (s *state) env() []string {
	return []string{"HOME=" + s.dir, "GUARD_CONFIG=", "GUARD_STATE=" + s.cfg.StateFile, "GUARD_COOLDOWN_STATE=" + s.cfg.Cooldown.StateFile}
}

func (s *state) logBytes() int64 {
	var n int64
	for _, f := range s.log.Files() {
		if fi, err := os.Stat(f); err == nil {
			n += fi.Size()
		}
	}
	return n
}

// makeState writes keys circuits (a tenth open, a twentieth half-open)
// and events events spread over the age before now.
func makeState(dir string, keys, events int, age time.Duration, now time.Time) *state {
	check(os.MkdirAll(dir, 0o755))
	cfg := config.Default(dir)
	cfg.StateFile = filepath.Join(dir, "state.json")
	cfg.Cooldown.StateFile = filepath.Join(dir, "cooldown.json")
	hooks, err := file.OpenHooks(cfg, cfg.StateFile, store.Options{Host: "bench-1"})
	check(err)
	s := &state{dir: dir, cfg: cfg, hooks: hooks}
	s.log = &file.EventLog{Path: cfg.EventLog(cfg.StateFile), MaxSize: cfg.Logging.MaxSize, MaxFiles: cfg.Logging.MaxFiles, Host: "bench-1"}
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range keys {
		s.keys = append(s.keys, fmt.Sprintf("python3 $CLAUDE_PROJECT_DIR/.claude/hooks/check_%04d.py --strict", i))
	}
	check(hooks.Circuits.Update(now, func(tx store.CircuitTx) (bool, error) {
		for i, k := range s.keys {
			c := breaker.Circuit{State: breaker.Closed, LastRun: now, Totals: breaker.Totals{Successes: 90, Failures: 10}}
			switch {
			case i%10 == 0:
				c.State, c.FailureCount, c.ConsecutiveFailures = breaker.Open, 3, 3
				c.DisabledAt, c.RetryAfter, c.OpenReason = now.Add(-time.Minute), now.Add(4*time.Minute), "3 consecutive failures"
				c.LastError = "exit 1: Traceback (most recent call last): ModuleNotFoundError: No module named 'black'"
			case i%20 == 1:
				c.State, c.DisabledAt = breaker.HalfOpen, now.Add(-time.Hour)
			}
			tx.Put(k, c)
		}
		return true, nil
	}))
	evs := make([]store.Event, 0, events)
	for range events {
		k := s.keys[rng.IntN(len(s.keys))]
		at := now.Add(-time.Duration(rng.Float64() * float64(age)))
		e := store.Event{Time: at, Event: store.EventRun, Key: k, Outcome: "success", Exit: store.Int(0), DurationMS: store.Int64(int64(20 + rng.ExpFloat64()*200)), State: "closed"}
		switch r := rng.IntN(100); {
		case r < 8:
			e.Outcome, e.Exit, e.Error = "failure", store.Int(1), "exit 1: No module named 'black'"
		case r < 11:
			e = store.Event{Time: at, Event: store.EventSkip, Key: k, Reason: "open", State: "open"}
		case r < 12:
			e = store.Event{Time: at, Event: store.EventTransition, Key: k, From: "closed", To: "open", Reason: "3 consecutive failures"}
		case r < 13:
			e = store.Event{Time: at, Event: store.EventTransition, Key: k, From: "half_open", To: "closed", Reason: "2 successful probes"}
		}
		evs = append(evs, e)
	}
	sort.Slice(evs, func(i, j int) bool { return evs[i].Time.Before(evs[j].Time) })
	for len(evs) > 0 {
		n := min(len(evs), 500)
		check(s.log.Append(evs[:n]...))
		evs = evs[n:]
	}
	return s
}

// loop measures a look of the serve loop after 10 runs, one with nothing
// new, and one read of the whole log.
func (s *state) loop(now time.Time) (look, idle, whole time.Duration) {
	src := &dashboard.Source{Config: s.cfg, Hooks: s.hooks, Events: s.hooks.Events,
		Alive: func(store.Holder) bool { return false },
		Fingerprint: func() string {
			fi, err := os.Stat(s.cfg.StateFile)
			check(err)
			return fmt.Sprint(fi.Size(), fi.ModTime().UnixNano())
		}}
	m, err := dashboard.New(src, now)
	check(err)
	key := s.keys[1]
	b := s.cfg.For(key)
	settings := b.Settings(key)
	var looks, idles, wholes []time.Duration
	for i := range 20 {
		t := now.Add(time.Duration(i+1) * time.Second)
		for range 10 {
			check(s.hooks.Circuits.Update(t, func(tx store.CircuitTx) (bool, error) {
				_, err := circuit.Record(tx, key, settings, t, breaker.Result{Outcome: breaker.Success}, circuit.Run{Duration: 30 * time.Millisecond})
				return true, err
			}))
		}
		start := time.Now()
		_, err := m.Refresh(t)
		check(err)
		looks = append(looks, time.Since(start))
		start = time.Now()
		_, err = m.Refresh(t.Add(time.Millisecond))
		check(err)
		idles = append(idles, time.Since(start))
		start = time.Now()
		_, err = s.hooks.Events.Read(nil)
		check(err)
		wholes = append(wholes, time.Since(start))
	}
	return median(looks), median(idles), median(wholes)
}

// browserOpen opens page in headless Chromium 3 times and returns the
// medians of its first contentful paint, its load event and its first
// frame after that (two animation frames later), as the page's own
// Performance API times them from the start of the navigation; zeros if
// there is no chromium.
func browserOpen(dir, page string) (paint, load, drawn time.Duration) {
	path := chromium.Find()
	if path == "" {
		return 0, 0, 0
	}
	b, err := chromium.Start(path, filepath.Join(dir, "chromium"))
	check(err)
	defer b.Close()
	var paints, loads, draws []time.Duration
	ms := func(f float64) time.Duration { return time.Duration(f * float64(time.Millisecond)) }
	for range 3 {
		check(b.Open("file://"+page, time.Minute))
		var v struct{ Paint, Load, Drawn float64 }
		check(b.Eval(`new Promise(done => requestAnimationFrame(() => requestAnimationFrame(() => done({
			Paint: performance.getEntriesByType("paint").find(e => e.name === "first-contentful-paint").startTime,
			Load: performance.getEntriesByType("navigation")[0].loadEventEnd,
			Drawn: performance.now()}))))`, &v))
		if problems := b.Problems(); len(problems) > 0 {
			fail("the page has problems: " + strings.Join(problems, "; "))
		}
		paints, loads, draws = append(paints, ms(v.Paint)), append(loads, ms(v.Load)), append(draws, ms(v.Drawn))
		check(b.Open("about:blank", time.Minute))
	}
	return median(paints), median(loads), median(draws)
}

// screenshots draws the example state with guard and photographs the page
// with the tests' own tooling (internal/chromium): dashboard.png, 1400 px
// wide, and dashboard-400.png, 400 px wide, as on-call would see them.
func screenshots(guard, into string) {
	dir, err := os.MkdirTemp("", "guard-dashboard-shot")
	check(err)
	defer os.RemoveAll(dir)
	env := makeExample(filepath.Join(dir, "state"), time.Now())
	page := filepath.Join(dir, "page.html")
	cmd := exec.Command(guard, "report", "--format", "html", "--output", page)
	cmd.Env = append(os.Environ(), env...)
	if out, err := cmd.CombinedOutput(); err != nil || len(out) > 0 {
		fail(fmt.Sprintf("guard report --format html: %v: %s", err, out))
	}
	path := chromium.Find()
	if path == "" {
		fail("no chromium on PATH")
	}
	b, err := chromium.Start(path, filepath.Join(dir, "chromium"))
	check(err)
	defer b.Close()
	for _, shot := range []struct {
		name          string
		width, height int
	}{{"dashboard.png", 1400, 1500}, {"dashboard-400.png", 400, 2600}} {
		check(b.Open("file://"+page, time.Minute))
		png, err := b.Screenshot(shot.width, shot.height)
		check(err)
		if problems := b.Problems(); len(problems) > 0 {
			fail("the page has problems: " + strings.Join(problems, "; "))
		}
		check(os.WriteFile(filepath.Join(into, shot.name), png, 0o644))
		fmt.Fprintf(os.Stderr, "wrote %s\n", filepath.Join(into, shot.name))
	}
}

// cpuModel names the processor, as /proc/cpuinfo does.
func cpuModel() string {
	b, _ := os.ReadFile("/proc/cpuinfo")
	for _, line := range strings.Split(string(b), "\n") {
		if name, value, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(name) == "model name" {
			return strings.TrimSpace(value)
		}
	}
	return "an unknown processor"
}

func sortSlice[T any](s []T, less func(i, j int) bool) { sort.Slice(s, less) }

func median(ts []time.Duration) time.Duration {
	slices.Sort(ts)
	return ts[len(ts)/2]
}

func ms(d time.Duration) string {
	if d >= time.Second {
		return fmt.Sprintf("%.2f s", d.Seconds())
	}
	return fmt.Sprintf("%.2f ms", float64(d.Microseconds())/1000)
}

func mib(n int64) string { return fmt.Sprintf("%.2f MB", float64(n)/1e6) }

func holds(ok bool) string {
	if ok {
		return "holds"
	}
	return "**misses**"
}

func check(err error) {
	if err != nil {
		fail(err.Error())
	}
}

func fail(msg string) {
	fmt.Fprintln(os.Stderr, "dashboard:", msg)
	os.Exit(1)
}
