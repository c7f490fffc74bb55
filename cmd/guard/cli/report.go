package cli

import (
	"bytes"
	"fmt"
	"time"

	"github.com/urfave/cli/v2"

	"guard/config"
	"guard/internal/store"
	"guard/internal/view"
)

func (e *env) reportCommand() *cli.Command {
	return &cli.Command{
		Name:  "report",
		Usage: "the health report: totals, and why each open circuit is open",
		Description: `Summarises every key: how many there are, how many are active (closed),
open or half-open, the total runs and failures, and for each open or half-open
key why it opened, its last error and when it will be tried again; then the
services whose action budgets are spent.

--format json prints the Python guardrails' health report fields
(total_hooks, active_hooks, disabled_hooks, total_executions,
total_failures, disabled_hook_details, global_stats) plus half_open_hooks,
half_open_hook_details and cooldown: an object of services, each as the
services member of 'guard cooldown status --json' has it (in_cooldown,
consecutive_healthy and each action's budget). disabled_hooks counts open circuits;
each detail has command, state, failure_count, consecutive_failures,
last_error, disabled_at, retry_after, open_reason and forced.

Run times come from the event log guard already writes (each "run" event's
duration_ms), over the runs it holds: per key, how many, p50, p95 and max.
The text report lists the 5 slowest hooks, markdown a table of every key,
json "duration_ms": {KEY: {count, p50, p95, max}} (milliseconds), prometheus
the histogram guard_run_duration_seconds{key,le} (buckets from 1ms to 10m).
--slowest N lists only the N slowest hooks (text or json).

Every format counts and names the keys by the same six states as guard
status: closed, open, half-open, open (forced), observe (its circuit
decides, every call runs) and disabled (not guarded: never shown open).
The JSON's "states" counts them; a disabled key is in "disabled_keys", not
among the open ones. For each key not closed the report gives where it
stands against its rule and how many calls were not run, blocked or let
through.

--format markdown gives a section for each open or half-open key, with its
decision trail from the event log. --format prometheus writes the metrics
for node_exporter's textfile collector: guard_key_state{key,state},
guard_circuit_state{key}, guard_runs_total{key,outcome},
guard_skips_total{key,verdict}, guard_run_duration_seconds{key,le},
guard_runs_in_flight{key}, guard_max_concurrent{key},
guard_failure_rate{key}, guard_cooldown_used{service,action} and more, with
HELP and TYPE lines. Labels are the keys themselves, escaped once; counters
and the histogram are kept in the state, so they never go down.
--output writes the report to a file atomically (a temp file renamed into
place), as the textfile collector needs; --output - is stdout, and a
directory is refused.

--format html writes the dashboard: one self-contained page (no external
script, style, font or image; it opens from disk with the network off)
with a tile per circuit (its state in words and colour, its project or
session, its failures against its rule, the next probe, the last error,
the guard reset command), each key's last 24 hours and 7 days from the
event log, run times (p50, p95, slowest first), budgets, and which host
opened what and holds each lease and slot. It reads the same without
JavaScript; its script only sorts and filters. 'guard serve' shows the
same page live. The page is drawn by guard-web, which guard hands the
command over to (see docs/dashboard.md).

Examples:
   guard report
   guard report --format json | jq .disabled_hook_details
   guard report --slowest 5
   guard report --format markdown > guard-report.md
   guard report --format prometheus --output /var/lib/node_exporter/textfile_collector/guard.prom
   guard report --format html --output guard.html && xdg-open guard.html`,
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "format", Value: "text", Usage: "text, json, markdown, prometheus or html"},
			&cli.StringFlag{Name: "output", Usage: "write to `FILE` atomically instead of stdout (- is stdout)"},
			&cli.IntFlag{Name: "slowest", Usage: "list only the `N` slowest hooks (by p95 run time), as text or json"},
		}, stateFlags()...),
		Action: e.report,
	}
}

func (e *env) report(c *cli.Context) error {
	if c.NArg() > 0 {
		return usagef("report takes no arguments; it covers every key (guard status KEY shows one)")
	}
	format := c.String("format")
	switch format {
	case "text", "json", "markdown", "prometheus":
	case "html":
		if c.IsSet("slowest") {
			return usagef("--slowest prints text or json, not html (the page lists every key's run times, slowest first)")
		}
		return e.htmlReport(c)
	default:
		return usagef("--format must be text, json, markdown, prometheus or html, got %q", format)
	}
	cfg, hooks, v, err := e.snapshot(c)
	if err != nil {
		return err
	}
	now := e.Now()
	runs, alive := e.inFlight(hooks)
	sts, err := view.Statuses(v, nil, runs, now, alive)
	if err != nil {
		return fmt.Errorf("%w; the next guard run will move it aside", err)
	}
	e.warnAside(v)
	e.addTimings(cfg, sts)
	if n := c.Int("slowest"); c.IsSet("slowest") {
		if n <= 0 {
			return usagef("--slowest takes a number of hooks above 0, got %d", n)
		}
		t := view.Timings{}
		for _, st := range sts {
			if st.DurationMS != nil {
				t[st.Key] = st.DurationMS
			}
		}
		switch format {
		case "json":
			return view.WriteJSON(e.Stdout, view.SlowHooks(t, n))
		case "text":
			view.WriteSlowest(e.Stdout, t, n, view.KeyWidth)
			return nil
		}
		return usagef("--slowest prints text or json, not %s", format)
	}
	r := e.buildReport(cfg, hooks, v, sts, now)

	var buf bytes.Buffer
	switch format {
	case "json":
		err = view.WriteJSON(&buf, r)
	case "prometheus":
		err = view.WritePrometheus(&buf, r, sts)
	case "markdown":
		events, eerr := store.AllEvents(cfg)
		eerr = e.Handoff(eerr)
		if eerr == nil {
			eerr = view.WriteMarkdown(&buf, r, events, now)
		} else {
			view.WriteMarkdown(&buf, r, noEvents{}, now)
		}
		if err = eerr; err != nil {
			e.Warnf("%v", view.ErrorLine(err))
			err = nil
		}
	default:
		view.WriteText(&buf, r, now)
	}
	if err != nil {
		return err
	}
	out := c.String("output")
	if out == "" {
		out = stdio
	}
	// 0600, as the exports: a report holds command lines and errors, which
	// may hold paths, host names or tokens (hostile-user-3 m6).
	if err := e.writeOutput(out, buf.Bytes(), 0o600, reportFileName[format]); err != nil {
		return fmt.Errorf("cannot write report: %w", err)
	}
	return nil
}

// reportFileName is the file name --output DIR suggests for each format
// (html's is guard-web's, "guard.html").
var reportFileName = map[string]string{"text": "guard.txt", "json": "guard.json", "markdown": "guard.md", "prometheus": "guard.prom"}

// buildReport is the health report of the keys' statuses sts, with the
// budgets of the cooldown state.
func (e *env) buildReport(cfg *config.Config, hooks *store.Hooks, v store.CircuitView, sts []view.KeyStatus, now time.Time) view.Report {
	r := view.BuildReport(sts, v.Stats(), hooks.Where, now)
	var err error
	if r.Cooldown, err = e.cooldownReport(cfg, now); err != nil {
		e.Warnf("cooldown budgets left out of the report: %v", view.ErrorLine(err))
		r.Cooldown = map[string]view.ServiceStatus{}
	}
	return r
}

// cooldownReport returns the budgets of every service in the cooldown
// state, or none if there is no cooldown state.
func (e *env) cooldownReport(cfg *config.Config, now time.Time) (map[string]view.ServiceStatus, error) {
	if !store.CooldownExists(cfg) {
		return map[string]view.ServiceStatus{}, nil
	}
	cd, err := e.openCooldownAt(cfg, "")
	if err == nil {
		var v store.BudgetView
		if v, err = cd.Budgets.Snapshot(); err == nil {
			return serviceStatuses(v, cd.Actions, v.ServiceNames(), now)
		}
	}
	return nil, err
}
