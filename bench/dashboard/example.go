package main

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"time"

	"guard/breaker"
	"guard/config"
	_ "guard/config/yamlv3" // configs of any form
	"guard/internal/circuit"
	"guard/internal/cooldown"
	"guard/internal/store"
	"guard/internal/store/file"
)

// exampleConfig is the config of the example: a policy hook that must
// fail closed, a new hook in observe mode, an old one disabled.
const exampleConfig = `hooks:
  - match: "*deny-rm*"
    on_skip: block
  - match: "*new_hook*"
    mode: observe
  - match: "*legacy*"
    mode: disabled
`

// makeExample writes the state that docs/dashboard.png shows: a week of a
// few hooks on two hosts, each call recorded as guard run records it (at
// its own time), with a policy hook whose skips block, a new hook in
// observe mode that would skip, a disabled one whose circuit was open
// before, and two services' budgets.
func makeExample(dir string, now time.Time) []string {
	check(os.MkdirAll(dir, 0o755))
	confPath := filepath.Join(dir, "guardrails.yaml")
	check(os.WriteFile(confPath, []byte(exampleConfig), 0o644))
	cfg, err := config.Load(config.Options{Path: confPath, Home: dir, Getenv: func(string) string { return "" }})
	check(err)
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
		// A policy hook whose script lost its interpreter 40 minutes ago:
		// its skips block.
		{key: "~/.claude/hooks/deny-rm.sh", host: "laptop", every: 4 * time.Minute,
			ms:   func() int64 { return 8 + rng.Int64N(6) },
			fail: func(t time.Time) bool { return now.Sub(t) < 40*time.Minute }},
		// A new hook in observe mode, failing since it was added.
		{key: "node .claude/hooks/new_hook_todo.js", host: "laptop", every: 9 * time.Minute,
			ms:   func() int64 { return 60 + rng.Int64N(40) },
			fail: func(t time.Time) bool { return now.Sub(t) < 3*time.Hour }},
	}
	type call struct {
		at time.Time
		h  *hook
	}
	var calls []call
	for i := range hooks {
		h := &hooks[i]
		from := start
		if h.key == "node .claude/hooks/new_hook_todo.js" {
			from = now.Add(-3 * time.Hour)
		}
		for t := from.Add(time.Duration(rng.Int64N(int64(h.every)))); t.Before(now); t = t.Add(h.every/2 + time.Duration(rng.Int64N(int64(h.every)))) {
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
			if err != nil || !dec.Run && !s.Observe {
				return true, err
			}
			r := breaker.Result{Outcome: breaker.Success, Probe: dec.Probe, Lease: dec.Lease}
			exit := 0
			if c.h.fail(at) {
				r.Outcome, r.Error, exit = breaker.Failure, "exit 1: lint.py: E501 line too long (112 > 100 characters)", 1
				switch c.h.key {
				case "python3 .claude/hooks/lint.py":
				case "~/.claude/hooks/deny-rm.sh":
					r.Error, exit = "exit 126: /usr/bin/env: 'jq': No such file or directory", 126
				case "node .claude/hooks/new_hook_todo.js":
					r.Error = "exit 1: Error: Cannot find module 'globby'"
				default:
					r.Error = "exit 1: command failed"
				}
			}
			_, err = circuit.Record(tx, c.h.key, s, at, r, circuit.Run{Exit: exit, Duration: time.Duration(c.h.ms()) * time.Millisecond})
			return true, err
		}))
	}
	// A hook that broke last week, and was then disabled in the config:
	// its open circuit is left in the state, in force nowhere.
	legacy := "python3 ~/.claude/hooks/legacy_audit.py"
	for i := range 3 {
		at := now.Add(-5*24*time.Hour + time.Duration(i)*time.Minute)
		check(hosts["laptop"].Circuits.Update(at, func(tx store.CircuitTx) (bool, error) {
			s := config.Default(dir).CircuitBreaker.Settings(legacy)
			_, err := circuit.Record(tx, legacy, s, at, breaker.Result{Outcome: breaker.Failure, Error: "exit 1: ImportError: cannot import name 'Mapping' from 'collections'"}, circuit.Run{Exit: 1, Duration: 80 * time.Millisecond})
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
	return []string{"HOME=" + dir, "GUARD_CONFIG=" + confPath, "GUARD_STATE=" + cfg.StateFile, "GUARD_COOLDOWN_STATE=" + cfg.Cooldown.StateFile, "GUARD_HOST=laptop"}
}
