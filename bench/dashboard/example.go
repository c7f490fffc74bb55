package main

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"time"

	"guard/breaker"
	"guard/config"
	"guard/internal/circuit"
	"guard/internal/cooldown"
	"guard/internal/store"
	"guard/internal/store/file"
)

// makeExample writes the state that docs/dashboard.png shows: a week of a
// few hooks on two hosts, each call recorded as guard run records it (at
// its own time), and two services' budgets.
func makeExample(dir string, now time.Time) []string {
	check(os.MkdirAll(dir, 0o755))
	cfg := config.Default(dir)
	cfg.StateFile = filepath.Join(dir, "state.json")
	cfg.Cooldown.StateFile = filepath.Join(dir, "cooldown.json")
	open := func(host string) *store.Hooks {
		h, err := file.OpenHooks(cfg, cfg.StateFile, store.Options{Host: host})
		check(err)
		return h
	}
	hosts := map[string]*store.Hooks{"laptop": open("laptop"), "ci-runner-2": open("ci-runner-2")}
	rng := rand.New(rand.NewPCG(7, 7))
	type hook struct {
		key   string
		host  string
		ms    func() int64
		fail  func(t time.Time) bool
		every time.Duration
	}
	start := now.Add(-7 * 24 * time.Hour)
	hooks := []hook{
		{key: "npx prettier --check .", host: "laptop", every: 25 * time.Minute,
			ms: func() int64 { return 250 + rng.Int64N(200) }, fail: func(time.Time) bool { return false }},
		{key: `bash "$CLAUDE_PROJECT_DIR"/.claude/hooks/typecheck.sh @ /home/dev/webapp`, host: "laptop", every: 40 * time.Minute,
			ms: func() int64 { return 1800 + rng.Int64N(2500) }, fail: func(t time.Time) bool { return rng.IntN(30) == 0 }},
		{key: "python3 .claude/hooks/lint.py", host: "laptop", every: 12 * time.Minute,
			ms: func() int64 { return 120 + rng.Int64N(80) },
			fail: func(t time.Time) bool {
				// Broken for an afternoon three days ago, and again since
				// an hour ago.
				d := now.Sub(t)
				return d < 50*time.Minute || d > 74*time.Hour && d < 78*time.Hour
			}},
		{key: "make test", host: "ci-runner-2", every: 2 * time.Hour,
			ms: func() int64 { return 20000 + rng.Int64N(25000) }, fail: func(time.Time) bool { return rng.IntN(12) == 0 }},
		{key: "./hooks/notify-slack.sh", host: "ci-runner-2", every: 50 * time.Minute,
			ms:   func() int64 { return 300 + rng.Int64N(300) },
			fail: func(t time.Time) bool { d := now.Sub(t); return d < 30*time.Minute && d > 10*time.Minute }},
	}
	type call struct {
		at time.Time
		h  *hook
	}
	var calls []call
	for i := range hooks {
		h := &hooks[i]
		for t := start.Add(time.Duration(rng.Int64N(int64(h.every)))); t.Before(now); t = t.Add(h.every/2 + time.Duration(rng.Int64N(int64(h.every)))) {
			if ago := now.Sub(t) % (24 * time.Hour); ago >= 9*time.Hour && ago < 18*time.Hour {
				continue // nights are quiet
			}
			calls = append(calls, call{t, h})
		}
	}
	sortCalls := func(i, j int) bool { return calls[i].at.Before(calls[j].at) }
	sortSlice(calls, sortCalls)
	for _, c := range calls {
		st := hosts[c.h.host]
		b := cfg.For(c.h.key)
		s := b.Settings(c.h.key)
		at := c.at
		check(st.Circuits.Update(at, func(tx store.CircuitTx) (bool, error) {
			dec, _, err := circuit.Admit(tx, c.h.key, s, at, breaker.Lease{Host: c.h.host, PID: 4242}, func(breaker.Lease) bool { return false })
			if err != nil || !dec.Run {
				return true, err
			}
			r := breaker.Result{Outcome: breaker.Success, Probe: dec.Probe, Lease: dec.Lease}
			exit := 0
			if c.h.fail(at) {
				r.Outcome, r.Error, exit = breaker.Failure, "exit 1: lint.py: E501 line too long (112 > 100 characters)", 1
				if c.h.key != "python3 .claude/hooks/lint.py" {
					r.Error = "exit 1: command failed"
				}
			}
			_, err = circuit.Record(tx, c.h.key, s, at, r, circuit.Run{Exit: exit, Duration: time.Duration(c.h.ms()) * time.Millisecond})
			return true, err
		}))
	}
	trip := now.Add(-2 * time.Hour)
	check(hosts["ci-runner-2"].Circuits.Update(trip, func(tx store.CircuitTx) (bool, error) {
		_, err := circuit.Trip(tx, "./deploy.sh --prod", trip, 0, "release freeze until Monday")
		return true, err
	}))
	cd, err := file.OpenCooldown(cfg, cfg.Cooldown.StateFile, store.ActionList(cfg), store.Options{Host: "ci-runner-2"})
	check(err)
	restart := store.Action{Name: "restart", Field: "restarts", Limit: 2, Window: 4 * time.Hour}
	for _, r := range []struct {
		service string
		ago     time.Duration
	}{{"api", 3 * time.Hour}, {"api", 40 * time.Minute}, {"worker", 2 * time.Hour}} {
		at := now.Add(-r.ago)
		check(cd.Budgets.Update(at, func(tx store.BudgetTx) (bool, error) {
			return true, cooldown.Record(tx, r.service, restart, at, true, "")
		}))
	}
	return []string{"HOME=" + dir, "GUARD_CONFIG=", "GUARD_STATE=" + cfg.StateFile, "GUARD_COOLDOWN_STATE=" + cfg.Cooldown.StateFile, "GUARD_HOST=laptop"}
}
