package postgres

import (
	"testing"
	"time"

	"guard/internal/cooldown"
	"guard/internal/store"
	"guard/internal/store/postgres/pgtest"
	"guard/internal/supervise"
)

// TestBudgetCallsRoundTrips counts the round trips of each budget call
// after the connection's start-up, as guard cooldown makes them, one
// process (one connection) each, on a database that already holds the
// service: the rules are guard's, in internal/cooldown, and the backend
// only reads and writes rows, so a call costs the same round trips however
// the rules are written (issue 35: they must not grow).
func TestBudgetCallsRoundTrips(t *testing.T) {
	srv := pgtest.Shared(t)
	u := srv.NewDB(t)
	if err := open(t, u).Ping(); err != nil { // the schema, made beforehand
		t.Fatal(err)
	}
	restart := store.Action{Name: "restart", Field: "restarts", Limit: 3, Window: 4 * time.Hour}
	redeploy := store.Action{Name: "redeploy", Field: "redeployments", Limit: 1, Window: 24 * time.Hour}
	actions := []store.Action{restart, redeploy}
	now := time.Now()
	ran := &supervise.Result{ExitCode: 0}
	web := cooldown.Take{Match: cooldown.Match{Service: "web", Action: restart}, N: 1}
	db := cooldown.Take{Match: cooldown.Match{Service: "db", Action: restart}, N: 1}
	calls := []struct {
		name string
		call func(r *cooldown.Rules) error
		want int64
	}{
		// The first call makes the service: every later one finds it.
		{"record", func(r *cooldown.Rules) error { _, err := r.Record("web", restart, now, true, ""); return err }, 3},
		{"check", func(r *cooldown.Rules) error { _, err := r.Decide("web", restart, now); return err }, 3},
		{"decide 2", func(r *cooldown.Rules) error { _, err := r.DecideN("web", restart, 2, now); return err }, 3},
		{"reserve", func(r *cooldown.Rules) error { _, err := r.Reserve("web", restart, now, 7); return err }, 3},
		{"finish", func(r *cooldown.Rules) error { return r.Finish("web", restart, now, now, 7, ran, 0) }, 3},
		{"reserve two services", func(r *cooldown.Rules) error { _, _, err := r.ReserveAll([]cooldown.Take{web, db}, now, 8); return err }, 4},
		{"finish two services", func(r *cooldown.Rules) error { return r.FinishAll([]cooldown.Take{web, db}, now, now, 8, ran, 0) }, 4},
		{"healthy", func(r *cooldown.Rules) error { _, _, err := r.Healthy("web", now); return err }, 3},
		{"unhealthy", func(r *cooldown.Rules) error { return r.Unhealthy("web", now) }, 3},
		{"mark", func(r *cooldown.Rules) error { return r.Mark("run", now) }, 3},
		{"due and mark", func(r *cooldown.Rules) error { _, _, err := r.Due("digest", time.Hour, now, true); return err }, 3},
		{"due", func(r *cooldown.Rules) error { _, _, err := r.Due("digest", time.Hour, now, false); return err }, 1},
	}
	for _, c := range calls {
		p := pgtest.NewProxy(t, srv.Addr())
		conn := openWith(t, via(t, u, p.Addr), Settings{ConnectTimeout: time.Second, EventRetention: time.Hour})
		if err := conn.Ping(); err != nil {
			t.Fatal(err)
		}
		start := p.Requests.Load()
		r := &cooldown.Rules{Budgets: conn.Budgets(actions), Actions: actions, ResetAfterHealthy: 5, Retention: 48 * time.Hour}
		if err := c.call(r); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if n := p.Requests.Load() - start; n != c.want {
			t.Errorf("%s made %d round trips; want %d", c.name, n, c.want)
		}
	}
}
