//go:build linux

package tests

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

func readPID(t *testing.T, path string) int {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return pid
}

// processAlive reports whether pid runs (a zombie does not).
func processAlive(pid int) bool {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	i := bytes.LastIndexByte(data, ')')
	return i < 0 || i+2 >= len(data) || data[i+2] != 'Z'
}

// descendants returns the live processes below pid.
func descendants(pid int) []int {
	below := map[int][]int{}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", p))
		if err != nil {
			continue
		}
		i := bytes.LastIndexByte(data, ')')
		if f := strings.Fields(string(data[i+1:])); len(f) > 1 && f[0] != "Z" {
			ppid, _ := strconv.Atoi(f[1])
			below[ppid] = append(below[ppid], p)
		}
	}
	var out []int
	for queue := below[pid]; len(queue) > 0; queue = queue[1:] {
		out = append(out, queue[0])
		queue = append(queue, below[queue[0]]...)
	}
	return out
}

// killTreeAtEnd makes sure the child whose PID is in pidFile, and what it
// started, are gone when the test ends, whatever happened.
func killTreeAtEnd(t *testing.T, pidFile string) {
	t.Cleanup(func() {
		if data, err := os.ReadFile(pidFile); err == nil {
			if pid, err := strconv.Atoi(strings.TrimSpace(string(data))); err == nil {
				for _, p := range descendants(pid) {
					syscall.Kill(p, syscall.SIGKILL)
				}
				syscall.Kill(pid, syscall.SIGKILL)
			}
		}
	})
}

func TestTimeoutKillsGrandchildren(t *testing.T) {
	sb := newSandbox(t, "circuit_breaker:\n  kill_grace: 500ms\n")
	killTreeAtEnd(t, sb.path("leader"))
	// The child starts a grandchild that ignores SIGTERM and would sleep
	// for five minutes, and then waits for it.
	script := `echo $$ > leader; sh -c 'trap "" TERM; exec sleep 300' & echo $! > grandchild; wait`
	code, _, _ := sb.guard("run", "--timeout", "1s", "-c", script)
	if code != 124 {
		t.Fatalf("exit status %d; want 124", code)
	}
	h := sb.hook(script)
	if h["last_error"] != "timeout after 1s" || totals(h, "failures") != 1 {
		t.Errorf("entry = %v; want a failure recorded as timeout after 1s", h)
	}
	if pid := readPID(t, sb.path("grandchild")); processAlive(pid) {
		t.Errorf("grandchild %d survived the timeout", pid)
	}
	if pid := readPID(t, sb.path("leader")); processAlive(pid) {
		t.Errorf("the child %d survived the timeout", pid)
	}
}

func TestSIGTERMReachesChildAndCancels(t *testing.T) {
	sb := newSandbox(t, "")
	killTreeAtEnd(t, sb.path("pid"))
	script := `echo $$ > pid; trap 'echo got TERM > got; exit 0' TERM; touch ready; while :; do sleep 0.05; done`
	cmd := sb.command("run", "--name", "trapper", "-c", script)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the child to be ready", func() bool { return exists(sb.path("ready")) })
	cmd.Process.Signal(syscall.SIGTERM)
	err := cmd.Wait()
	if err != nil {
		t.Fatalf("guard exited with %v; want the child's own status 0 (stderr %q)", err, stderr.String())
	}
	if data, _ := os.ReadFile(sb.path("got")); string(data) != "got TERM\n" {
		t.Errorf("the child did not get SIGTERM: %q", data)
	}
	h := sb.hook("trapper")
	if totals(h, "cancelled") != 1 || totals(h, "failures") != 0 || h["consecutive_failures"] != 0.0 {
		t.Errorf("entry = %v; want one cancelled outcome and no failure", h)
	}
}

func TestKilledProbeIsReaped(t *testing.T) {
	sb := newSandbox(t, "circuit_breaker:\n  cooldown: 1s\n")
	key := "slow probe"
	killTreeAtEnd(t, sb.path("pid"))
	sb.guard("trip", key)
	sb.guard("probe", key)

	// The probe runs; guard is killed while it holds the lease.
	script := `echo $$ > pid; touch started; while [ ! -e release ]; do sleep 0.05; done`
	cmd := sb.command("run", "--name", key, "-c", script)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the probe to start", func() bool { return exists(sb.path("started")) })
	if leases, _ := sb.hook(key)["probe_leases"].([]any); len(leases) != 1 {
		t.Fatalf("probe_leases = %v; want the running probe's lease", sb.hook(key)["probe_leases"])
	}
	cmd.Process.Kill()
	cmd.Wait()
	os.WriteFile(sb.path("release"), nil, 0o600) // let the orphaned child end

	// The next caller reaps the lease as an abandoned failure.
	code, _, stderr := sb.guard("run", "--name", key, "--", "true")
	if code != 0 || !strings.Contains(stderr, "circuit open after an abandoned probe") {
		t.Fatalf("after the kill: exit %d, stderr %q; want a skip after an abandoned probe", code, stderr)
	}
	h := sb.hook(key)
	if h["state"] != "open" || totals(h, "abandoned") != 1 || h["probe_leases"] != nil {
		t.Fatalf("entry = %v; want open with the lease reaped and counted", h)
	}
	if !strings.Contains(h["last_error"].(string), "died without reporting") {
		t.Errorf("last_error = %v", h["last_error"])
	}

	// It recovers: probe again, and two successes close it.
	sb.guard("probe", key)
	for range 2 {
		if code, _, stderr := sb.guard("run", "--name", key, "--", "true"); code != 0 || stderr != "" {
			t.Fatalf("probe: exit %d, stderr %q", code, stderr)
		}
	}
	if h := sb.hook(key); h["state"] != "closed" {
		t.Errorf("state = %v; want closed", h["state"])
	}
}

// TestHerdRunsOneProbe: of twenty guard processes on a half-open circuit,
// exactly one runs the command as a probe, and the others are skipped.
func TestHerdRunsOneProbe(t *testing.T) {
	h := herd(t, "", 1)
	if h["state"] != "half_open" {
		t.Errorf("state = %v; want half_open after 1 of success_threshold's 2 probes", h["state"])
	}
}

// TestHerdRunsNProbes: with half_open_max_calls: 3, exactly three of them
// run at once, and their three successes close the circuit.
func TestHerdRunsNProbes(t *testing.T) {
	h := herd(t, "circuit_breaker:\n  half_open_max_calls: 3\n  success_threshold: 3\n", 3)
	if h["state"] != "closed" {
		t.Errorf("state = %v; want closed after 3 successful probes", h["state"])
	}
}

// herd trips a key for 1s in a sandbox with config, waits for its cooldown
// to pass, and starts twenty guard processes on it at once. It checks that
// exactly probes of them run the command, all at the same time, and that
// the others are skipped, and returns the key's state at the end.
func herd(t *testing.T, config string, probes int) map[string]any {
	t.Helper()
	sb := newSandbox(t, config)
	key := "herd"
	sb.guard("trip", key, "--for", "1s")
	retry, err := time.Parse(time.RFC3339, sb.hook(key)["retry_after"].(string))
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the cooldown to pass", func() bool { return time.Now().After(retry) })

	script := `echo ran >> runs; while [ ! -e release ]; do sleep 0.05; done`
	const callers = 20
	cmds := make([]*exec.Cmd, callers)
	stderrs := make([]bytes.Buffer, callers)
	done := make(chan int, callers)
	for i := range cmds {
		cmds[i] = sb.command("run", "--name", key, "-c", script)
		cmds[i].Stderr = &stderrs[i]
		if err := cmds[i].Start(); err != nil {
			t.Fatal(err)
		}
	}
	for i := range cmds {
		go func() {
			cmds[i].Wait()
			done <- i
		}()
	}
	// The skipped callers end by themselves; the probes wait for release.
	var skipped []int
	for range callers - probes {
		skipped = append(skipped, <-done)
	}
	// The probes run at once: all of them start before any may end.
	waitFor(t, "the probes to start", func() bool {
		data, _ := os.ReadFile(sb.path("runs"))
		return strings.Count(string(data), "ran") >= probes
	})
	os.WriteFile(sb.path("release"), nil, 0o600)
	for range probes {
		<-done
	}

	data, _ := os.ReadFile(sb.path("runs"))
	if n := strings.Count(string(data), "ran"); n != probes {
		t.Fatalf("%d children ran; want exactly %d", n, probes)
	}
	for _, i := range skipped {
		if code := cmds[i].ProcessState.ExitCode(); code != 0 || !strings.Contains(stderrs[i].String(), "a probe is running") {
			t.Errorf("caller %d: exit %d, stderr %q; want a skip while the probes run", i, code, stderrs[i].String())
		}
	}
	h := sb.hook(key)
	if totals(h, "skips") != callers-probes || totals(h, "successes") != probes {
		t.Errorf("totals = %v; want %d skips and %d successes", h["totals"], callers-probes, probes)
	}
	return h
}

func TestMaxConcurrentHolds(t *testing.T) {
	sb := newSandbox(t, "circuit_breaker:\n  max_concurrent: 2\n  queue_timeout: 2m\n")
	os.Mkdir(sb.path("inflight"), 0o700)
	// Each child counts the children running with it.
	script := `touch inflight/$$; ls inflight | wc -l >> overlaps; sleep 0.2; rm inflight/$$`
	const callers = 6
	var wg sync.WaitGroup
	codes := make([]int, callers)
	for i := range callers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			codes[i], _, _ = sb.guard("run", "--name", "limited", "-c", script)
		}()
	}
	wg.Wait()
	data, _ := os.ReadFile(sb.path("overlaps"))
	counts := strings.Fields(string(data))
	if len(counts) != callers {
		t.Fatalf("%d children ran; want %d (exit statuses %v)", len(counts), callers, codes)
	}
	for _, c := range counts {
		if n, _ := strconv.Atoi(c); n > 2 {
			t.Errorf("a child saw %d children running at once; max_concurrent is 2 (all: %v)", n, counts)
		}
	}
}

func TestOverLimitIsRejected(t *testing.T) {
	sb := newSandbox(t, "circuit_breaker:\n  max_concurrent: 1\n")
	key := "busy"
	holder := sb.command("run", "--name", key, "--timeout", "5m", "-c", `touch started; while [ ! -e release ]; do sleep 0.05; done`)
	if err := holder.Start(); err != nil {
		t.Fatal(err)
	}
	defer holder.Wait()
	defer os.WriteFile(sb.path("release"), nil, 0o600)
	waitFor(t, "the first run to start", func() bool { return exists(sb.path("started")) })

	code, _, stderr := sb.guard("run", "--name", key, "--", "touch", "second-ran")
	if code != 0 || !strings.Contains(stderr, `guard: skipped busy: 1 run is in flight (max_concurrent: 1) and none ended within 0s`) {
		t.Errorf("second call: exit %d, stderr %q; want a rejection", code, stderr)
	}
	if exists(sb.path("second-ran")) {
		t.Error("the rejected call ran its command")
	}
	if h := sb.hook(key); totals(h, "rejected") != 1 || h["state"] != "closed" {
		t.Errorf("entry = %v; want one rejection and the circuit untouched", h)
	}

	// The run in flight shows in guard status.
	_, out, _ := sb.guard("status")
	if !strings.Contains(out, "In flight:") || !strings.Contains(out, " busy") {
		t.Errorf("status does not show the run in flight:\n%s", out)
	}
	_, out, _ = sb.guard("status", "--json", key)
	var sts []struct {
		Running []struct {
			PID         int    `json:"pid"`
			ChildPID    int    `json:"child_pid"`
			ElapsedMS   int64  `json:"elapsed_ms"`
			RemainingMS *int64 `json:"remaining_ms"`
		} `json:"running"`
	}
	if err := json.Unmarshal([]byte(out), &sts); err != nil {
		t.Fatal(err)
	}
	if len(sts) != 1 || len(sts[0].Running) != 1 {
		t.Fatalf("status --json = %s; want one run in flight", out)
	}
	r := sts[0].Running[0]
	if r.PID != holder.Process.Pid || r.ChildPID == 0 || r.RemainingMS == nil || *r.RemainingMS > 5*60*1000 || *r.RemainingMS <= 0 {
		t.Errorf("running = %+v; want guard's pid %d, its child, and time left under 5m", r, holder.Process.Pid)
	}
}

func TestSlowCallIsAFailure(t *testing.T) {
	sb := newSandbox(t, "circuit_breaker:\n  slow_call: 100ms\n")
	code, _, _ := sb.guard("run", "--name", "slow", "--", "sh", "-c", "sleep 0.3; exit 0")
	if code != 0 {
		t.Errorf("exit %d; want the child's own 0", code)
	}
	h := sb.hook("slow")
	if totals(h, "failures") != 1 || !strings.HasPrefix(h["last_error"].(string), "slow call: took ") {
		t.Errorf("entry = %v; want a slow-call failure", h)
	}
}

// TestSignalWhileQueuedRunsNothing covers hostile-user finding 9: a run
// waiting for a max_concurrent slot that gets SIGTERM ends then, running
// nothing, instead of starting its command when a slot frees.
func TestSignalWhileQueuedRunsNothing(t *testing.T) {
	sb := newSandbox(t, "circuit_breaker:\n  max_concurrent: 1\n  queue_timeout: 5m\n")
	holder := sb.command("run", "--name", "q", "-c", `touch started; while [ ! -e release ]; do sleep 0.05; done`)
	if err := holder.Start(); err != nil {
		t.Fatal(err)
	}
	defer holder.Wait()
	defer os.WriteFile(sb.path("release"), nil, 0o600)
	waitFor(t, "the first run to start", func() bool { return exists(sb.path("started")) })

	queued := sb.command("run", "--name", "q", "--", "touch", "queued-ran")
	if err := queued.Start(); err != nil {
		t.Fatal(err)
	}
	// Give it a moment to reach the queue. The test holds however far it
	// got: a signal before its subscription kills it at once, and one
	// after must end the wait.
	time.Sleep(200 * time.Millisecond)
	queued.Process.Signal(syscall.SIGTERM)
	done := make(chan error, 1)
	go func() { done <- queued.Wait() }()
	select {
	case err := <-done:
		var ee *exec.ExitError
		if errors.As(err, &ee) && ee.ExitCode() != 143 && ee.ExitCode() != -1 {
			t.Errorf("queued guard exited %d; want 143", ee.ExitCode())
		}
	case <-time.After(time.Minute):
		queued.Process.Kill()
		t.Fatal("a queued guard sent SIGTERM was still waiting a minute later")
	}
	os.WriteFile(sb.path("release"), nil, 0o600)
	holder.Wait()
	if exists(sb.path("queued-ran")) {
		t.Error("the queued run started its command after SIGTERM")
	}
}

// TestFIFOConfigAndSIGTERM covers hostile-user-3 M5: with a FIFO as its
// config, guard once hung in open(2) for ever, deaf to SIGTERM, and the
// hook never ran. Now it warns, runs the hook, and SIGTERM ends both.
func TestFIFOConfigAndSIGTERM(t *testing.T) {
	sb := newSandbox(t, "")
	fifo := sb.path("fifo.yaml")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	killTreeAtEnd(t, sb.path("pid"))
	cmd := sb.command("run", "--name", "fifo", "-c", `echo $$ > pid; touch started; while :; do sleep 0.05; done`)
	cmd.Env = append(cmd.Env, "GUARD_CONFIG="+fifo)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the hook to start", func() bool { return exists(sb.path("started")) })
	cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 143 {
			t.Errorf("guard exited with %v; want 143, the hook's death by SIGTERM", err)
		}
	case <-time.After(time.Minute):
		cmd.Process.Kill()
		t.Fatal("guard still running a minute after SIGTERM")
	}
	if !strings.Contains(stderr.String(), "fifo.yaml is a FIFO, not a regular file") {
		t.Errorf("stderr = %q; want the warning", stderr.String())
	}
}

// TestMaxConcurrentAfterGuardIsKilled covers faults #2 and
// newcomer-and-mission #17: when the guard holding a max_concurrent: 1
// key's slot is SIGKILLed, the next run of the key starts only once the
// first run's command is gone (on Linux it dies with guard, by its
// parent-death signal; where it would not, its slot's record keeps the
// slot taken while it runs).
func TestMaxConcurrentAfterGuardIsKilled(t *testing.T) {
	sb := newSandbox(t, "circuit_breaker:\n  max_concurrent: 1\n  queue_timeout: 2m\n")
	killTreeAtEnd(t, sb.path("first.pid"))
	first := sb.command("run", "--name", "only-one", "-c", `echo $$ > first.pid; touch started; while :; do sleep 0.05; done`)
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the first run to start", func() bool { return exists(sb.path("started")) })
	pid := readPID(t, sb.path("first.pid"))
	first.Process.Kill()
	first.Wait()
	// The second run's command says whether the first's was still there.
	script := `s=$(sed 's/^.*) \(.\).*/\1/' /proc/` + strconv.Itoa(pid) + `/stat 2>/dev/null); if [ -n "$s" ] && [ "$s" != Z ]; then echo overlap; else echo alone; fi`
	code, out, stderr := sb.guard("run", "--name", "only-one", "-c", script)
	if code != 0 || out != "alone\n" {
		t.Errorf("second run: exit %d, stdout %q, stderr %q; want it alone", code, out, stderr)
	}
}

// TestMaxConcurrentWhileWhatTheCommandStartedRuns (faults #2, a variant):
// a SIGKILL of guard alone ends its command (the parent-death signal), but
// not what the command runs in turn, here a shell's foreground child doing
// the work; that child holds the max_concurrent slot too, so the next run
// of the key is refused until it has ended, not run beside it.
func TestMaxConcurrentWhileWhatTheCommandStartedRuns(t *testing.T) {
	sb := newSandbox(t, "circuit_breaker:\n  max_concurrent: 1\n")
	killTreeAtEnd(t, sb.path("work.pid"))
	killTreeAtEnd(t, sb.path("outer.pid"))
	first := sb.command("run", "--name", "only-one", "-c", `echo $$ > outer.pid; sh -c 'echo $$ > work.pid; touch started; exec sleep 600'; true`)
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the first run to start", func() bool { return exists(sb.path("started")) })
	outer, work := readPID(t, sb.path("outer.pid")), readPID(t, sb.path("work.pid"))
	first.Process.Kill()
	first.Wait()
	waitFor(t, "the command to die with guard", func() bool { return !processAlive(outer) })
	if !processAlive(work) {
		t.Fatal("what the command started died too; the test needs it alive")
	}
	code, out, stderr := sb.guard("run", "--name", "only-one", "-c", "echo second ran")
	if code != 0 || out != "" || !strings.Contains(stderr, "in flight") {
		t.Errorf("second run while the first's work runs: exit %d, stdout %q, stderr %q; want it skipped (max_concurrent)", code, out, stderr)
	}
	syscall.Kill(work, syscall.SIGKILL)
	waitFor(t, "the first run's work to end", func() bool { return !processAlive(work) })
	code, out, stderr = sb.guard("run", "--name", "only-one", "-c", "echo third ran")
	if code != 0 || out != "third ran\n" {
		t.Errorf("run after the work ended: exit %d, stdout %q, stderr %q; want it run", code, out, stderr)
	}
}
