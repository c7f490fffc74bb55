package view

import (
	"bytes"
	"os"
	"os/exec"
	"testing"
	"time"

	"guard/breaker"
	"guard/internal/jsonx"
	"guard/internal/store"
)

// TestPrometheusParsesWithPromtool checks a report holding every kind of
// family and awkward keys with Prometheus' own parser and linter,
// promtool check metrics (Debian's prometheus package; .ci/run installs
// it): issue 33 #3. Outside CI a machine without it skips.
func TestPrometheusParsesWithPromtool(t *testing.T) {
	promtool, err := exec.LookPath("promtool")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("no promtool on PATH: .ci/run installs Debian's prometheus package")
		}
		t.Skip("no promtool on PATH (Debian: apt-get install prometheus)")
	}
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	var rt breaker.RunTimes
	for _, d := range []time.Duration{3 * time.Millisecond, 120 * time.Millisecond, 2 * time.Second, 15 * time.Minute} {
		rt.Add(d)
	}
	rate, slow := 0.4, 0.1
	var sts []KeyStatus
	for i, k := range []string{`python3 lint.py`, `echo "a\b"`, "two\nlines", "esc\x1b[31m", "ls \u202efdp.exe", `a\\xceb`, "tab\there"} {
		c := breaker.Circuit{State: []breaker.State{"open", "closed", "half_open"}[i%3], Forced: i == 3, RetryAfter: now.Add(time.Minute),
			Totals: breaker.Totals{Successes: 5, Failures: 3, Skips: 4, SkipsBlocked: 1, Rejected: 2, RunTimes: rt}}
		st := testStatus(k, c, []string{"", "observe", "disabled", ""}[i%4])
		st.MaxConcurrent = i % 2 * 2
		st.Running = make([]RunStatus, i%2)
		st.Rule = Standing{Rule: "failure_rate", FailureRate: &rate, FailureRateThreshold: 0.5, SlowCallRate: &slow, SlowCallRateThreshold: 0.3}
		sts = append(sts, st)
	}
	cool := map[string]ServiceStatus{`we"b\`: {ConsecutiveHealthy: 1, Actions: map[string]Verdict{
		"restart": {Used: 2, Limit: 2, InCooldown: true, NextAllowed: jsonx.TimeOf(now.Add(time.Hour))},
	}}}
	r := BuildReport(sts, store.Stats{TotalExecutions: 40, TotalFailures: 12}, "/tmp/state.json", now)
	r.Cooldown = cool
	var buf bytes.Buffer
	if err := WritePrometheus(&buf, r, sts); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(promtool, "check", "metrics")
	cmd.Stdin = bytes.NewReader(buf.Bytes())
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("promtool check metrics: %v\n%s\nof:\n%s", err, out, buf.String())
	}
}
