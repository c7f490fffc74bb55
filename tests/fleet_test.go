//go:build unix

package tests

import (
	"errors"
	"fmt"
	neturl "net/url"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"guard/internal/store/postgres/pgtest"
)

// pgSandbox is a sandbox whose states are in the database at url, as
// host.
func pgSandbox(t *testing.T, config, url, host string) *sandbox {
	sb := newSandbox(t, config)
	sb.env = append(sb.env, "GUARD_STATE="+url, "GUARD_COOLDOWN_STATE="+url, "GUARD_HOST="+host)
	return sb
}

// overlaps reads the marks children left (a line "start" or "end" each,
// in order, appended under O_APPEND) and returns the most that ran at once.
func overlaps(t *testing.T, path string) (most, runs int) {
	t.Helper()
	data, _ := os.ReadFile(path)
	n := 0
	for _, l := range strings.Fields(string(data)) {
		switch l {
		case "start":
			n++
			runs++
			most = max(most, n)
		case "end":
			n--
		}
	}
	return most, runs
}

// mark is a child that marks its start and end in marks, running secs
// seconds in between.
func mark(secs string) string {
	return `echo start >> marks; sleep ` + secs + `; echo end >> marks`
}

// guard works through pgbouncer in transaction mode, where consecutive
// transactions of one client run on different server connections and no
// session state survives: with two server connections for twelve callers,
// max_concurrent: 1 still runs one at a time, outcomes are all counted,
// and a failing key still trips.
func TestThroughPgbouncer(t *testing.T) {
	srv := pgtest.Shared(t)
	url := srv.NewDB(t)
	b := srv.Bouncer(t, 2)
	url = strings.Replace(url, fmt.Sprintf(":%d/", srv.Port), fmt.Sprintf(":%d/", b.Port), 1)
	sb := pgSandbox(t, "circuit_breaker:\n  failure_threshold: 3\n  max_concurrent: 1\n  queue_timeout: 1m\n", url, "h1")
	var wg sync.WaitGroup
	const callers = 12
	for i := range callers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if code, _, stderr := sb.guard("run", "--name", "one-at-a-time", "-c", mark("0.1")); code != 0 || stderr != "" {
				t.Errorf("caller %d: exit %d: %s", i, code, stderr)
			}
		}()
	}
	wg.Wait()
	if most, runs := overlaps(t, sb.path("marks")); most != 1 || runs != callers {
		t.Errorf("%d runs, at most %d at once; want %d, one at a time", runs, most, callers)
	}
	for range 3 {
		sb.guard("run", "--name", "failing", "--", "false")
	}
	if code, _, stderr := sb.guard("run", "--name", "failing", "--", "true"); code != 0 || !strings.Contains(stderr, "skipped") {
		t.Errorf("after 3 failures: exit %d, %s; want a skip", code, stderr)
	}
	if got := exportedTotals(t, url, "one-at-a-time")["successes"]; got != callers {
		t.Errorf("successes = %d; want %d", got, callers)
	}
	if code, out, stderr := sb.guard("log", "--key", "failing", "--event", "transition"); code != 0 || !strings.Contains(out, "open") {
		t.Errorf("log through pgbouncer: exit %d: %s%s", code, out, stderr)
	}
	if t.Failed() {
		t.Log(b.Log())
	}
}

// A max_concurrent: 1 key never has two runs at once across a restart of
// the server: its slot is a row, not a session's lock, and its holder
// extends it again once the server is back.
func TestMaxConcurrentAcrossServerRestart(t *testing.T) {
	srv := pgtest.Shared(t)
	url := srv.NewDB(t)
	cfg := "circuit_breaker:\n  max_concurrent: 1\n"
	a := pgSandbox(t, cfg, url+"&guard_lease=6s", "hostA")
	holder := a.command("run", "--name", "only-one", "-c", `trap 'echo end >> marks; exit 143' TERM; echo start >> marks; touch started; sleep 14 & wait; echo end >> marks`)
	if err := holder.Start(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the first run to start", func() bool { return exists(a.path("started")) })
	if err := srv.Down(); err != nil {
		t.Fatal(err)
	}
	if err := srv.Up(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(7 * time.Second) // past the lease of the row as it was before the restart: the holder extended it since
	b := pgSandbox(t, cfg, url, "hostB")
	b.dir = a.dir // the same marks
	code, _, stderr := b.guard("run", "--name", "only-one", "-c", mark("0"))
	if err := holder.Wait(); err != nil {
		t.Errorf("the first run: %v", err)
	}
	if most, _ := overlaps(t, a.path("marks")); most > 1 {
		t.Errorf("two runs of a max_concurrent: 1 key at once across the restart (second: exit %d, %s)", code, stderr)
	}
	if !strings.Contains(stderr, "1 run is in flight") {
		t.Errorf("the second caller: exit %d, %s; want it rejected while the first runs", code, stderr)
	}
}

// A guard stopped at any moment of its call (SIGSTOP: a paused VM, a
// suspended job) holds nothing that others wait for: every write is one
// round the server runs to its end alone. Calls of other keys, and of the
// same key, go on and are counted while it is stopped.
func TestFrozenGuardHoldsNothing(t *testing.T) {
	url := pgtest.Shared(t).NewDB(t)
	sb := pgSandbox(t, "lock_timeout: 500ms\n", url, "h1")
	if code, _, stderr := sb.guard("run", "--name", "warm", "--", "true"); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, after := range []time.Duration{0, time.Millisecond, 3 * time.Millisecond, 10 * time.Millisecond, 30 * time.Millisecond} {
		frozen := sb.command("run", "--name", "shared", "--", "true")
		if err := frozen.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(after)
		frozen.Process.Signal(syscall.SIGSTOP)
		for _, key := range []string{"other", "shared"} {
			start := time.Now()
			code, _, stderr := sb.guard("run", "--name", key, "--", "true")
			if code != 0 || stderr != "" {
				t.Errorf("stopped %s in: a call of %s: exit %d, %s", after, key, code, stderr)
			}
			if d := time.Since(start); d > 20*time.Second {
				t.Errorf("stopped %s in: a call of %s took %s", after, key, d) // hung, not slow
			}
		}
		frozen.Process.Signal(syscall.SIGCONT)
		frozen.Wait()
	}
	if got := exportedTotals(t, url, "other")["successes"]; got != 5 {
		t.Errorf("other's successes = %d; want 5", got)
	}
}

// A role that may not create tables runs hooks once an administrator ran
// guard state init --grant ROLE; before that it is told what to grant
// (config check), and its hooks run unguarded with that warning.
func TestRoleWithoutCreateRunsHooks(t *testing.T) {
	srv := pgtest.Shared(t)
	url := srv.NewDB(t)
	role := "hooks_" + strconv.FormatInt(time.Now().UnixNano(), 36)
	admin := pgSandbox(t, "", url, "admin")
	psql := func(sql string) {
		t.Helper()
		cmd := exec.Command("psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", strings.Replace(url, "?sslmode=disable", "", 1)+"?sslmode=disable", "-c", sql)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", sql, err, out)
		}
	}
	psql(`CREATE ROLE ` + role + ` LOGIN; REVOKE CREATE ON SCHEMA public FROM PUBLIC`)
	hooks := pgSandbox(t, "", strings.Replace(url, "postgres@", role+"@", 1), "h1")

	code, out, _ := hooks.guard("config", "check")
	if !strings.Contains(out, "reachable, but permission denied") || !strings.Contains(out, "guard state init --grant "+role) {
		t.Errorf("config check before init: exit %d\n%s\nwant permission denied, and what to run", code, out)
	}
	code, _, stderr := hooks.guard("run", "--name", "k", "--", "true")
	if code != 0 || !strings.Contains(stderr, "permission denied") || !strings.Contains(stderr, "unguarded") {
		t.Errorf("a hook before init: exit %d, %s; want it run unguarded, with what to grant", code, stderr)
	}
	if code, out, stderr := admin.guard("state", "init", "--grant", role); code != 0 || !strings.Contains(out, role+" may use them") {
		t.Fatalf("state init: exit %d: %s%s", code, out, stderr)
	}
	if code, out, stderr := hooks.guard("state", "init"); code == 0 {
		t.Errorf("state init by the role without CREATE: exit 0: %s%s", out, stderr)
	}
	for range 2 {
		if code, _, stderr := hooks.guard("run", "--name", "k", "--", "true"); code != 0 || stderr != "" {
			t.Errorf("a hook after init: exit %d, %s", code, stderr)
		}
	}
	if code, out, _ := hooks.guard("config", "check"); !strings.Contains(out, ": reachable") {
		t.Errorf("config check after init: exit %d\n%s", code, out)
	}
	if got := exportedTotals(t, url, "k")["successes"]; got != 2 {
		t.Errorf("successes = %d; want 2", got)
	}

	// The role imports checkpoints too, the hook state's as the cooldown
	// state's (hostile-user-3 m2): guard state export | ssh host guard
	// state import - needs no administrator.
	ckpt := hooks.path("ckpt.json")
	if code, _, stderr := hooks.guard("state", "export", ckpt); code != 0 {
		t.Fatalf("state export by the role: exit %d: %s", code, stderr)
	}
	hooks.guard("run", "--name", "k", "--", "true")
	if code, out, stderr := hooks.guard("state", "import", ckpt); code != 0 || strings.Contains(stderr, "permission denied") {
		t.Errorf("state import by the role: exit %d: %s%s", code, out, stderr)
	}
	if got := exportedTotals(t, url, "k")["successes"]; got != 2 {
		t.Errorf("successes after the import = %d; want the checkpoint's 2", got)
	}
	hooks.guard("cooldown", "record", "web", "restart")
	if code, _, stderr := hooks.guard("cooldown", "export", ckpt); code != 0 {
		t.Fatalf("cooldown export by the role: exit %d: %s", code, stderr)
	}
	if code, out, stderr := hooks.guard("cooldown", "import", ckpt); code != 0 {
		t.Errorf("cooldown import by the role: exit %d: %s%s", code, out, stderr)
	}
}

// guard doctor warns of a database on another host reached without
// verify-full.
func TestDoctorWarnsOfPlaintextToAnotherHost(t *testing.T) {
	sb := pgSandbox(t, "", "postgres://u@db.invalid:5432/guard?connect_timeout=1", "h1")
	_, out, stderr := sb.guard("doctor")
	if !strings.Contains(out+stderr, "sslmode=prefer reaches db.invalid in the clear") || !strings.Contains(out+stderr, "verify-full") {
		t.Errorf("doctor:\n%s%s\nwant a warning about sslmode prefer", out, stderr)
	}
}

// A max_concurrent holder cut off from the database (every round waits for
// its time limit) stops its command with SIGTERM (its trap runs), then
// SIGKILL after kill_grace, before its row can expire, on a timer of its
// own that does not wait on the hung round, and says why on stderr; a
// guard_lease too short for that is raised, with a warning. Another host
// runs the key only once the first command is gone (faults #3, #10;
// hostile-user-3 m4).
func TestCutOffHolderStopsItsCommand(t *testing.T) {
	srv := pgtest.Shared(t)
	url := srv.NewDB(t)
	proxy := pgtest.NewProxy(t, srv.Addr())
	cfg := "lock_timeout: 500ms\nconnect_timeout: 500ms\ncircuit_breaker:\n  max_concurrent: 1\n  kill_grace: 1s\n"
	a := pgSandbox(t, cfg, viaProxy(t, url, proxy.Addr)+"&guard_lease=3s", "hostA")
	a.env = append(a.env, "GUARDRAILS_LOCK_TIMEOUT=500ms") // the config's, not the sandbox's long wait
	var aErr strings.Builder
	holder := a.command("run", "--name", "only-one", "-c",
		`trap 'echo TERM >> terms; echo end >> marks; exit 143' TERM; echo start >> marks; touch started; sleep 60 & wait; echo end >> marks`)
	holder.Stderr = &aErr
	if err := holder.Start(); err != nil {
		t.Fatal(err)
	}
	defer holder.Process.Kill()
	waitFor(t, "the first run to start", func() bool { return exists(a.path("started")) })
	proxy.Blackhole.Store(true)

	b := pgSandbox(t, cfg, url+"&guard_lease=3s", "hostB")
	b.env = append(b.env, "GUARDRAILS_LOCK_TIMEOUT=500ms")
	b.dir = a.dir // the same marks
	for {
		code, _, stderr := b.guard("run", "--name", "only-one", "-c", mark("0"))
		if code != 0 {
			t.Fatalf("the second host: exit %d, %s", code, stderr)
		}
		if !strings.Contains(stderr, "in flight") {
			break // it ran
		}
		time.Sleep(100 * time.Millisecond)
	}
	err := holder.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 143 {
		t.Errorf("the cut-off run exited %v; want 143, its TERM trap's", err)
	}
	if most, runs := overlaps(t, a.path("marks")); most > 1 || runs != 2 {
		t.Errorf("%d runs, at most %d at once; want 2, one at a time", runs, most)
	}
	if data, _ := os.ReadFile(a.path("terms")); string(data) != "TERM\n" {
		t.Errorf("the cut-off command's TERM trap ran %q; want once", data)
	}
	for _, want := range []string{
		`guard: warning: guard_lease=3s is too short for a max_concurrent slot whose command gets a kill_grace of 1s after a round that may take 2s; "only-one"'s slot lasts 6s`,
		`guard: stopped "only-one": its max_concurrent slot could not be extended`,
	} {
		if !strings.Contains(aErr.String(), want) {
			t.Errorf("the cut-off run's stderr:\n%s\nwant %q", aErr.String(), want)
		}
	}
}

// viaProxy returns url with its host and port replaced by addr's.
func viaProxy(t *testing.T, url, addr string) string {
	t.Helper()
	u, err := neturl.Parse(url)
	if err != nil {
		t.Fatal(err)
	}
	u.Host = addr
	return u.String()
}

// A signal while guard run connects to a database that does not answer
// ends it at once, running nothing, instead of after connect_timeout
// (issue 29 item 3: a SIGTERM ends guard whatever it is doing).
func TestSignalWhileConnecting(t *testing.T) {
	srv := pgtest.Shared(t)
	url := srv.NewDB(t)
	proxy := pgtest.NewProxy(t, srv.Addr())
	proxy.Blackhole.Store(true)
	sb := pgSandbox(t, "", viaProxy(t, url, proxy.Addr)+"&connect_timeout=600", "h")
	cmd := sb.command("run", "--", "touch", "ran")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "guard to connect", func() bool { return proxy.Connections.Load() > 0 })
	cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 143 {
			t.Errorf("guard exited %v; want 143", err)
		}
	case <-time.After(2 * time.Minute):
		cmd.Process.Kill()
		t.Fatal("guard still connecting two minutes after SIGTERM")
	}
	if exists(sb.path("ran")) {
		t.Error("the command ran after SIGTERM")
	}
}
