package hookstate

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"guard/breaker"
	"guard/internal/circuit"
	"guard/internal/jsonx"
	"guard/internal/store"
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
	c, _ := d.Circuit("uv run validate.py")
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
	mustRecord(t, &d, "new hook", settings, t0, breaker.Result{Outcome: breaker.Failure, Error: "exit 1: boom"}, circuit.Run{})
	d.Tidy(t0, Retention{})
	out, err := d.MarshalState()
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
	if h["state"] != "closed" || h["last_success"] != nil || h["last_error"] != "exit 1: boom" || h["last_failure"] != "2026-02-10T23:35:42+00:00" {
		t.Errorf("entry = %v", h)
	}
	if raw.GlobalStats["total_executions"] != 101.0 || raw.GlobalStats["total_failures"] != 6.0 || raw.GlobalStats["hooks_disabled"] != 1.0 {
		t.Errorf("global_stats = %v", raw.GlobalStats)
	}
	if !strings.Contains(string(out), `"last_updated": "2026-02-10T23:35:42+00:00"`) {
		t.Error("timestamps are not UTC seconds with +00:00, as Python 3.10 reads them")
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
	mustRecord(t, &d, "k", settings, t0, breaker.Result{Outcome: breaker.Success}, circuit.Run{})
	d.Tidy(t0, Retention{})
	out, _ := d.MarshalState()
	for _, want := range []string{`"owner": "me"`, `"by": "person"`, `"retries": 7`, `"python_extra": true`, `"host": "a"`} {
		if !strings.Contains(string(out), want) {
			t.Errorf("lost %s:\n%s", want, out)
		}
	}
}

func mustRecord(t *testing.T, d *Document, key string, s breaker.Settings, now time.Time, r breaker.Result, run circuit.Run) {
	t.Helper()
	if _, err := circuit.Record(d, key, s, now, r, run); err != nil {
		t.Fatal(err)
	}
}

func TestLeaseExtraFollowsItsLease(t *testing.T) {
	h := &Hook{ProbeLeases: []Lease{{PID: 10, StartTicks: 5, Extra: jsonx.Extra{"host": json.RawMessage(`"a"`)}}}}
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
	mustRecord(t, &d, "old ok", settings, t0.Add(-2*month), breaker.Result{Outcome: breaker.Success}, circuit.Run{})
	mustRecord(t, &d, "old failing", settings, t0.Add(-2*month), breaker.Result{Outcome: breaker.Failure}, circuit.Run{})
	circuit.Trip(&d, "old open", t0.Add(-2*month), 0, "")
	mustRecord(t, &d, "recent", settings, t0.Add(-time.Hour), breaker.Result{Outcome: breaker.Success}, circuit.Run{})
	d.Tidy(t0, Retention{Idle: month})
	for key, want := range map[string]bool{"old ok": false, "old failing": true, "old open": true, "recent": true} {
		if got := d.Has(key); got != want {
			t.Errorf("%q kept = %v; want %v", key, got, want)
		}
	}
	if d.GlobalStats.HooksDisabled != 1 {
		t.Errorf("hooks_disabled = %d; want 1", d.GlobalStats.HooksDisabled)
	}
	d.Tidy(t0.Add(10*month), Retention{}) // retention 0 keeps everything
	if d.Len() != 3 {
		t.Errorf("retention 0 pruned: %v", d.Keys())
	}
}

// TestTidyPrunesEndedSessions covers issue 24's session expiry: a key of
// one Claude Code session (scope: session) idle past session retention is
// pruned whatever its state, since its session has ended; one still in use,
// or with a probe running, is kept.
func TestTidyPrunesEndedSessions(t *testing.T) {
	var d Document
	day := 24 * time.Hour
	ended := "lint" + store.SessionSep + "abc"
	failing := "lint" + store.SessionSep + "def"
	live := "lint" + store.SessionSep + "ghi"
	probing := "lint" + store.SessionSep + "jkl"
	mustRecord(t, &d, ended, settings, t0.Add(-2*day), breaker.Result{Outcome: breaker.Success}, circuit.Run{})
	circuit.Trip(&d, failing, t0.Add(-2*day), 0, "")
	mustRecord(t, &d, live, settings, t0.Add(-time.Hour), breaker.Result{Outcome: breaker.Failure}, circuit.Run{})
	circuit.Trip(&d, probing, t0.Add(-2*day), time.Minute, "")
	if dec, _, err := circuit.Admit(&d, probing, settings, t0.Add(-2*day+2*time.Minute), breaker.Lease{PID: 1, Expires: t0.Add(day)}, func(breaker.Lease) bool { return true }); err != nil || !dec.Probe {
		t.Fatalf("Admit = %+v, %v; want a probe", dec, err)
	}
	mustRecord(t, &d, "lint", settings, t0.Add(-2*day), breaker.Result{Outcome: breaker.Success}, circuit.Run{})
	d.Tidy(t0, Retention{Idle: 30 * day, Session: day})
	for key, want := range map[string]bool{ended: false, failing: false, live: true, probing: true, "lint": true} {
		if got := d.Has(key); got != want {
			t.Errorf("%q kept = %v; want %v", key, got, want)
		}
	}
}

func TestNewerVersionIsKept(t *testing.T) {
	var d Document
	json.Unmarshal([]byte(`{"version": 3}`), &d)
	d.Tidy(t0, Retention{})
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
			if _, _, err := circuit.Admit(&d, k, settings, t0, breaker.Lease{PID: 1}, nil); err != nil {
				return // an entry that does not decode: Update would move the file aside
			}
			circuit.Record(&d, k, settings, t0, breaker.Result{Outcome: breaker.Failure}, circuit.Run{})
		}
		d.Tidy(t0, Retention{Idle: time.Hour})
		out, err := d.MarshalState()
		if err != nil {
			t.Fatalf("Marshal: %v", err)
		}
		var again Document
		if err := json.Unmarshal(out, &again); err != nil {
			t.Fatalf("guard cannot read what it wrote: %v\n%s", err, out)
		}
		out2, _ := again.MarshalState()
		if string(out) != string(out2) {
			t.Fatalf("not stable across a round trip:\n%s\n%s", out, out2)
		}
	})
}

func TestUntouchedEntriesAreCopiedAsTheyWere(t *testing.T) {
	// Entries as another writer left them: compact, with microseconds.
	in := `{"version":1,"hooks":{"a":{"state":"closed","last_success":"2026-02-10T23:30:00.123456+00:00","x":1},` +
		`"b":{"state":"open","failure_count":3,"retry_after":"2999-01-01T00:00:00.5+00:00"},"c":{"state":"closed"}},"global_stats":{"hooks_disabled":1}}`
	var d Document
	if err := d.UnmarshalState([]byte(in)); err != nil {
		t.Fatal(err)
	}
	mustRecord(t, &d, "c", settings, t0, breaker.Result{Outcome: breaker.Success}, circuit.Run{})
	d.GlobalStats.LastSweep.Time = t0 // no sweep on this write
	d.Tidy(t0, Retention{})
	out, err := d.MarshalState()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`"a": {"state":"closed","last_success":"2026-02-10T23:30:00.123456+00:00","x":1}`,
		`"b": {"state":"open","failure_count":3,"retry_after":"2999-01-01T00:00:00.5+00:00"}`,
		"\"c\": {\n      \"state\": \"closed\",",
	} {
		if !strings.Contains(string(out), want) {
			t.Errorf("missing %s in\n%s", want, out)
		}
	}
	// Keys keep their order, and the result is valid JSON guard reads back.
	if strings.Index(string(out), `"a"`) > strings.Index(string(out), `"b"`) {
		t.Error("key order changed")
	}
	var again Document
	if err := json.Unmarshal(out, &again); err != nil || again.Len() != 3 {
		t.Fatalf("cannot read it back: %v", err)
	}
}

func TestOpenCountKeptInStep(t *testing.T) {
	var d Document
	s := settings
	s.FailureThreshold = 1
	d.Tidy(t0, Retention{}) // a first sweep
	mustRecord(t, &d, "a", s, t0, breaker.Result{Outcome: breaker.Failure}, circuit.Run{})
	mustRecord(t, &d, "b", s, t0, breaker.Result{Outcome: breaker.Failure}, circuit.Run{})
	if d.GlobalStats.HooksDisabled != 2 {
		t.Errorf("hooks_disabled = %d; want 2", d.GlobalStats.HooksDisabled)
	}
	circuit.Reset(&d, "a", t0)
	if d.GlobalStats.HooksDisabled != 1 {
		t.Errorf("hooks_disabled = %d; want 1 after a reset", d.GlobalStats.HooksDisabled)
	}
}

func TestSweepAtMostHourly(t *testing.T) {
	var d Document
	month := 30 * 24 * time.Hour
	mustRecord(t, &d, "old", settings, t0.Add(-2*month), breaker.Result{Outcome: breaker.Success}, circuit.Run{})
	d.GlobalStats.LastSweep.Time = t0.Add(-time.Minute)
	d.Tidy(t0, Retention{Idle: month})
	if !d.Has("old") {
		t.Error("pruned within the hour of the last sweep")
	}
	d.Tidy(t0.Add(time.Hour), Retention{Idle: month})
	if d.Has("old") {
		t.Error("not pruned an hour after the last sweep")
	}
	if !d.GlobalStats.LastSweep.Equal(t0.Add(time.Hour)) {
		t.Errorf("last_sweep = %v", d.GlobalStats.LastSweep)
	}
}

// BenchmarkUpdateOneKeyOf1000 is the work of one guard run's update on a
// state of 1,000 keys: read the file guard wrote, record one outcome,
// write it back. Unsealed is the same for a file another tool wrote, which
// is checked and split in full.
func BenchmarkUpdateOneKeyOf1000(b *testing.B) {
	var d Document
	for i := range 1000 {
		circuit.Record(&d, fmt.Sprintf("uv run check_%d.py --strict", i), settings, t0, breaker.Result{Outcome: breaker.Success}, circuit.Run{})
	}
	d.Tidy(t0, Retention{})
	sealed, _ := d.MarshalState()
	unsealed, _ := Unseal(sealed)
	unsealed = append(append([]byte(nil), unsealed[:len(unsealed)-2]...), "\n}\n"...)
	for _, bc := range []struct {
		name string
		data []byte
	}{{"sealed", sealed}, {"unsealed", unsealed}} {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(bc.data)))
			for b.Loop() {
				var d Document
				if err := d.UnmarshalState(bc.data); err != nil {
					b.Fatal(err)
				}
				circuit.Record(&d, "uv run check_500.py --strict", settings, t0, breaker.Result{Outcome: breaker.Success}, circuit.Run{})
				d.Tidy(t0, Retention{})
				if _, err := d.MarshalSegments(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func TestRateRuleFieldsRoundTrip(t *testing.T) {
	t6 := time.Date(2026, 11, 23, 6, 0, 0, 0, time.UTC)
	h := &Hook{State: "closed", CallBuckets: []breaker.Bucket{
		{Start: t6, Calls: 12, Failed: 3},
		{Start: t6.Add(10 * time.Second), Calls: 5, Failed: 1, Slow: 2},
	}, RecentCalls: "sfs", TrialFailures: 2}
	out, err := h.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"call_buckets":{"from":"2026-11-23T06:00:00Z","counts":[[0,12,3,0],[10,5,1,2]]}`, `"recent_calls":"sfs"`, `"trial_failures":2`} {
		if !strings.Contains(string(out), want) {
			t.Errorf("no %s in %s", want, out)
		}
	}
	var back Hook
	if err := back.UnmarshalJSON(out); err != nil {
		t.Fatal(err)
	}
	if c := back.Circuit(); !slices.Equal(c.Calls, h.CallBuckets) || c.Recent != "sfs" || c.TrialFailures != 2 {
		t.Errorf("read back %+v", c)
	}
	for _, bad := range []string{`{"calls": ["yesterday ok"]}`, `{"calls": ["2026-11-23T06:00:00Z maybe"]}`, `{"recent_calls": "fxs"}`,
		`{"call_buckets": {"from": "yesterday", "counts": []}}`, `{"call_buckets": {"from": "2026-11-23T06:00:00Z", "counts": [[0, 1, 2]]}}`} {
		if err := (&Hook{}).UnmarshalJSON([]byte(bad)); err == nil {
			t.Errorf("%s read without an error", bad)
		}
	}
	if err := (&Hook{State: "closed", CallBuckets: []breaker.Bucket{{Start: t6, Calls: 1, Failed: 2}}}).Check(); err == nil {
		t.Error("a bucket with more failures than calls checked out")
	}
}

// A state written before buckets keeps a stamp per call ("calls"): it is
// read into buckets, and written back as buckets only.
func TestStampedCallsAreReadIntoBuckets(t *testing.T) {
	var h Hook
	if err := h.UnmarshalJSON([]byte(`{"state":"closed","calls":["2026-11-23T06:00:01+00:00 ok","2026-11-23T06:00:01+00:00 failed slow","2026-11-23T06:00:02+00:00 failed"]}`)); err != nil {
		t.Fatal(err)
	}
	c := h.Circuit()
	if calls, failed, slow := breaker.SumBuckets(c.Calls); calls != 3 || failed != 2 || slow != 1 {
		t.Errorf("read %d calls, %d failed, %d slow; want 3, 2, 1", calls, failed, slow)
	}
	h.setCircuit(c)
	out, _ := h.MarshalJSON()
	if strings.Contains(string(out), `"calls"`) || !strings.Contains(string(out), `"call_buckets"`) {
		t.Errorf("written back as %s; want buckets only", out)
	}
}

// TestBusyRateRuleKeyStaysSmall: a key under a rate rule that runs far
// more often than the rule needs keeps its state small (issue 24: under
// 2 KB), where a stamp a call made 41 KB.
func TestBusyRateRuleKeyStaysSmall(t *testing.T) {
	s := settings
	s.FailureRate, s.MinimumCalls, s.FailureWindow = 0.9, 10, 10*time.Minute
	var d Document
	now := t0
	for i := range 20000 { // a call every 30 ms for 10 minutes
		now = now.Add(30 * time.Millisecond)
		r := breaker.Result{Outcome: breaker.Success}
		if i%7 == 0 {
			r = breaker.Result{Outcome: breaker.Failure, Error: "exit 1: flaky"}
		}
		mustRecord(t, &d, "busy", s, now, r, circuit.Run{Exit: 1})
	}
	d.Tidy(now, Retention{})
	out, err := d.MarshalState()
	if err != nil {
		t.Fatal(err)
	}
	h, _ := d.Hook("busy")
	entry, _ := h.MarshalJSON()
	t.Logf("%d bytes", len(entry))
	if len(entry) >= 2048 {
		t.Errorf("a busy key under a rate rule weighs %d bytes; want under 2 KB:\n%s", len(entry), entry)
	}
	if len(out) >= 4096 {
		t.Errorf("the state file weighs %d bytes", len(out))
	}
}

func TestNegativeTrialFailuresDoNotCheckOut(t *testing.T) {
	if err := (&Hook{State: "half_open", TrialFailures: -1}).Check(); err == nil {
		t.Error("a negative trial_failures checked out")
	}
}

// TestDisabledAndLastStartRoundTrip: guard disable's mark and min_interval's
// last start survive the file, with members guard does not know kept
// (issue 34, items 2 and 7); the last start to the millisecond, rounded
// up, for an interval shorter than a second (TE item 4: min_interval:
// 500ms was kept to the second and waited up to 1.5s).
func TestDisabledAndLastStartRoundTrip(t *testing.T) {
	var d Document
	circuit.Trip(&d, "k", t0, 0, "")
	if _, _, err := circuit.Disable(&d, "k", t0.Add(time.Second), circuit.Manual{User: "ann", Host: "box", PID: 42, Reason: "INC-7"}); err != nil {
		t.Fatal(err)
	}
	c, _ := d.Circuit("k")
	c.LastStart = t0.Add(1500*time.Millisecond + 250*time.Microsecond)
	d.Put("k", c)
	data, err := d.MarshalState()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"last_start": "2026-02-10T23:35:43.501+00:00"`, `"user": "ann"`, `"reason": "INC-7"`, `"pid": 42`} {
		if !strings.Contains(string(data), want) {
			t.Errorf("no %s in\n%s", want, data)
		}
	}
	data = []byte(strings.Replace(string(data), `"reason": "INC-7"`, `"reason": "INC-7", "ticket": "T-1"`, 1))
	var back Document
	if err := back.UnmarshalState(data); err != nil {
		t.Fatal(err)
	}
	c, _ = back.Circuit("k")
	if c.Disabled == nil || c.Disabled.User != "ann" || c.Disabled.Host != "box" || c.Disabled.PID != 42 || !c.Disabled.Since.Equal(t0.Add(time.Second)) {
		t.Fatalf("read back %+v", c.Disabled)
	}
	if want := t0.Add(1501 * time.Millisecond); !c.LastStart.Equal(want) {
		t.Errorf("last_start = %v; want %v, rounded up to the millisecond", c.LastStart, want)
	}
	if c.State != breaker.Open || c.Shown() != breaker.Disabled {
		t.Errorf("state %s, shown %s", c.State, c.Shown())
	}
	back.Put("k", c)
	again, _ := back.MarshalState()
	if !strings.Contains(string(again), `"ticket": "T-1"`) {
		t.Errorf("the disabled mark's unknown member was lost:\n%s", again)
	}
	for raw, disabled := range map[string]bool{`{"disabled": true}`: true, `{"disabled": false}`: false, `{"disabled": null}`: false, `{"disabled": {}}`: true} {
		var h Hook
		if err := h.UnmarshalJSON([]byte(raw)); err != nil {
			t.Errorf("%s: %v", raw, err)
		}
		if got := h.Circuit().Disabled != nil; got != disabled {
			t.Errorf("%s: disabled = %v; want %v", raw, got, disabled)
		}
	}
}

// TestTidyKeepsDisabledKeys: pruning a key disabled by hand would turn
// guard back on for it.
func TestTidyKeepsDisabledKeys(t *testing.T) {
	var d Document
	month := 30 * 24 * time.Hour
	session := "lint" + store.SessionSep + "abc"
	for _, k := range []string{"off", session} {
		mustRecord(t, &d, k, settings, t0.Add(-2*month), breaker.Result{Outcome: breaker.Success}, circuit.Run{})
		if _, _, err := circuit.Disable(&d, k, t0.Add(-2*month), circuit.Manual{}); err != nil {
			t.Fatal(err)
		}
	}
	d.Tidy(t0, Retention{Idle: month, Session: 24 * time.Hour})
	if !d.Has("off") || d.Has(session) {
		t.Errorf("kept: off %v, %s %v; want the disabled key kept, the ended session's pruned", d.Has("off"), session, d.Has(session))
	}
}
