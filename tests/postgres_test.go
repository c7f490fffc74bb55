package tests

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"guard/internal/store/postgres/pgtest"
)

// pgGuard runs guard against the database at url, as host.
func pgGuard(t *testing.T, url, host string, args ...string) (int, string, string) {
	t.Helper()
	return pgGuardEnv(t, url, host, nil, args...)
}

// patient are the settings of guard processes that count what many of
// them did at once: a loaded machine (connecting, the server's row locks)
// must not turn a slow call into one run unguarded, which the count would
// miss (8 hosts at once with the default 1s connect and 2s lock timeouts
// all warned "cannot reach the database" on a machine at a load of
// hundreds).
var patient = []string{"GUARDRAILS_CONNECT_TIMEOUT=2m", "GUARDRAILS_LOCK_TIMEOUT=2m", "GUARDRAILS_RECORD_TIMEOUT=2m"}

// pgGuardEnv is pgGuard with env added to guard's environment.
func pgGuardEnv(t *testing.T, url, host string, env []string, args ...string) (int, string, string) {
	t.Helper()
	cmd := exec.Command(guardBin, args...)
	cmd.Env = append(os.Environ(), "GUARD_STATE="+url, "GUARD_COOLDOWN_STATE="+url, "GUARD_HOST="+host,
		"HOME="+t.TempDir(), "GUARD_CONFIG=", "CLAUDE_PROJECT_DIR=")
	cmd.Env = append(cmd.Env, env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("guard %q: %v", args, err)
	}
	return code, stdout.String(), stderr.String()
}

// exportedTotals reads a key's totals from guard state export.
func exportedTotals(t *testing.T, url, key string) map[string]int {
	t.Helper()
	code, out, stderr := pgGuard(t, url, "reader", "state", "export")
	if code != 0 {
		t.Fatalf("state export: exit %d: %s", code, stderr)
	}
	var doc struct {
		Hooks map[string]struct {
			Totals map[string]json.RawMessage `json:"totals"`
		} `json:"hooks"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("export does not parse: %v\n%s", err, out)
	}
	counts := map[string]int{}
	for name, raw := range doc.Hooks[key].Totals {
		var n int
		if json.Unmarshal(raw, &n) == nil { // the counts; run_ms is an object
			counts[name] = n
		}
	}
	return counts
}

// TestHostsShareOneCircuit: 8 hosts × 50 runs of one key, all at once,
// count exactly 400 in one database (with patient timeouts: what is
// counted is sharing, not speed).
func TestHostsShareOneCircuit(t *testing.T) {
	url := pgtest.Shared(t).NewDB(t)
	hosts, runs := 8, 50
	if raceEnabled {
		runs = 15
	}
	var wg sync.WaitGroup
	for h := range hosts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range runs {
				if code, _, stderr := pgGuardEnv(t, url, fmt.Sprintf("host%d", h), patient, "run", "--name", "shared", "--", "true"); code != 0 || stderr != "" {
					t.Errorf("host%d: exit %d: %s", h, code, stderr)
					return
				}
			}
		}()
	}
	wg.Wait()
	if got := exportedTotals(t, url, "shared")["successes"]; got != hosts*runs {
		t.Errorf("successes = %d; want %d", got, hosts*runs)
	}
}

// TestBudgetHoldsAcrossHosts: 10 racers on 5 hosts for a restart whose
// limit is 2: exactly 2 run (with patient timeouts: a racer that could
// not connect in time would run unguarded, a third restart).
func TestBudgetHoldsAcrossHosts(t *testing.T) {
	url := pgtest.Shared(t).NewDB(t)
	ran := filepath.Join(t.TempDir(), "ran")
	var wg sync.WaitGroup
	codes := make(chan int, 10)
	for i := range 10 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			code, _, _ := pgGuardEnv(t, url, fmt.Sprintf("host%d", i%5), patient, "cooldown", "run", "web", "restart", "--", "sh", "-c", "echo x >> "+ran)
			codes <- code
		}()
	}
	wg.Wait()
	close(codes)
	refused := 0
	for c := range codes {
		if c == 75 {
			refused++
		}
	}
	data, _ := os.ReadFile(ran)
	if n := strings.Count(string(data), "x"); n != 2 || refused != 8 {
		t.Errorf("%d restarts ran and %d were refused; want 2 and 8", n, refused)
	}
}

// TestDatabaseOutageFailsOpen: while the server is down, calls run their
// command unguarded with a warning, promptly; once it is back, calls are
// counted again, and nothing acknowledged before the outage is lost.
func TestDatabaseOutageFailsOpen(t *testing.T) {
	srv := pgtest.Shared(t)
	url := srv.NewDB(t)
	for range 3 {
		if code, _, stderr := pgGuard(t, url, "h1", "run", "--name", "k", "--", "true"); code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
	}
	if err := srv.Down(); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	code, stdout, stderr := pgGuard(t, url, "h1", "run", "--name", "k", "--", "echo", "ran")
	if code != 0 || stdout != "ran\n" || !strings.Contains(stderr, "cannot reach the database") || !strings.Contains(stderr, "unguarded") {
		t.Errorf("during the outage: exit %d, stdout %q, stderr %q; want the command run unguarded with a warning", code, stdout, stderr)
	}
	if took := time.Since(start); took > 30*time.Second {
		t.Errorf("a call during the outage took %s", took)
	}
	if err := srv.Up(); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := pgGuard(t, url, "h1", "run", "--name", "k", "--", "true"); code != 0 || stderr != "" {
		t.Fatalf("after the outage: exit %d: %s", code, stderr)
	}
	if got := exportedTotals(t, url, "k")["successes"]; got != 4 {
		t.Errorf("successes = %d; want the 3 before the outage and 1 after", got)
	}
}

// TestBadDatabaseURLsFailOpen: a server that is not there, an unknown
// user or database, a URL guard cannot parse: the command runs, with one
// warning, and no password is shown.
func TestBadDatabaseURLsFailOpen(t *testing.T) {
	srv := pgtest.Shared(t)
	for _, url := range []string{
		"postgres://postgres@127.0.0.1:1/x?sslmode=disable",
		fmt.Sprintf("postgres://nobody:secret@127.0.0.1:%d/postgres?sslmode=disable", srv.Port),
		fmt.Sprintf("postgres://postgres@127.0.0.1:%d/nosuchdb?sslmode=disable", srv.Port),
		"postgres://postgres@127.0.0.1:notaport/x",
	} {
		code, stdout, stderr := pgGuard(t, url, "h1", "run", "--", "echo", "ran")
		if code != 0 || stdout != "ran\n" || strings.Count(stderr, "guard: warning:") != 1 || strings.Contains(stderr, "secret") {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want the command run with one warning", url, code, stdout, stderr)
		}
	}
}

// TestStateMovesIntoPostgresAndBack: a file's hook state and cooldown
// state imported into PostgreSQL export as they went in: every key's
// entry, unknown members and fractions of seconds included, the totals,
// every service and stamp.
func TestStateMovesIntoPostgresAndBack(t *testing.T) {
	url := pgtest.Shared(t).NewDB(t)
	dir := t.TempDir()
	hooksFile, coolFile := filepath.Join(dir, "hook_state.json"), filepath.Join(dir, "cooldown.json")
	os.WriteFile(hooksFile, []byte(`{"hooks": {"python3 lint.py": {"state": "open", "failure_count": 3, "consecutive_failures": 3, "consecutive_successes": 0, "first_failure": "2026-02-10T23:32:15.123456", "last_failure": null, "last_success": null, "last_error": "exit 1", "disabled_at": null, "retry_after": "2999-01-01T00:00:00+00:00", "custom": {"kept": true}}}, "global_stats": {"total_executions": 3, "total_failures": 3, "hooks_disabled": 1, "last_updated": null}}`), 0o600)
	os.WriteFile(coolFile, []byte(`{"services": {"web": {"restarts": [{"timestamp": "2026-02-10T10:00:00Z", "success": true}], "redeployments": [], "consecutive_healthy": 0}}, "last_run": null}`), 0o600)
	for _, step := range [][]string{
		{"state", "import", hooksFile},
		{"cooldown", "import", coolFile},
	} {
		if code, _, stderr := pgGuard(t, url, "h1", step...); code != 0 {
			t.Fatalf("%q: exit %d: %s", step, code, stderr)
		}
	}
	// Each key's entry, every service and stamp come back as they went in;
	// the document around them is laid out as guard writes it.
	for _, c := range []struct {
		args []string
		file string
	}{{[]string{"state", "export"}, hooksFile}, {[]string{"cooldown", "export"}, coolFile}} {
		_, out, _ := pgGuard(t, url, "h1", c.args...)
		data, _ := os.ReadFile(c.file)
		var got, want map[string]any
		if err := json.Unmarshal([]byte(out), &got); err != nil {
			t.Fatalf("%q: %v\n%s", c.args, err, out)
		}
		json.Unmarshal(data, &want)
		if c.args[0] == "state" {
			gs, ws := got["global_stats"].(map[string]any), want["global_stats"].(map[string]any)
			for _, k := range []string{"total_executions", "total_failures", "hooks_disabled"} {
				if gs[k] != ws[k] {
					t.Errorf("%q: global_stats.%s = %v; want %v", c.args, k, gs[k], ws[k])
				}
			}
			got, want = map[string]any{"hooks": got["hooks"]}, map[string]any{"hooks": want["hooks"]}
		}
		if g, w := fmt.Sprint(got), fmt.Sprint(want); g != w {
			t.Errorf("%q:\n%s\nwant what was imported\n%s", c.args, out, data)
		}
	}
	// And the imported circuit is in force on every host.
	if code, _, stderr := pgGuard(t, url, "h2", "run", "--", "python3", "lint.py"); code != 0 || !strings.Contains(stderr, "skipped") {
		t.Errorf("the imported open circuit did not skip: exit %d, %s", code, stderr)
	}
}

// TestRestartInTheMiddleOfCalls: the server restarts while four workers
// call guard in a loop. Every call runs its command and exits 0; every
// call guard acknowledged (no warning) is counted, and none is counted
// twice.
func TestRestartInTheMiddleOfCalls(t *testing.T) {
	srv := pgtest.Shared(t)
	url := srv.NewDB(t)
	if code, _, stderr := pgGuard(t, url, "h0", "run", "--name", "k", "--", "true"); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var mu sync.Mutex
	calls, acked := 1, 1
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				code, stdout, stderr := pgGuard(t, url, fmt.Sprintf("h%d", w), "run", "--name", "k", "--", "echo", "ran")
				if code != 0 || stdout != "ran\n" {
					t.Errorf("a call during the restart: exit %d, stdout %q, stderr %q", code, stdout, stderr)
				}
				mu.Lock()
				calls++
				if stderr == "" {
					acked++
				}
				mu.Unlock()
			}
		}()
	}
	time.Sleep(300 * time.Millisecond) // calls under way
	if err := srv.Down(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond) // calls during the outage
	if err := srv.Up(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond) // calls after it
	close(stop)
	wg.Wait()
	got := exportedTotals(t, url, "k")["successes"]
	t.Logf("%d calls, %d acknowledged, %d counted", calls, acked, got)
	if got < acked || got > calls {
		t.Errorf("%d counted; want at least the %d acknowledged and at most the %d calls", got, acked, calls)
	}
	if acked == calls {
		t.Log("no call met the outage")
	}
}

// TestURLFormsAndPasswords: a Unix socket named by host=, and a password
// from PGPASSWORD or ~/.pgpass for a role that must give one; a wrong
// password fails open without showing it.
func TestURLFormsAndPasswords(t *testing.T) {
	srv := pgtest.Shared(t)
	url := srv.NewDB(t)
	db := url[strings.LastIndex(url, "/")+1 : strings.Index(url, "?")]
	socket := fmt.Sprintf("postgresql://postgres@/%s?host=%s&port=%d", db, srv.SocketDir(), srv.Port)
	if code, _, stderr := pgGuard(t, socket, "h1", "run", "--name", "k", "--", "true"); code != 0 || stderr != "" {
		t.Fatalf("over the socket: exit %d: %s", code, stderr)
	}
	noPassword := fmt.Sprintf("postgres://%s@127.0.0.1:%d/%s?sslmode=disable", pgtest.PasswordRole, srv.Port, db)
	run := func(env ...string) (int, string) {
		t.Helper()
		home := t.TempDir()
		if len(env) > 0 && strings.HasPrefix(env[0], "pgpass=") {
			os.WriteFile(filepath.Join(home, ".pgpass"), []byte(strings.TrimPrefix(env[0], "pgpass=")+"\n"), 0o600)
			env = env[1:]
		}
		cmd := exec.Command(guardBin, "run", "--name", "k", "--", "true")
		cmd.Env = append(os.Environ(), append([]string{"GUARD_STATE=" + noPassword, "HOME=" + home, "GUARD_CONFIG=", "PGPASSWORD="}, env...)...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		err := cmd.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		}
		return code, stderr.String()
	}
	if code, stderr := run("PGPASSWORD=" + pgtest.PasswordOf); code != 0 || stderr != "" {
		t.Errorf("PGPASSWORD: exit %d: %s", code, stderr)
	}
	if code, stderr := run(fmt.Sprintf("pgpass=127.0.0.1:%d:*:%s:%s", srv.Port, pgtest.PasswordRole, pgtest.PasswordOf)); code != 0 || stderr != "" {
		t.Errorf("~/.pgpass: exit %d: %s", code, stderr)
	}
	code, stderr := run("PGPASSWORD=wrong-pw")
	if code != 0 || !strings.Contains(stderr, "guard: warning:") || strings.Contains(stderr, "wrong-pw") {
		t.Errorf("a wrong password: exit %d, stderr %q; want the command run with a warning", code, stderr)
	}
	if got := exportedTotals(t, url, "k")["successes"]; got != 3 {
		t.Errorf("successes = %d; want 3 (socket, PGPASSWORD, ~/.pgpass)", got)
	}
}

// TestTripRulesOnPostgres: the rate and k-of-n rules keep what they count
// (calls, recent_calls) in the database's state as in the file's.
func TestTripRulesOnPostgres(t *testing.T) {
	url := pgtest.Shared(t).NewDB(t)
	cfg := filepath.Join(t.TempDir(), "guardrails.yaml")
	os.WriteFile(cfg, []byte("circuit_breaker:\n  failure_threshold: 100\n  failure_rate: 50%\n  minimum_calls: 4\n  failure_window: 10m\nhooks:\n  - match: k-of-n\n    failure_threshold: 2\n    failure_rate: 0%\n    of_last: 3\n"), 0o644)
	run := func(name string, ok bool) {
		t.Helper()
		prog := "false"
		if ok {
			prog = "true"
		}
		cmd := exec.Command(guardBin, "run", "--name", name, "--", prog)
		cmd.Env = append(os.Environ(), "GUARD_STATE="+url, "GUARD_CONFIG="+cfg, "HOME="+t.TempDir())
		if out, _ := cmd.CombinedOutput(); strings.Contains(string(out), "warning") {
			t.Fatalf("%s", out)
		}
	}
	state := func(name string) string {
		t.Helper()
		_, out, _ := pgGuard(t, url, "h", "status", "--json", name)
		var sts []struct{ State string }
		json.Unmarshal([]byte(out), &sts)
		if len(sts) != 1 {
			t.Fatalf("status %s: %s", name, out)
		}
		return sts[0].State
	}
	for i, ok := range []bool{false, true, false} {
		run("flaky", ok)
		if got := state("flaky"); got != "closed" {
			t.Fatalf("after call %d: %s", i+1, got)
		}
	}
	run("flaky", true)
	if got := state("flaky"); got != "open" {
		t.Errorf("2 of 4 failed at 50%%: %s; want open", got)
	}
	run("k-of-n", false)
	run("k-of-n", true)
	if got := state("k-of-n"); got != "closed" {
		t.Fatalf("k-of-n: %s", got)
	}
	run("k-of-n", false)
	if got := state("k-of-n"); got != "open" {
		t.Errorf("2 of the last 3 failed: %s; want open", got)
	}
}

// TestRecordAndDisableOnPostgres: guard record and guard disable work on a
// shared database as on a file (issue 34, items 1 and 2).
func TestRecordAndDisableOnPostgres(t *testing.T) {
	url := pgtest.Shared(t).NewDB(t)
	for range 3 {
		if code, _, stderr := pgGuard(t, url, "h1", "record", "dispatch", "--failure", "--error", "ECONNRESET"); code != 0 {
			t.Fatalf("record: exit %d: %s", code, stderr)
		}
	}
	state := func() string {
		t.Helper()
		_, out, _ := pgGuard(t, url, "h", "status", "--json", "dispatch")
		var sts []struct {
			State, Circuit string
			LastError      string `json:"last_error"`
		}
		json.Unmarshal([]byte(out), &sts)
		if len(sts) != 1 {
			t.Fatalf("status: %s", out)
		}
		return sts[0].State + "/" + sts[0].Circuit + "/" + sts[0].LastError
	}
	if got := state(); got != "open/open/ECONNRESET" {
		t.Fatalf("after 3 recorded failures: %s; want open", got)
	}
	if code, out, _ := pgGuard(t, url, "h2", "run", "--name", "dispatch", "--", "echo", "RAN"); code != 0 || strings.Contains(out, "RAN") {
		t.Fatalf("a run on another host while open: exit %d, %q; want a skip", code, out)
	}
	if code, _, stderr := pgGuard(t, url, "h2", "disable", "dispatch", "--reason", "outage"); code != 0 {
		t.Fatalf("disable: exit %d: %s", code, stderr)
	}
	if code, out, _ := pgGuard(t, url, "h3", "run", "--name", "dispatch", "--", "echo", "RAN"); code != 0 || out != "RAN\n" {
		t.Fatalf("a run while disabled: exit %d, %q; want it run", code, out)
	}
	if got := state(); got != "disabled/open/ECONNRESET" {
		t.Fatalf("while disabled: %s; want disabled over an open circuit", got)
	}
	_, out, _ := pgGuard(t, url, "h", "log", "--event", "disable", "--json")
	if !strings.Contains(out, `"host":"h2"`) || !strings.Contains(out, `"reason":"outage"`) {
		t.Errorf("disable event: %s", out)
	}
	if code, _, stderr := pgGuard(t, url, "h1", "enable", "dispatch"); code != 0 {
		t.Fatalf("enable: exit %d: %s", code, stderr)
	}
	if got := state(); got != "open/open/ECONNRESET" {
		t.Fatalf("once enabled: %s", got)
	}
}

// TestOnStateChangeOnPostgres: on_state_change runs for a transition of a
// state in PostgreSQL, and its outcome is logged there (issue 34, item 5).
func TestOnStateChangeOnPostgres(t *testing.T) {
	url := pgtest.Shared(t).NewDB(t)
	dir := t.TempDir()
	notes := filepath.Join(dir, "notes")
	cfg := filepath.Join(dir, "guardrails.yaml")
	os.WriteFile(cfg, []byte("circuit_breaker:\n  on_state_change: 'echo \"$GUARD_KEY $GUARD_FROM $GUARD_TO\" >> "+notes+"'\n"), 0o644)
	cmd := exec.Command(guardBin, "trip", "policy", "--reason", "INC-9")
	cmd.Env = append(os.Environ(), "GUARD_STATE="+url, "GUARD_CONFIG="+cfg, "HOME="+dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("trip: %v: %s", err, out)
	}
	deadline := time.Now().Add(time.Minute)
	for {
		_, out, _ := pgGuard(t, url, "h", "log", "--event", "notify", "--json")
		data, _ := os.ReadFile(notes)
		if string(data) == "policy closed open\n" && strings.Contains(out, `"outcome":"success"`) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after a minute: notes %q, events %s", data, out)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestFallbackRetriesAndOutputOnPostgres: fallback, retries and the output
// rules on a shared database, their events logged there (issue 34, items
// 3, 4 and 6).
func TestFallbackRetriesAndOutputOnPostgres(t *testing.T) {
	url := pgtest.Shared(t).NewDB(t)
	dir := t.TempDir()
	cfg := filepath.Join(dir, "guardrails.yaml")
	os.WriteFile(cfg, []byte(`hooks:
  - match: ctx
    fallback: 'echo FALLBACK'
  - match: flaky
    retries: 2
    retry_backoff: 10ms
  - match: net
    ignore_output: ['ECONNRESET']
`), 0o644)
	run := func(args ...string) (int, string) {
		t.Helper()
		cmd := exec.Command(guardBin, args...)
		cmd.Env = append(os.Environ(), "GUARD_STATE="+url, "GUARD_CONFIG="+cfg, "HOME="+dir, "CLAUDE_PROJECT_DIR=")
		cmd.Dir = dir
		out, err := cmd.Output()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		}
		return code, string(out)
	}
	run("trip", "ctx")
	if code, out := run("run", "--name", "ctx", "--", "echo", "REAL"); code != 0 || out != "FALLBACK\n" {
		t.Fatalf("a tripped key with a fallback: exit %d, %q", code, out)
	}
	if code, out := run("run", "--name", "flaky", "--", "sh", "-c", `echo x >> tries; [ $(wc -l < tries) -ge 2 ] && echo OK`); code != 0 || out != "OK\n" {
		t.Fatalf("a flaky key with retries: exit %d, %q", code, out)
	}
	if code, _ := run("run", "--name", "net", "--", "sh", "-c", "echo ECONNRESET >&2; exit 1"); code != 1 {
		t.Fatalf("net: exit %d", code)
	}
	_, out, _ := pgGuard(t, url, "h", "log", "--json")
	for _, want := range []string{`"event":"fallback","key":"ctx","outcome":"success"`, `"event":"retry","key":"flaky"`, `"event":"run","key":"flaky","outcome":"success"`, `"event":"run","key":"net","outcome":"ignored"`} {
		if !strings.Contains(out, want) {
			t.Errorf("no %s in the log:\n%s", want, out)
		}
	}
}
