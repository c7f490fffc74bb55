//go:build linux

// Command fleet measures guard as a fleet uses it, with its state in the
// JSON file and in PostgreSQL (a throwaway cluster on 127.0.0.1), and
// prints Markdown tables for BENCHMARKS.md (bench/run.sh runs it):
//
//   - throughput: N callers (1, 4, 16) running guard run -- /bin/true in a
//     loop, on distinct keys and on one key, with 10 to 10,000 keys in the
//     state;
//   - round trips of a closed call: the call's latency through a proxy that
//     delays every packet (delay.go), at several round-trip times; the
//     slope of latency over the round-trip time is the round trips a call
//     waits for (the TCP handshake, which the proxy does not delay, aside);
//   - a frozen caller: how much a guard stopped (SIGSTOP) in the middle of
//     its call, or a client stopped inside a transaction that locked a
//     key's row, slows other calls;
//   - the targets of issue 24, met or not.
//
// Every figure is from the run that prints it.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"

	"guard/internal/store/postgres/pgtest"
)

var (
	guardBin = flag.String("guard", "", "the guard binary (guard-pg is beside it)")
	dur      = flag.Duration("dur", 3*time.Second, "how long each throughput cell runs")
	sizes    = flag.String("keys", "10,100,1000,10000", "keys in the state, for the throughput runs")
	callers  = flag.String("callers", "1,4,16", "parallel callers, for the throughput runs")
	what     = flag.String("what", "fleet,paired,rtt,frozen", "what to measure")
	verbose  = flag.Bool("v", false, "print what calls that were not clean said")
)

func main() {
	flag.Parse()
	if *guardBin == "" {
		fmt.Fprintln(os.Stderr, "fleet: -guard is required")
		os.Exit(2)
	}
	srv, err := pgtest.Start()
	if err != nil {
		fmt.Fprintln(os.Stderr, "fleet: cannot start PostgreSQL:", err)
		os.Exit(1)
	}
	dir, _ := os.MkdirTemp("", "guard-fleet")
	cleanup = func() { srv.Stop(); os.RemoveAll(dir) }
	defer func() { cleanup() }() // the cleanup of the moment, the bouncer's included
	b := &bench{srv: srv, dir: dir, results: map[string]cell{}}
	if bo, err := srv.StartBouncer(4); err == nil {
		b.bouncer = bo
		stop := cleanup
		cleanup = func() { bo.Stop(); stop() }
	} else {
		fmt.Fprintln(os.Stderr, "fleet: no pgbouncer, its rows left out:", err)
	}
	for _, w := range strings.Split(*what, ",") {
		switch w {
		case "fleet":
			b.fleet()
		case "paired":
			b.paired()
		case "rtt":
			b.rtt()
		case "frozen":
			b.frozen()
		}
	}
	b.targets()
}

type bench struct {
	srv     *pgtest.Server
	bouncer *pgtest.Bouncer // in transaction mode, 4 server connections
	dir     string
	dbs     int
	results map[string]cell // by backend/keys/callers/mode
}

// A cell is one throughput measurement.
type cell struct {
	calls    int
	rate     float64 // calls a second
	p50, p99 time.Duration
	failed   int // calls that warned or failed
}

// newDB creates a database and returns its URL.
func (b *bench) newDB() string {
	b.dbs++
	name := fmt.Sprintf("fleet_%d", b.dbs)
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, b.srv.URL("postgres"))
	if err != nil {
		fail(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		fail(err)
	}
	return b.srv.URL(name)
}

// cleanup stops what main started; fail calls it too.
var cleanup = func() {}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "fleet:", err)
	cleanup()
	os.Exit(1)
}

// env is the environment of a guard on state, on host.
func (b *bench) env(state, host string) []string {
	return append(os.Environ(), "GUARD_STATE="+state, "HOME="+b.dir,
		"GUARD_CONFIG=", "GUARD_HOST="+host, "CLAUDE_PROJECT_DIR=")
}

// state returns a state of n keys: a file, or a new database, imported.
func (b *bench) state(backend string, n int) (state, bin string) {
	var doc strings.Builder
	doc.WriteString(`{"version": 1, "hooks": {`)
	for i := range n {
		if i > 0 {
			doc.WriteString(",")
		}
		// A key as a busy fleet's look: closed, with a history.
		fmt.Fprintf(&doc, `"python3 /srv/hooks/check-%05d.py --strict": {"state": "closed", "failure_count": 0, "consecutive_failures": 0, "consecutive_successes": 12, "first_failure": null, "last_failure": "2026-11-01T10:00:00+00:00", "last_success": "2026-11-20T10:00:00+00:00", "last_error": "exit 1: ImportError: no module named yaml", "disabled_at": null, "retry_after": null, "last_run": "2026-11-20T10:00:00+00:00", "totals": {"successes": 480, "failures": 3, "ignored": 0, "cancelled": 0, "abandoned": 0, "skips": 0, "rejected": 0}}`, i)
	}
	doc.WriteString(`}, "global_stats": {"total_executions": 0, "total_failures": 0, "hooks_disabled": 0, "last_updated": null}}`)
	src := filepath.Join(b.dir, fmt.Sprintf("import-%d.json", n))
	if err := os.WriteFile(src, []byte(doc.String()), 0o600); err != nil {
		fail(err)
	}
	bin = *guardBin
	switch backend {
	case "file":
		state = filepath.Join(b.dir, fmt.Sprintf("file-%d-%d", n, time.Now().UnixNano()), "hook_state.json")
		os.MkdirAll(filepath.Dir(state), 0o700)
	default:
		state = b.newDB()
		bin += "-pg"
	}
	defer func() {
		if backend == "pgbouncer" {
			state = strings.Replace(state, b.srv.Addr(), fmt.Sprintf("127.0.0.1:%d", b.bouncer.Port), 1)
		}
	}()
	cmd := exec.Command(bin, "state", "import", src)
	cmd.Env = b.env(state, "importer")
	if out, err := cmd.CombinedOutput(); err != nil {
		fail(fmt.Errorf("state import: %v: %s", err, out))
	}
	if backend != "file" {
		// As a database in use would be: its statistics taken, the
		// import's dead rows gone (else autovacuum does it during the
		// first cells).
		ctx := context.Background()
		conn, err := pgx.Connect(ctx, state)
		if err != nil {
			fail(err)
		}
		if _, err := conn.Exec(ctx, `VACUUM ANALYZE`); err != nil {
			fail(err)
		}
		conn.Close(ctx)
	}
	for range 10 { // warm up
		b.call(bin, state, "warm", "python3 /srv/hooks/check-00000.py --strict")
	}
	return state, bin
}

// call runs one closed call of key and returns how long it took, and
// whether it was clean (exit 0, nothing on stderr).
func (b *bench) call(bin, state, host, key string) (time.Duration, bool) {
	cmd := exec.Command(bin, "run", "--name", key, "--", "/bin/true")
	cmd.Env = b.env(state, host)
	start := time.Now()
	out, err := cmd.CombinedOutput()
	if len(out) > 0 && *verbose {
		fmt.Fprintf(os.Stderr, "fleet: %s", out)
	}
	return time.Since(start), err == nil && len(out) == 0
}

// throughput runs n callers for dur on state.
func (b *bench) throughput(bin, state string, n int, oneKey bool) cell {
	var mu sync.Mutex
	var times []time.Duration
	failed := 0
	stop := time.Now().Add(*dur)
	var wg sync.WaitGroup
	start := time.Now()
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			key := fmt.Sprintf("python3 /srv/hooks/check-%05d.py --strict", i)
			if oneKey {
				key = "python3 /srv/hooks/check-00000.py --strict"
			}
			for time.Now().Before(stop) {
				d, ok := b.call(bin, state, fmt.Sprintf("host-%d", i), key)
				mu.Lock()
				times = append(times, d)
				if !ok {
					failed++
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	slices.Sort(times)
	return cell{calls: len(times), rate: float64(len(times)) / elapsed.Seconds(),
		p50: times[len(times)/2], p99: times[len(times)*99/100], failed: failed}
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

func (b *bench) fleet() {
	fmt.Printf("### Fleet throughput\n\n")
	fmt.Printf("N callers, each its own host (`GUARD_HOST`), loop `guard run --name KEY -- /bin/true` for %s, on distinct keys (caller i on key i) and on one key; the state holds the given number of keys beforehand (imported). postgres: `guard-pg` called directly, one connection per call, the server on this machine; pgbouncer: the same through pgbouncer in transaction mode with 4 server connections (`pgtest.StartBouncer`), which spares each call the start of a server process. calls/s is for the whole fleet; p50 and p99 are one call's latency; \"not clean\" counts calls that warned (an outcome not recorded) or failed.\n\n", *dur)
	fmt.Printf("| backend | keys | callers | keys called | calls/s | p50 ms | p99 ms | not clean |\n|---|---:|---:|---|---:|---:|---:|---:|\n")
	backends := []string{"file", "postgres"}
	if b.bouncer != nil {
		backends = append(backends, "pgbouncer")
	}
	for _, backend := range backends {
		for _, n := range ints(*sizes) {
			state, bin := b.state(backend, n)
			for _, c := range ints(*callers) {
				for _, oneKey := range []bool{false, true} {
					if c == 1 && oneKey {
						continue // the same as distinct
					}
					r := b.throughput(bin, state, c, oneKey)
					mode := "distinct"
					if oneKey {
						mode = "one"
					}
					b.results[fmt.Sprintf("%s/%d/%d/%s", backend, n, c, mode)] = r
					fmt.Printf("| %s | %d | %d | %s | %.0f | %s | %s | %d of %d |\n", backend, n, c, mode, r.rate, ms(r.p50), ms(r.p99), r.failed, r.calls)
				}
			}
		}
	}
	fmt.Println()
}

// paired measures the targets' pairs side by side, alternating, so that
// the load of a shared machine falls on both sides alike: one call with
// 10 and with 10,000 keys in PostgreSQL (calls interleaved), and 16
// callers on distinct keys with 100 and 10,000 keys in PostgreSQL, the
// same through pgbouncer (the set-up docs/postgres.md gives a fleet), and
// 10 keys in the file (cells alternated three times; the median).
func (b *bench) paired() {
	pg10, bin := b.state("postgres", 10)
	pg10k, _ := b.state("postgres", 10000)
	pg100, _ := b.state("postgres", 100)
	bn10k, _ := b.state("pgbouncer", 10000)
	bn100, _ := b.state("pgbouncer", 100)
	file10, fbin := b.state("file", 10)
	const runs = 100
	var t10, t10k []time.Duration
	for range runs {
		d, _ := b.call(bin, pg10, "h", "python3 /srv/hooks/check-00001.py --strict")
		t10 = append(t10, d)
		d, _ = b.call(bin, pg10k, "h", "python3 /srv/hooks/check-00001.py --strict")
		t10k = append(t10k, d)
	}
	slices.Sort(t10)
	slices.Sort(t10k)
	b.results["one/10"], b.results["one/10000"] = cell{p50: t10[runs/2]}, cell{p50: t10k[runs/2]}
	cells := []struct {
		name, bin, state string
		rates            []float64
	}{{"PostgreSQL, 10,000 keys", bin, pg10k, nil}, {"PostgreSQL, 100 keys", bin, pg100, nil},
		{"PostgreSQL through pgbouncer, 10,000 keys", bin, bn10k, nil}, {"PostgreSQL through pgbouncer, 100 keys", bin, bn100, nil},
		{"file, 10 keys", fbin, file10, nil}}
	for range 3 {
		for i := range cells {
			cells[i].rates = append(cells[i].rates, b.throughput(cells[i].bin, cells[i].state, 16, false).rate)
		}
	}
	fmt.Printf("### Side by side\n\n")
	fmt.Printf("One closed call (`guard-pg`), alternating between a state of 10 keys and one of 10,000, %d calls each: median %s ms with 10 keys, %s ms with 10,000.\n\n", runs, ms(t10[runs/2]), ms(t10k[runs/2]))
	fmt.Printf("16 callers on distinct keys, %s a cell, the cells run in turn three times:\n\n| state | calls/s (each turn) | median |\n|---|---|---:|\n", *dur)
	for _, c := range cells {
		r := slices.Clone(c.rates)
		slices.Sort(r)
		fmt.Printf("| %s | %.0f, %.0f, %.0f | %.0f |\n", c.name, c.rates[0], c.rates[1], c.rates[2], r[1])
		b.results["paired/"+c.name] = cell{rate: r[1]}
	}
	fmt.Printf("\nFor scale, what a connection costs this server and no more: 16 goroutines in one process that only connect, run `select 1` and close, against the same server (no process started, no guard), reach **%.0f connections a second**.\n\n", b.connections(16))
}

// connections returns how many connections a second n goroutines make to
// the server when each only connects, runs select 1 and closes: the
// ceiling a caller that connects once a call cannot pass on this machine.
func (b *bench) connections(n int) float64 {
	url := b.newDB()
	var mu sync.Mutex
	count := 0
	var wg sync.WaitGroup
	start := time.Now()
	end := start.Add(*dur)
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for time.Now().Before(end) {
				ctx := context.Background()
				c, err := pgx.Connect(ctx, url)
				if err != nil {
					fail(err)
				}
				_, err = c.Exec(ctx, "select 1")
				c.Close(ctx)
				if err != nil {
					fail(err)
				}
				mu.Lock()
				count++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return float64(count) / time.Since(start).Seconds()
}

// rtt measures closed calls through the delay proxy at several round-trip
// times and fits a line: its slope is the round trips a call waits for.
func (b *bench) rtt() {
	state, bin := b.state("postgres", 100)
	rtts := []time.Duration{0, 2 * time.Millisecond, 4 * time.Millisecond, 8 * time.Millisecond}
	const runs = 40
	fmt.Printf("### Round trips of a closed call\n\n")
	fmt.Printf("`guard-pg run -- /bin/true` on a state of 100 keys in PostgreSQL, through a proxy on 127.0.0.1 that holds every packet for half the round-trip time each way (`bench/fleet/delay.go`; it does not delay the TCP handshake), %d calls at each round-trip time, interleaved; the median. The slope of the median over the round-trip time is how many round trips a call waits for after its TCP connect.\n\n", runs)
	proxies := make([]*delayProxy, len(rtts))
	urls := make([]string, len(rtts))
	for i, r := range rtts {
		proxies[i] = newDelayProxy(b.srv.Addr(), r/2)
		defer proxies[i].Close()
		urls[i] = strings.Replace(state, b.srv.Addr(), proxies[i].Addr, 1)
	}
	times := make([][]time.Duration, len(rtts))
	unclean := 0
	for i := range runs + 5 {
		for j := range rtts {
			d, ok := b.call(bin, urls[j], "h", "python3 /srv/hooks/check-00001.py --strict")
			if !ok {
				unclean++
				continue
			}
			if i >= 5 {
				times[j] = append(times[j], d)
			}
		}
	}
	fmt.Printf("| round-trip time | median closed call |\n|---:|---:|\n")
	var xs, ys []float64
	for j, r := range rtts {
		slices.Sort(times[j])
		m := times[j][len(times[j])/2]
		xs, ys = append(xs, float64(r)), append(ys, float64(m))
		fmt.Printf("| %s ms | %s ms |\n", ms(r), ms(m))
	}
	slope := fit(xs, ys)
	b.results["rtt"] = cell{rate: slope}
	fmt.Printf("\nSlope: **%.2f round trips** a closed call (least squares over the four medians; %d calls that warned left out). `TestClosedCallIsThreeRoundTrips` counts them exactly: 3.\n\n", slope, unclean)
}

// fit returns the slope of the least-squares line through (xs, ys).
func fit(xs, ys []float64) float64 {
	n := float64(len(xs))
	var sx, sy, sxx, sxy float64
	for i := range xs {
		sx, sy, sxx, sxy = sx+xs[i], sy+ys[i], sxx+xs[i]*xs[i], sxy+xs[i]*ys[i]
	}
	return (n*sxy - sx*sy) / (n*sxx - sx*sx)
}

// frozen measures calls while a guard is stopped in the middle of its
// call, and while a client that locked a key's row inside a transaction
// is stopped.
func (b *bench) frozen() {
	state, bin := b.state("postgres", 100)
	other, same := "python3 /srv/hooks/check-00002.py --strict", "python3 /srv/hooks/check-00003.py --strict"
	const runs = 20
	median := func(key string) time.Duration {
		var ts []time.Duration
		for range runs {
			d, _ := b.call(bin, state, "h2", key)
			ts = append(ts, d)
		}
		slices.Sort(ts)
		return ts[len(ts)/2]
	}
	baseOther, baseSame := median(other), median(same)
	// A guard stopped at points of its call: each a median of calls made
	// while it is stopped.
	var worstOther, worstSame time.Duration
	for _, after := range []time.Duration{0, time.Millisecond, 2 * time.Millisecond, 4 * time.Millisecond, 8 * time.Millisecond, 16 * time.Millisecond} {
		cmd := exec.Command(bin, "run", "--name", same, "--", "/bin/true")
		cmd.Env = b.env(state, "h1")
		if err := cmd.Start(); err != nil {
			fail(err)
		}
		time.Sleep(after)
		cmd.Process.Signal(syscall.SIGSTOP)
		worstOther = max(worstOther, median(other))
		worstSame = max(worstSame, median(same))
		cmd.Process.Signal(syscall.SIGCONT)
		cmd.Wait()
	}
	// A client stopped inside a transaction that locked the key's row (not
	// guard, whose writes never wait on their client: an older guard, a
	// person at psql).
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, state)
	if err != nil {
		fail(err)
	}
	defer conn.Close(ctx)
	conn.Exec(ctx, `BEGIN`)
	if _, err := conn.Exec(ctx, `UPDATE guard_circuits SET updated = now() WHERE key = $1`, same); err != nil {
		fail(err)
	}
	lockedOther, lockedSame := median(other), median(same)
	conn.Exec(ctx, `ROLLBACK`)
	fmt.Printf("### A frozen caller\n\n")
	fmt.Printf("Medians of %d closed calls (`guard-pg`, 100 keys) on a key of their own (other key) and on the key of the frozen caller (same key), with nothing frozen; then with a `guard run` of the same key stopped by SIGSTOP at 0 to 16 ms into its call (the worst of six points); then with a client that updated the key's row inside a transaction and stopped there (lock_timeout is guard's default, 2 s; a call that waits it out does not record its outcome, and says so).\n\n", runs)
	fmt.Printf("| | other key | same key |\n|---|---:|---:|\n")
	fmt.Printf("| nothing frozen | %s ms | %s ms |\n", ms(baseOther), ms(baseSame))
	fmt.Printf("| a guard stopped mid-call | %s ms (%+.1f) | %s ms (%+.1f) |\n", ms(worstOther), msf(worstOther-baseOther), ms(worstSame), msf(worstSame-baseSame))
	fmt.Printf("| a client stopped holding the row's lock | %s ms (%+.1f) | %s ms (%+.1f) |\n\n", ms(lockedOther), msf(lockedOther-baseOther), ms(lockedSame), msf(lockedSame-baseSame))
	b.results["frozen/other"] = cell{p50: max(worstOther-baseOther, lockedOther-baseOther)}
	b.results["frozen/same"] = cell{p50: max(worstSame-baseSame, lockedSame-baseSame)}
}

func msf(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// targets prints issue 24's targets against what this run measured.
func (b *bench) targets() {
	r := b.results
	fmt.Printf("### Issue 24's targets, on this run\n\n| measure | target | measured | met |\n|---|---|---|---|\n")
	yes := func(ok bool) string {
		if ok {
			return "yes"
		}
		return "**no**"
	}
	if pg10k, ok := r["paired/PostgreSQL, 10,000 keys"]; ok {
		pg100, file10 := r["paired/PostgreSQL, 100 keys"], r["paired/file, 10 keys"]
		a, c := pg10k.rate/pg100.rate, pg10k.rate/file10.rate
		fmt.Printf("| PostgreSQL, 16 callers on distinct keys, 10,000 keys | ≥ 0.8x the same with 100 keys | %.2fx (%.0f vs %.0f calls/s) | %s |\n", a, pg10k.rate, pg100.rate, yes(a >= 0.8))
		fmt.Printf("| the same | ≥ 0.5x the file with 10 keys | %.2fx (vs %.0f calls/s) | %s |\n", c, file10.rate, yes(c >= 0.5))
		if bn10k, ok := r["paired/PostgreSQL through pgbouncer, 10,000 keys"]; ok {
			bn100 := r["paired/PostgreSQL through pgbouncer, 100 keys"]
			a, c := bn10k.rate/bn100.rate, bn10k.rate/file10.rate
			fmt.Printf("| the same through pgbouncer (transaction mode, 4 server connections) | ≥ 0.8x the same with 100 keys | %.2fx (%.0f vs %.0f calls/s) | %s |\n", a, bn10k.rate, bn100.rate, yes(a >= 0.8))
			fmt.Printf("| the same | ≥ 0.5x the file with 10 keys | %.2fx (vs %.0f calls/s) | %s |\n", c, file10.rate, yes(c >= 0.5))
		}
	}
	if one10k, ok := r["one/10000"]; ok {
		one10 := r["one/10"]
		x := float64(one10k.p50) / float64(one10.p50)
		fmt.Printf("| one PostgreSQL call, 10,000 keys | ≤ 1.2x one call with 10 keys | %.2fx (%s vs %s ms) | %s |\n", x, ms(one10k.p50), ms(one10.p50), yes(x <= 1.2))
	}
	if s, ok := r["rtt"]; ok {
		fmt.Printf("| round trips per closed call | ≤ 3 | slope %.2f; counted, 3 | %s |\n", s.rate, yes(s.rate < 3.5))
	}
	if o, ok := r["frozen/other"]; ok {
		s := r["frozen/same"]
		fmt.Printf("| a caller frozen mid-update | other keys slowed ≤ 100 ms; the same key ≤ lock_timeout (2 s) | other %+.1f ms, same %+.1f ms | %s |\n", msf(o.p50), msf(s.p50), yes(o.p50 <= 100*time.Millisecond && s.p50 <= 2*time.Second+100*time.Millisecond))
	}
	fmt.Println()
}
