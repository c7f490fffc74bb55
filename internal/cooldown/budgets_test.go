package cooldown_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"guard/breaker"
	"guard/config"
	"guard/internal/cooldown"
	"guard/internal/store"
	"guard/internal/store/file"
	"guard/internal/store/postgres"
	"guard/internal/store/postgres/pgtest"
	"guard/internal/store/storetest"
	"guard/internal/supervise"
)

// A backend is what the budget rules run on, and a way to read its events.
type backend struct {
	budgets store.Budgets
	events  func() []store.Event
}

// backends returns every backend the rules' tests run on, as
// internal/circuit's protocol tests do (and litestream's
// RunWithReplicaClient): the in-memory test double, the JSON file, and
// PostgreSQL (a throwaway cluster; skipped outside CI where the machine
// has none). Each gets the actions restart and redeploy.
func backends(t *testing.T) map[string]func() backend {
	actions := []store.Action{restart, redeploy}
	return map[string]func() backend{
		"memory": func() backend {
			b := storetest.NewBudgets()
			return backend{b, b.Events}
		},
		"file": func() backend {
			dir := t.TempDir()
			cd, err := file.OpenCooldown(config.Default(dir), filepath.Join(dir, "cooldown.json"), actions, store.Options{LogFailed: func(err error) { t.Error(err) }})
			if err != nil {
				t.Fatal(err)
			}
			return backend{cd.Budgets, readEvents(t, cd.Events)}
		},
		"postgres": func() backend {
			db, err := postgres.Open(context.Background(), pgtest.Shared(t).NewDB(t), postgres.Settings{ConnectTimeout: time.Second})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(db.Close)
			db.LocalClock = true // the tests play time forward
			return backend{db.Budgets(actions), readEvents(t, db.Events())}
		},
	}
}

func readEvents(t *testing.T, ev store.Events) func() []store.Event {
	return func() []store.Event {
		res, err := ev.Read(nil)
		if err != nil {
			t.Fatal(err)
		}
		return res.Events
	}
}

func TestMain(m *testing.M) {
	code := m.Run()
	pgtest.StopShared()
	os.Exit(code)
}

// rulesOn returns the rules of restart (2 in 4h) and redeploy (1 in 24h),
// with two healthy checks to clear and records kept 48h, on b.
func rulesOn(b backend) *cooldown.Rules {
	return &cooldown.Rules{Budgets: b.budgets, Actions: []store.Action{restart, redeploy}, ResetAfterHealthy: 2, Retention: 48 * time.Hour}
}

// forEach runs test on a fresh store of every backend.
func forEach(t *testing.T, test func(t *testing.T, r *cooldown.Rules, b backend)) {
	for name, open := range backends(t) {
		t.Run(name, func(t *testing.T) {
			b := open()
			test(t, rulesOn(b), b)
		})
	}
}

// records returns service's records of a as the store has them now.
func records(t *testing.T, r *cooldown.Rules, service string, a store.Action) []store.Record {
	t.Helper()
	v, err := r.Budgets.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	rs, err := v.Records(service, a)
	if err != nil {
		t.Fatal(err)
	}
	return rs
}

// used returns how much of a's budget on service is used at now.
func used(t *testing.T, r *cooldown.Rules, service string, a store.Action, now time.Time) int {
	t.Helper()
	v, err := r.Budgets.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	verdict, err := cooldown.Check(v, service, a, 1, now)
	if err != nil {
		t.Fatal(err)
	}
	return verdict.Used
}

func notStarted() *supervise.Result {
	return &supervise.Result{ExitCode: 127, StartErr: errors.New("x: command not found")}
}

// A step of a budget: what is done at a time, and the verdict of the
// budget that follows it.
type step struct {
	at      time.Duration // after t0
	do      string        // record, fail, reserve N, finish N, release N, healthy, unhealthy, check
	used    int
	allowed bool
}

// runSteps runs steps on one service's restart budget (2 in 4h), and
// checks the budget after each.
func runSteps(t *testing.T, r *cooldown.Rules, steps []step) {
	t.Helper()
	for i, st := range steps {
		now := t0.Add(st.at)
		var err error
		var pid int
		verb, _, _ := strings.Cut(st.do, " ")
		fmt.Sscanf(strings.TrimPrefix(st.do, verb), "%d", &pid)
		switch verb {
		case "record":
			_, err = r.Record("web", restart, now, true, "")
		case "fail":
			_, err = r.Record("web", restart, now, false, "exit 1")
		case "reserve":
			_, err = r.Reserve("web", restart, now, pid)
		case "finish":
			err = r.Finish("web", restart, now, now, pid, &supervise.Result{}, 0)
		case "release":
			err = r.Finish("web", restart, now, now, pid, notStarted(), 0)
		case "healthy":
			_, _, err = r.Healthy("web", now)
		case "unhealthy":
			err = r.Unhealthy("web", now)
		case "check":
		default:
			t.Fatalf("step %d: unknown %q", i+1, st.do)
		}
		if err != nil {
			t.Fatalf("step %d (%s): %v", i+1, st.do, err)
		}
		v, err := r.Budgets.Snapshot()
		if err != nil {
			t.Fatal(err)
		}
		got, err := cooldown.Check(v, "web", restart, 1, now)
		if err != nil {
			t.Fatal(err)
		}
		if got.Used != st.used || got.Allowed != st.allowed {
			t.Errorf("step %d (%s at +%s): used %d, allowed %v; want %d, %v", i+1, st.do, st.at, got.Used, got.Allowed, st.used, st.allowed)
		}
	}
}

func TestBudgetSteps(t *testing.T) {
	tests := []struct {
		name  string
		steps []step
	}{
		{"a window slides", []step{
			{0, "record", 1, true},
			{time.Hour, "record", 2, false},
			{4*time.Hour - time.Second, "check", 2, false}, // 3h59m59s old: still counts
			{4 * time.Hour, "check", 1, true},              // exactly 4h old: no longer counts
			{5 * time.Hour, "check", 0, true},
		}},
		{"failures count like successes", []step{
			{0, "fail", 1, true},
			{time.Minute, "fail", 2, false},
		}},
		{"a reservation counts while it runs", []step{
			{0, "reserve 100", 1, true},
			{time.Second, "reserve 101", 2, false},
			{2 * time.Second, "reserve 102", 2, false}, // refused: nothing reserved
			{time.Minute, "finish 100", 2, false},
			{2 * time.Minute, "release 101", 1, true}, // never started: given back
		}},
		{"a healthy streak clears the budget", []step{
			{0, "record", 1, true},
			{time.Second, "record", 2, false},
			{time.Minute, "healthy", 2, false},
			{2 * time.Minute, "unhealthy", 2, false},
			{3 * time.Minute, "healthy", 2, false}, // the streak started again
			{4 * time.Minute, "healthy", 0, true},  // two in a row
		}},
		{"a reservation cleared while it runs is recorded when it ends", []step{
			{0, "reserve 100", 1, true},
			{time.Minute, "healthy", 1, true},
			{2 * time.Minute, "healthy", 0, true},
			{3 * time.Minute, "finish 100", 1, true},
		}},
		{"releasing what is not reserved changes nothing", []step{
			{0, "record", 1, true},
			{time.Minute, "release 100", 1, true},
		}},
	}
	for name, open := range backends(t) {
		t.Run(name, func(t *testing.T) {
			for _, tc := range tests {
				t.Run(tc.name, func(t *testing.T) { runSteps(t, rulesOn(open()), tc.steps) })
			}
		})
	}
}

func TestFinishCompletesTheReservationAtItsTime(t *testing.T) {
	forEach(t, func(t *testing.T, r *cooldown.Rules, b backend) {
		if v, err := r.Reserve("api", redeploy, t0, 100); err != nil || !v.Allowed {
			t.Fatalf("Reserve = %+v, %v", v, err)
		}
		rs := records(t, r, "api", redeploy)
		if len(rs) != 1 || !rs[0].InProgress || rs[0].PID != 100 || !rs[0].Time.Equal(t0) {
			t.Fatalf("records while it runs = %+v; want one in progress for pid 100", rs)
		}
		if err := r.Finish("api", redeploy, t0, t0.Add(time.Minute), 100, &supervise.Result{ExitCode: 1}, 0); err != nil {
			t.Fatal(err)
		}
		rs = records(t, r, "api", redeploy)
		if len(rs) != 1 || rs[0].InProgress || rs[0].PID != 0 || rs[0].Success || rs[0].Error != "exit 1" || !rs[0].Time.Equal(t0) {
			t.Errorf("records = %+v; want the reservation completed as a failure at its own time", rs)
		}
	})
}

func TestDecideNCountsEveryAction(t *testing.T) {
	forEach(t, func(t *testing.T, r *cooldown.Rules, b backend) {
		r.Record("web", restart, t0, true, "")
		if v, err := r.DecideN("web", restart, 1, t0); err != nil || !v.Allowed {
			t.Fatalf("DecideN(1) with 1 of 2 used = %+v, %v; want allowed", v, err)
		}
		if v, _ := r.DecideN("web", restart, 2, t0); v.Allowed {
			t.Errorf("DecideN(2) with 1 of 2 used = %+v; want refused", v)
		}
	})
}

func TestRecordAllAndReserveAllCountEachTime(t *testing.T) {
	forEach(t, func(t *testing.T, r *cooldown.Rules, b backend) {
		web := cooldown.Take{Match: cooldown.Match{Service: "web", Action: restart}, N: 3}
		if err := r.RecordAll([]cooldown.Take{{Match: web.Match, N: 2}}, t0, true, ""); err != nil {
			t.Fatal(err)
		}
		if n := used(t, r, "web", restart, t0); n != 2 {
			t.Errorf("after RecordAll of 2: %d used; want 2", n)
		}
		// Three at once do not fit an unused budget of 2: none is reserved.
		db := cooldown.Take{Match: cooldown.Match{Service: "db", Action: restart}, N: 1}
		three := cooldown.Take{Match: cooldown.Match{Service: "api", Action: restart}, N: 3}
		refused, _, err := r.ReserveAll([]cooldown.Take{db, three}, t0, 100)
		if err != nil || refused == nil || refused.Service != "api" {
			t.Fatalf("ReserveAll(db, api x3) = %v, %v; want api refused", refused, err)
		}
		if n := used(t, r, "db", restart, t0); n != 0 {
			t.Errorf("db has %d used after a refused ReserveAll; want 0", n)
		}
		two := cooldown.Take{Match: cooldown.Match{Service: "api", Action: restart}, N: 2}
		if refused, _, err := r.ReserveAll([]cooldown.Take{db, two}, t0, 100); err != nil || refused != nil {
			t.Fatalf("ReserveAll(db, api x2) = %v, %v; want both reserved", refused, err)
		}
		if n := used(t, r, "api", restart, t0); n != 2 {
			t.Errorf("api has %d used while its two run; want 2", n)
		}
		if err := r.FinishAll([]cooldown.Take{db, two}, t0, t0, 100, notStarted(), 0); err != nil {
			t.Fatal(err)
		}
		if n := used(t, r, "api", restart, t0); n != 0 {
			t.Errorf("api has %d used after its command never started; want 0", n)
		}
	})
}

// TestPruneKeepsWhatBudgetsCount: a write prunes records older than the
// retention, raised to the longest window, from every service it writes
// back; a record in progress stays however old.
func TestPruneKeepsWhatBudgetsCount(t *testing.T) {
	rebuild := store.Action{Name: "rebuild", Field: "rebuilds", Limit: 5, Window: 72 * time.Hour}
	forEach(t, func(t *testing.T, r *cooldown.Rules, b backend) {
		r.Actions = append(r.Actions, rebuild)
		r.Retention = time.Hour
		r.Record("web", rebuild, t0.Add(-80*time.Hour), true, "")
		r.Record("web", rebuild, t0.Add(-70*time.Hour), true, "")
		r.Reserve("web", redeploy, t0.Add(-100*time.Hour), 7) // still in progress
		r.Record("web", restart, t0.Add(-2*time.Hour), true, "")
		if _, err := r.Record("web", restart, t0, true, ""); err != nil {
			t.Fatal(err)
		}
		if rs := records(t, r, "web", rebuild); len(rs) != 1 || !rs[0].Time.Equal(t0.Add(-70*time.Hour)) {
			t.Errorf("rebuilds = %+v; want only the one inside the 72h window", rs)
		}
		if rs := records(t, r, "web", redeploy); len(rs) != 1 || !rs[0].InProgress {
			t.Errorf("redeployments = %+v; want the one in progress kept", rs)
		}
		if rs := records(t, r, "web", restart); len(rs) != 2 {
			t.Errorf("restarts = %+v; want both inside the 4h window", rs)
		}
	})
}

func TestDueMarksOnce(t *testing.T) {
	forEach(t, func(t *testing.T, r *cooldown.Rules, b backend) {
		_, due, err := r.Due("digest", time.Hour, t0, true)
		if err != nil || !due {
			t.Fatalf("first Due = %v, %v; want due", due, err)
		}
		if _, due, _ := r.Due("digest", time.Hour, t0.Add(time.Minute), true); due {
			t.Error("due again a minute after it was marked")
		}
		if last, due, _ := r.Due("digest", time.Hour, t0.Add(time.Hour), false); !due || !last.Equal(t0) {
			t.Errorf("an hour later: due %v, last %v; want due, last %v", due, last, t0)
		}
		if err := r.Mark("run", t0); err != nil {
			t.Fatal(err)
		}
		v, _ := r.Budgets.Snapshot()
		if stamps := v.Stamps(); !slicesContain(stamps, "digest") || !slicesContain(stamps, "run") {
			t.Errorf("stamps = %q; want digest and run", stamps)
		}
	})
}

func slicesContain(s []string, x string) bool {
	for _, e := range s {
		if e == x {
			return true
		}
	}
	return false
}

// TestEveryBackendLogsTheSameEvents: the steps log their events through
// the store, so every backend has the same log of the same calls.
func TestEveryBackendLogsTheSameEvents(t *testing.T) {
	want := []string{
		"cooldown_record web restart success used=1/2",
		"cooldown web restart allowed used=1/2",
		"cooldown web restart refused 2 at once used=1/2",
		"cooldown web restart allowed used=1/2", // the reservation's decision
		"cooldown_record web restart failure exit 1 used=2/2",
		"cooldown_health web healthy 1 in a row",
		"cooldown_health web unhealthy",
		"cooldown_health web healthy 1 in a row",
		"cooldown_health web cleared 2 healthy checks in a row cleared the budgets",
		"mark last_run",
	}
	forEach(t, func(t *testing.T, r *cooldown.Rules, b backend) {
		// A second apart: a log is read in time order.
		at := func(i int) time.Time { return t0.Add(time.Duration(i) * time.Second) }
		r.Record("web", restart, at(0), true, "")
		r.Decide("web", restart, at(1))
		r.DecideN("web", restart, 2, at(2))
		r.Reserve("web", restart, at(3), 9)
		r.Finish("web", restart, at(3), at(4), 9, &supervise.Result{ExitCode: 1}, 0)
		r.Healthy("web", at(5))
		r.Unhealthy("web", at(6))
		r.Healthy("web", at(7))
		r.Healthy("web", at(8))
		r.Mark("run", at(9))
		var got []string
		for _, e := range b.events() {
			s := strings.Join(strings.Fields(strings.Join([]string{e.Event, e.Key, e.Action, e.Outcome, e.Reason, e.Error}, " ")), " ")
			if e.Used != nil {
				s += fmt.Sprintf(" used=%d/%d", *e.Used, *e.Limit)
			}
			got = append(got, s)
		}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("events:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	})
}

// busy is a store whose transactions never get their lock.
type busy struct{ store.Budgets }

func (busy) Update(time.Time, func(store.BudgetTx) (bool, error)) error {
	return fmt.Errorf("cannot lock: %w", store.ErrBusy)
}

func TestDecideFallsBackToASnapshotWhenBusy(t *testing.T) {
	forEach(t, func(t *testing.T, r *cooldown.Rules, b backend) {
		r.Record("web", restart, t0, true, "")
		r.Record("web", restart, t0, true, "")
		var warned []string
		r.Budgets = busy{r.Budgets}
		r.Warn = func(format string, args ...any) { warned = append(warned, fmt.Sprintf(format, args...)) }
		v, err := r.Decide("web", restart, t0.Add(time.Minute))
		if err != nil || v.Allowed {
			t.Fatalf("Decide on a busy store = %+v, %v; want the spent budget refused all the same", v, err)
		}
		if len(warned) != 1 || !strings.Contains(warned[0], "deciding without logging") {
			t.Errorf("warnings = %q", warned)
		}
		if v, _ := r.DecideN("web", restart, 3, t0.Add(5*time.Hour)); v.Allowed || v != (breaker.Verdict{Limit: 2}) {
			t.Errorf("DecideN(3) of a budget of 2 on a busy store = %+v; want refused, never", v)
		}
	})
}
