package hookstate

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"guard/breaker"
	"guard/statefile"
)

var t0 = time.Date(2026, 2, 10, 23, 35, 42, 0, time.UTC)

var settings = breaker.Settings{FailureThreshold: 3, SuccessThreshold: 2, Cooldown: 5 * time.Minute, MaxCooldown: time.Hour, HalfOpenMaxCalls: 1}

// pythonFile is hook_state.json as the Python guardrails write it.
const pythonFile = `{
  "hooks": {
    "uv run validate.py": {
      "state": "open",
      "failure_count": 3,
      "consecutive_failures": 3,
      "consecutive_successes": 0,
      "first_failure": "2026-02-10T23:32:15.123456+00:00",
      "last_failure": "2026-02-10T23:35:42.654321+00:00",
      "last_success": null,
      "last_error": "Failed to spawn: No such file or directory",
      "disabled_at": "2026-02-10T23:35:42.654321+00:00",
      "retry_after": "2026-02-10T23:40:42.654321+00:00"
    },
    "good-hook": {
      "state": "closed",
      "failure_count": 0,
      "consecutive_failures": 0,
      "consecutive_successes": 4,
      "first_failure": null,
      "last_failure": null,
      "last_success": "2026-02-10T23:30:00+00:00",
      "last_error": null,
      "disabled_at": null,
      "retry_after": null
    }
  },
  "global_stats": {
    "total_executions": 100,
    "total_failures": 5,
    "hooks_disabled": 1,
    "last_updated": "2026-02-10T23:35:42.654321+00:00"
  }
}`

func TestReadsPythonFile(t *testing.T) {
	var d Document
	if err := json.Unmarshal([]byte(pythonFile), &d); err != nil {
		t.Fatal(err)
	}
	c := d.Circuit("uv run validate.py")
	if c.State != breaker.Open || c.ConsecutiveFailures != 3 || c.LastError != "Failed to spawn: No such file or directory" {
		t.Errorf("circuit = %+v", c)
	}
	want := time.Date(2026, 2, 10, 23, 40, 42, 654321000, time.UTC)
	if !c.RetryAfter.Equal(want) {
		t.Errorf("RetryAfter = %v; want %v", c.RetryAfter, want)
	}
	if d.GlobalStats.TotalExecutions != 100 {
		t.Errorf("total_executions = %d", d.GlobalStats.TotalExecutions)
	}
	// The Python circuit opened at 23:35:42 for 5 minutes: still open at 23:40.
	dec := c.Admit(settings, want.Add(-time.Minute), breaker.Lease{PID: 1}, nil)
	if dec.Run {
		t.Error("a circuit the Python tool opened was not honoured")
	}
}

func TestWritesPythonFieldNames(t *testing.T) {
	var d Document
	json.Unmarshal([]byte(pythonFile), &d)
	d.Record("new hook", settings, t0, breaker.Result{Outcome: breaker.Failure, Error: "exit 1: boom"}, Run{})
	d.tidy(t0, 0)
	out, err := statefile.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	var raw struct {
		Hooks       map[string]map[string]any `json:"hooks"`
		GlobalStats map[string]any            `json:"global_stats"`
	}
	if err := json.Unmarshal(out, &raw); err != nil {
		t.Fatal(err)
	}
	h := raw.Hooks["new hook"]
	for _, k := range []string{"state", "failure_count", "consecutive_failures", "consecutive_successes",
		"first_failure", "last_failure", "last_success", "last_error", "disabled_at", "retry_after"} {
		if _, ok := h[k]; !ok {
			t.Errorf("entry lacks Python field %s", k)
		}
	}
	if h["state"] != "closed" || h["last_success"] != nil || h["last_error"] != "exit 1: boom" || h["last_failure"] != "2026-02-10T23:35:42Z" {
		t.Errorf("entry = %v", h)
	}
	if raw.GlobalStats["total_executions"] != 101.0 || raw.GlobalStats["total_failures"] != 6.0 || raw.GlobalStats["hooks_disabled"] != 1.0 {
		t.Errorf("global_stats = %v", raw.GlobalStats)
	}
	if !strings.Contains(string(out), `"last_updated": "2026-02-10T23:35:42Z"`) {
		t.Error("timestamps are not RFC 3339 UTC seconds with Z")
	}
}

func TestUnknownMembersSurviveEveryLevel(t *testing.T) {
	in := `{"version": 1, "owner": "me",
	  "hooks": {"k": {"state": "half_open", "note": {"by": "person"},
	     "probe_leases": [{"pid": 10, "start_ticks": 5, "acquired": "2026-02-10T23:35:00Z", "expires": null, "host": "a"}],
	     "totals": {"successes": 1, "retries": 7}}},
	  "global_stats": {"total_executions": 1, "python_extra": true}}`
	var d Document
	if err := json.Unmarshal([]byte(in), &d); err != nil {
		t.Fatal(err)
	}
	// A probe from pid 11 fails and re-opens the circuit; pid 10's lease
	// is cleared, but the key's other unknown members stay.
	d.Record("k", settings, t0, breaker.Result{Outcome: breaker.Success}, Run{})
	d.tidy(t0, 0)
	out, _ := statefile.Marshal(d)
	for _, want := range []string{`"owner": "me"`, `"by": "person"`, `"retries": 7`, `"python_extra": true`, `"host": "a"`} {
		if !strings.Contains(string(out), want) {
			t.Errorf("lost %s:\n%s", want, out)
		}
	}
}

func TestLeaseExtraFollowsItsLease(t *testing.T) {
	h := &Hook{ProbeLeases: []Lease{{PID: 10, StartTicks: 5, Extra: statefile.Extra{"host": json.RawMessage(`"a"`)}}}}
	c := h.Circuit()
	c.Leases = append(c.Leases, breaker.Lease{PID: 11, Start: 6})
	h.setCircuit(c)
	if len(h.ProbeLeases) != 2 || string(h.ProbeLeases[0].Extra["host"]) != `"a"` || h.ProbeLeases[1].Extra != nil {
		t.Errorf("leases = %+v", h.ProbeLeases)
	}
}

func TestTidyPrunesIdleClosedKeys(t *testing.T) {
	var d Document
	month := 30 * 24 * time.Hour
	d.Record("old ok", settings, t0.Add(-2*month), breaker.Result{Outcome: breaker.Success}, Run{})
	d.Record("old failing", settings, t0.Add(-2*month), breaker.Result{Outcome: breaker.Failure}, Run{})
	d.Trip("old open", t0.Add(-2*month), 0, "")
	d.Record("recent", settings, t0.Add(-time.Hour), breaker.Result{Outcome: breaker.Success}, Run{})
	d.tidy(t0, month)
	for key, want := range map[string]bool{"old ok": false, "old failing": true, "old open": true, "recent": true} {
		if _, got := d.Hooks[key]; got != want {
			t.Errorf("%q kept = %v; want %v", key, got, want)
		}
	}
	if d.GlobalStats.HooksDisabled != 1 {
		t.Errorf("hooks_disabled = %d; want 1", d.GlobalStats.HooksDisabled)
	}
	d.tidy(t0.Add(10*month), 0) // retention 0 keeps everything
	if len(d.Hooks) != 3 {
		t.Errorf("retention 0 pruned: %v", d.Keys())
	}
}

func TestStoreUpdateAndSnapshot(t *testing.T) {
	path := filepath.Join(t.TempDir(), "hook_state.json")
	s, err := Open(path, statefile.Options{}, 0, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	d, err := s.Snapshot()
	if err != nil || len(d.Hooks) != 0 {
		t.Fatalf("Snapshot of no file = %v, %v", d, err)
	}
	for i := range 3 {
		err := s.Update(t0.Add(time.Duration(i)*time.Second), func(d *Document) (bool, error) {
			d.Record("k", settings, t0, breaker.Result{Outcome: breaker.Failure, Error: "exit 1"}, Run{})
			return true, nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	d, err = s.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	if c := d.Circuit("k"); c.State != breaker.Open {
		t.Errorf("state = %s; want open", c.State)
	}
	if d.Version != 1 || d.GlobalStats.HooksDisabled != 1 || !d.GlobalStats.LastUpdated.Equal(t0.Add(2*time.Second)) {
		t.Errorf("bookkeeping = version %d, %+v", d.Version, d.GlobalStats)
	}
}

func TestNewerVersionIsKept(t *testing.T) {
	var d Document
	json.Unmarshal([]byte(`{"version": 3}`), &d)
	d.tidy(t0, 0)
	if d.Version != 3 {
		t.Errorf("Version = %d; want 3 kept", d.Version)
	}
}

func FuzzDocument(f *testing.F) {
	f.Add([]byte(pythonFile))
	f.Add([]byte(`{"version":1,"hooks":{"a":{"state":"open","probe_leases":[{"pid":1}],"x":[1]}},"y":{}}`))
	f.Add([]byte(`{"hooks":{"a":null}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var d Document
		if err := json.Unmarshal(data, &d); err != nil {
			return
		}
		for _, k := range d.Keys() {
			d.Admit(k, settings, t0, breaker.Lease{PID: 1}, nil)
			d.Record(k, settings, t0, breaker.Result{Outcome: breaker.Failure}, Run{})
		}
		d.tidy(t0, time.Hour)
		out, err := statefile.Marshal(d)
		if err != nil {
			t.Fatalf("Marshal: %v", err)
		}
		var again Document
		if err := json.Unmarshal(out, &again); err != nil {
			t.Fatalf("guard cannot read what it wrote: %v\n%s", err, out)
		}
		out2, _ := statefile.Marshal(again)
		if string(out) != string(out2) {
			t.Fatalf("not stable across a round trip:\n%s\n%s", out, out2)
		}
	})
}
