package cooldownstate

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"guard/internal/jsonx"
	"guard/internal/store"
)

var (
	t0       = time.Date(2025, 6, 15, 12, 0, 0, 0, time.UTC)
	restart  = store.Action{Name: "restart", Field: "restarts", Limit: 2, Window: 4 * time.Hour}
	redeploy = store.Action{Name: "redeploy", Field: "redeployments", Limit: 1, Window: 24 * time.Hour}
	actions  = []store.Action{redeploy, restart}
)

func parse(t *testing.T, s string) *Document {
	t.Helper()
	var d Document
	if err := json.Unmarshal([]byte(s), &d); err != nil {
		t.Fatal(err)
	}
	return &d
}

func marshal(t *testing.T, d *Document) string {
	t.Helper()
	out, err := jsonx.MarshalDocument(d)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

// referenceFile is cooldown.json as the reference design shows it.
const referenceFile = `{
  "services": {
    "nginx": {
      "restarts": [
        {"timestamp": "2025-06-15T08:15:00Z", "success": true},
        {"timestamp": "2025-06-15T10:30:00Z", "success": false, "error": "container exited with code 137 after restart"}
      ],
      "redeployments": [],
      "consecutive_healthy": 0
    },
    "postgres": {
      "restarts": [],
      "redeployments": [{"timestamp": "2025-06-14T22:00:00Z", "success": true}],
      "consecutive_healthy": 1
    }
  },
  "last_run": "2025-06-15T11:00:00Z",
  "last_daily_digest": "2025-06-15T08:00:00Z"
}`

func TestReferenceFile(t *testing.T) {
	d := parse(t, referenceFile)
	// At 12:00 both nginx restarts (08:15 and 10:30) are inside 4h.
	v, err := d.Check("nginx", restart, t0)
	if err != nil {
		t.Fatal(err)
	}
	if v.Allowed || v.Used != 2 || !v.NextAllowed.Equal(time.Date(2025, 6, 15, 12, 15, 0, 0, time.UTC)) {
		t.Errorf("nginx restart = %+v; want spent until 12:15", v)
	}
	v, _ = d.Check("postgres", redeploy, t0)
	if v.Allowed || !v.NextAllowed.Equal(time.Date(2025, 6, 15, 22, 0, 0, 0, time.UTC)) {
		t.Errorf("postgres redeploy = %+v; want spent until 22:00", v)
	}
	if v, _ := d.Check("unknown", restart, t0); !v.Allowed || v.Used != 0 {
		t.Errorf("unknown service = %+v; want a fresh budget", v)
	}
	last, err := d.Last("daily_digest")
	if err != nil || !last.Equal(time.Date(2025, 6, 15, 8, 0, 0, 0, time.UTC)) {
		t.Errorf("Last(daily_digest) = %v, %v", last, err)
	}
}

func TestWindowEdges(t *testing.T) {
	for _, tc := range []struct {
		age     time.Duration
		allowed bool
	}{
		{4 * time.Hour, true},                 // exactly 4h old: no longer counts
		{3*time.Hour + 59*time.Minute, false}, // 3h59m old: still counts
		{4*time.Hour + time.Second, true},     // older
		{3*time.Hour + 59*time.Minute + 59*time.Second, false},
	} {
		d := &Document{}
		d.Record("nginx", restart, actions, t0.Add(-tc.age), true, "")
		d.Record("nginx", restart, actions, t0.Add(-time.Minute), true, "")
		v, _ := d.Check("nginx", restart, t0)
		if v.Allowed != tc.allowed {
			t.Errorf("with a restart %s old: allowed = %v; want %v", tc.age, v.Allowed, tc.allowed)
		}
	}
}

func TestRegistersServiceWithEveryArray(t *testing.T) {
	d := &Document{}
	if err := d.Record("nginx", restart, actions, t0, false, "boom"); err != nil {
		t.Fatal(err)
	}
	d.tidy(t0, 48*time.Hour, actions)
	out := marshal(t, d)
	for _, want := range []string{`"redeployments": []`, `"timestamp": "2025-06-15T12:00:00Z"`, `"success": false`, `"error": "boom"`, `"consecutive_healthy": 0`, `"last_run": null`, `"last_daily_digest": null`} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %s in\n%s", want, out)
		}
	}
}

func TestJqOneLinerFile(t *testing.T) {
	// The reference's jq one-liner on a service that did not exist yet
	// leaves only the array it appended to.
	d := parse(t, `{"services":{"nginx":{"restarts":[{"timestamp":"2025-06-15T10:30:00Z","success":true}]}},"last_run":null,"last_daily_digest":null}`)
	v, err := d.Check("nginx", restart, t0)
	if err != nil || v.Used != 1 || !v.Allowed {
		t.Fatalf("Check = %+v, %v", v, err)
	}
	if err := d.Record("nginx", restart, actions, t0, true, ""); err != nil {
		t.Fatal(err)
	}
	if v, _ := d.Check("nginx", restart, t0); v.Used != 2 || v.Allowed {
		t.Errorf("after a second restart = %+v; want spent", v)
	}
}

func TestPlainTimestampArrays(t *testing.T) {
	d := parse(t, `{"services":{
	  "a": {"restarts": ["2025-06-15T10:00:00Z"]},
	  "b": {"restart_timestamps": ["2025-06-15T10:00:00Z", "2025-06-15T11:00:00+00:00"]},
	  "c": {"redeployment_timestamps": ["2025-06-15T01:00:00Z"], "redeployments": []}
	}}`)
	if v, _ := d.Check("a", restart, t0); v.Used != 1 {
		t.Errorf("a: used %d; want 1 from a plain restarts array", v.Used)
	}
	if v, _ := d.Check("b", restart, t0); v.Used != 2 || v.Allowed {
		t.Errorf("b: %+v; want 2 used from restart_timestamps", v)
	}
	if v, _ := d.Check("c", redeploy, t0); v.Used != 1 || v.Allowed {
		t.Errorf("c: %+v; want 1 used from redeployment_timestamps", v)
	}
	// Appending to a plain array keeps it plain.
	d.Record("a", restart, actions, t0, true, "")
	d.tidy(t0, 48*time.Hour, actions)
	out := marshal(t, d)
	if !strings.Contains(out, "\"restarts\": [\n        \"2025-06-15T10:00:00Z\",\n        \"2025-06-15T12:00:00Z\"\n      ]") {
		t.Errorf("plain array not kept plain:\n%s", out)
	}
	if !strings.Contains(out, `"2025-06-15T11:00:00+00:00"`) {
		t.Errorf("an alias array was rewritten:\n%s", out)
	}
}

func TestReserveAndFinish(t *testing.T) {
	one := store.Action{Name: "redeploy", Field: "redeployments", Limit: 1, Window: 24 * time.Hour}
	d := &Document{}
	v, err := d.Reserve("api", one, actions, t0, 100)
	if err != nil || !v.Allowed {
		t.Fatalf("first Reserve = %+v, %v", v, err)
	}
	// The reservation counts while the command runs.
	if v, _ := d.Reserve("api", one, actions, t0, 200); v.Allowed {
		t.Fatalf("second Reserve = %+v; want refused while the first runs", v)
	}
	out := marshal(t, d)
	if !strings.Contains(out, `"in_progress": true`) || !strings.Contains(out, `"pid": 100`) {
		t.Errorf("reservation not marked:\n%s", out)
	}
	if err := d.Finish("api", one, actions, t0.Add(time.Minute), 100, false, "exit 1: boom"); err != nil {
		t.Fatal(err)
	}
	rs, _ := d.Services["api"].records("redeployments")
	if len(rs) != 1 || rs[0].InProgress || rs[0].PID != 0 || rs[0].Success || rs[0].Error != "exit 1: boom" || !rs[0].Timestamp.Equal(t0) {
		t.Errorf("records = %+v; want the reservation completed as a failure at its own time", rs)
	}
	// A reservation cleared meanwhile is recorded afresh.
	d.Healthy("api", 1, actions, t0)
	d.Finish("api", one, actions, t0.Add(time.Hour), 300, true, "")
	if rs, _ := d.Services["api"].records("redeployments"); len(rs) != 1 || !rs[0].Success || !rs[0].Timestamp.Equal(t0.Add(time.Hour)) {
		t.Errorf("records = %+v; want the finished action recorded", rs)
	}
}

func TestHealthyAndUnhealthy(t *testing.T) {
	d := parse(t, referenceFile)
	streak, cleared, _ := d.Healthy("nginx", 2, actions, t0)
	if streak != 1 || cleared {
		t.Fatalf("first healthy = %d, %v", streak, cleared)
	}
	d.Unhealthy("nginx", actions, t0)
	streak, cleared, _ = d.Healthy("nginx", 2, actions, t0)
	if streak != 1 || cleared {
		t.Fatalf("healthy after unhealthy = %d, %v; want the streak restarted", streak, cleared)
	}
	streak, cleared, _ = d.Healthy("nginx", 2, actions, t0)
	if streak != 0 || !cleared {
		t.Fatalf("second healthy in a row = %d, %v; want cleared", streak, cleared)
	}
	if v, _ := d.Check("nginx", restart, t0); v.Used != 0 || !v.Allowed {
		t.Errorf("after clearing = %+v", v)
	}
	// postgres had 1 already: one more clears it.
	if _, cleared, _ := d.Healthy("postgres", 2, actions, t0); !cleared {
		t.Error("postgres not cleared on its second healthy check")
	}
}

func TestTidyPrunesOldRecords(t *testing.T) {
	d := &Document{}
	d.Record("nginx", restart, actions, t0.Add(-49*time.Hour), true, "")
	d.Record("nginx", restart, actions, t0.Add(-47*time.Hour), true, "")
	d.Reserve("nginx", redeploy, actions, t0.Add(-72*time.Hour), 7) // still in progress: kept
	d.tidy(t0, 48*time.Hour, actions)
	rs, _ := d.Services["nginx"].records("restarts")
	if len(rs) != 1 || !rs[0].Timestamp.Equal(t0.Add(-47*time.Hour)) {
		t.Errorf("restarts = %+v; want only the one younger than 48h", rs)
	}
	if rs, _ := d.Services["nginx"].records("redeployments"); len(rs) != 1 {
		t.Errorf("redeployments = %+v; want the in-progress one kept", rs)
	}
}

func TestUnknownMembersSurvive(t *testing.T) {
	d := parse(t, `{"services":{"nginx":{"restarts":[{"timestamp":"2025-06-15T10:30:00Z","success":true,"tier":2}],"owner":"ops"}},"agent":{"v":3},"last_run":null}`)
	d.Record("nginx", restart, actions, t0, true, "")
	d.tidy(t0, 48*time.Hour, actions)
	out := marshal(t, d)
	for _, want := range []string{`"tier": 2`, `"owner": "ops"`, `"v": 3`} {
		if !strings.Contains(out, want) {
			t.Errorf("lost %s:\n%s", want, out)
		}
	}
}

func TestMarkAndLast(t *testing.T) {
	d := &Document{}
	if last, err := d.Last("daily_digest"); err != nil || !last.IsZero() {
		t.Errorf("Last of unset = %v, %v", last, err)
	}
	d.Mark("daily_digest", t0)
	if last, _ := d.Last("daily_digest"); !last.Equal(t0) {
		t.Errorf("Last = %v; want %v", last, t0)
	}
	if !strings.Contains(marshal(t, d), `"last_daily_digest": "2025-06-15T12:00:00Z"`) {
		t.Error("mark not written as last_daily_digest")
	}
	if store.CheckStamp("Daily Digest") == nil || store.CheckStamp("daily_digest") != nil {
		t.Error("CheckStampName accepts the wrong names")
	}
}

func TestBadArrayIsAnError(t *testing.T) {
	d := parse(t, `{"services":{"nginx":{"restarts":"lots"}}}`)
	if _, err := d.Check("nginx", restart, t0); err == nil || !strings.Contains(err.Error(), "services.nginx.restarts is not an array of records") {
		t.Errorf("Check = %v", err)
	}
	// Other services still work, and the bad field is left alone.
	d.Record("redis", restart, actions, t0, true, "")
	if err := d.tidy(t0, 48*time.Hour, actions); err != nil {
		t.Errorf("tidy = %v", err)
	}
	if !strings.Contains(marshal(t, d), `"restarts": "lots"`) {
		t.Error("the bad field was rewritten")
	}
}

func FuzzDocument(f *testing.F) {
	f.Add([]byte(referenceFile))
	f.Add([]byte(`{"services":{"a":{"restarts":["2025-06-15T10:00:00Z"],"restart_timestamps":[]}}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var d Document
		if json.Unmarshal(data, &d) != nil {
			return
		}
		for _, name := range d.ServiceNames() {
			d.Check(name, restart, t0)
			d.Record(name, restart, actions, t0, true, "")
		}
		d.tidy(t0, 48*time.Hour, actions)
		out, err := jsonx.MarshalDocument(d)
		if err != nil {
			t.Fatalf("Marshal: %v", err)
		}
		var again Document
		if err := json.Unmarshal(out, &again); err != nil {
			t.Fatalf("cannot read what was written: %v\n%s", err, out)
		}
	})
}

// The same actions held in both of Claude Ops' formats count once: the
// interop finding "4 of 2 restarts". A bare time with no record beside it
// still counts.
func TestBothFormatsCountOnce(t *testing.T) {
	d := parse(t, `{"services":{"nginx":{
	  "restarts": [{"timestamp": "2025-06-15T10:00:00Z", "success": true}, {"timestamp": "2025-06-15T11:00:00Z", "success": true}],
	  "restart_timestamps": ["2025-06-15T10:00:00Z", "2025-06-15T11:00:00.250Z"]
	}, "web": {
	  "restarts": [{"timestamp": "2025-06-15T10:00:00Z", "success": true}],
	  "restart_timestamps": ["2025-06-15T10:00:00Z", "2025-06-15T10:30:00Z"]
	}}}`)
	if v, _ := d.Check("nginx", restart, t0); v.Used != 2 || v.Allowed {
		t.Errorf("nginx: used %d; want 2, each action once", v.Used)
	}
	if v, _ := d.Check("web", restart, t0); v.Used != 2 {
		t.Errorf("web: used %d; want 2 (one in both forms, one bare)", v.Used)
	}
}

// Where the file keeps bare arrays, every record, reservation and release
// goes there too, and a healthy streak clears them.
func TestMirrorsIntoBareArrays(t *testing.T) {
	d := parse(t, `{"services":{"old":{"restart_timestamps": ["2025-06-15T11:00:00Z"]}}}`)
	if err := d.Record("new", redeploy, actions, t0, true, ""); err != nil {
		t.Fatal(err)
	}
	if _, err := d.Reserve("old", restart, actions, t0.Add(time.Second), 42); err != nil {
		t.Fatal(err)
	}
	out := marshal(t, d)
	for _, want := range []string{`"redeployment_timestamps": [
        "2025-06-15T12:00:00Z"
      ]`, `"restart_timestamps": [
        "2025-06-15T11:00:00Z",
        "2025-06-15T12:00:01Z"
      ]`} {
		if !strings.Contains(out, want) {
			t.Errorf("no %s in\n%s", want, out)
		}
	}
	if v, _ := d.Check("old", restart, t0.Add(time.Second)); v.Used != 2 {
		t.Errorf("old: used %d; want 2 (the bare one, the reservation once)", v.Used)
	}
	if err := d.Release("old", restart, 42, t0.Add(time.Second)); err != nil {
		t.Fatal(err)
	}
	if v, _ := d.Check("old", restart, t0.Add(time.Second)); v.Used != 1 {
		t.Errorf("old after the release: used %d; want 1", v.Used)
	}
	for range 2 {
		d.Healthy("old", 2, actions, t0)
	}
	if v, _ := d.Check("old", restart, t0); v.Used != 0 {
		t.Errorf("old after two healthy checks: used %d; want 0", v.Used)
	}
	// Tidy prunes bare arrays as it prunes records.
	d.Record("old", restart, actions, t0, true, "")
	d.tidy(t0.Add(72*time.Hour), 48*time.Hour, actions)
	if out := marshal(t, d); strings.Contains(out, "2025-06-15T12:00:00Z") {
		t.Errorf("old times survived retention:\n%s", out)
	}
	// An action configured with timestamps writes them into a file with none.
	named := restart
	named.Timestamps = "restart_timestamps"
	d = parse(t, `{"services":{}}`)
	d.Record("x", named, []store.Action{named}, t0, true, "")
	if out := marshal(t, d); !strings.Contains(out, `"restart_timestamps": [`) {
		t.Errorf("no restart_timestamps:\n%s", out)
	}
}
