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

// recs returns service's records of a in d, failing the test on an error.
func recs(t *testing.T, d *Document, service string, a store.Action) []store.Record {
	t.Helper()
	rs, err := d.Records(service, a)
	if err != nil {
		t.Fatal(err)
	}
	return rs
}

// add appends a new record at at to service's records of a.
func add(t *testing.T, d *Document, service string, a store.Action, r store.Record) {
	t.Helper()
	if err := d.PutRecords(service, a, actions, append(recs(t, d, service, a), r)); err != nil {
		t.Fatal(err)
	}
}

// times lists records as "TIME" (bare ones "bare TIME", foreign ones
// "foreign ...", unreadable ones "unreadable").
func times(rs []store.Record) string {
	var out []string
	for _, r := range rs {
		s := r.Time.UTC().Format("15:04:05")
		if r.Bare {
			s = "bare " + s
		}
		if r.Foreign {
			s = "foreign " + s
		}
		if r.Unreadable {
			s = "unreadable"
		}
		if r.InProgress {
			s += " in progress"
		}
		out = append(out, s)
	}
	return strings.Join(out, ", ")
}

func TestReferenceFile(t *testing.T) {
	d := parse(t, referenceFile)
	rs := recs(t, d, "nginx", restart)
	if len(rs) != 2 || !rs[0].Time.Equal(time.Date(2025, 6, 15, 8, 15, 0, 0, time.UTC)) || !rs[0].Success ||
		rs[1].Success || rs[1].Error != "container exited with code 137 after restart" || rs[0].Bare || rs[0].Foreign {
		t.Errorf("nginx restarts = %+v", rs)
	}
	if got := times(recs(t, d, "postgres", redeploy)); got != "22:00:00" {
		t.Errorf("postgres redeployments = %s", got)
	}
	if rs := recs(t, d, "unknown", restart); rs != nil {
		t.Errorf("unknown service = %+v; want none", rs)
	}
	if d.Streak("postgres") != 1 || d.Streak("unknown") != 0 {
		t.Errorf("streaks = %d, %d", d.Streak("postgres"), d.Streak("unknown"))
	}
	last, err := d.Last("daily_digest")
	if err != nil || !last.Equal(time.Date(2025, 6, 15, 8, 0, 0, 0, time.UTC)) {
		t.Errorf("Last(daily_digest) = %v, %v", last, err)
	}
}

func TestRegistersServiceWithEveryArray(t *testing.T) {
	d := &Document{}
	add(t, d, "nginx", restart, store.Record{Time: t0, Error: "boom"})
	d.Complete()
	out := marshal(t, d)
	for _, want := range []string{`"redeployments": []`, `"timestamp": "2025-06-15T12:00:00Z"`, `"success": false`, `"error": "boom"`, `"consecutive_healthy": 0`, `"last_run": null`, `"last_daily_digest": null`} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %s in\n%s", want, out)
		}
	}
	// A streak registers a service too.
	if err := d.PutStreak("web", 1, actions); err != nil {
		t.Fatal(err)
	}
	if s := d.Services["web"]; s == nil || s.Extra["restarts"] == nil || s.Extra["redeployments"] == nil || s.ConsecutiveHealthy != 1 {
		t.Errorf("web after PutStreak = %+v", s)
	}
}

// A put that only removes records registers nothing: an entry another tool
// wrote keeps the arrays it had.
func TestRemovingRegistersNothing(t *testing.T) {
	d := parse(t, `{"services":{"nginx":{"restarts":[{"timestamp":"2025-06-15T10:30:00Z","success":true},{"timestamp":"2025-06-15T11:30:00Z","success":true}]}}}`)
	rs := recs(t, d, "nginx", restart)
	if err := d.PutRecords("nginx", restart, actions, rs[1:]); err != nil {
		t.Fatal(err)
	}
	if _, ok := d.Services["nginx"].Extra["redeployments"]; ok {
		t.Error("removing a record gave the entry a redeployments array")
	}
	if got := times(recs(t, d, "nginx", restart)); got != "11:30:00" {
		t.Errorf("restarts = %s", got)
	}
}

func TestJqOneLinerFile(t *testing.T) {
	// The reference's jq one-liner on a service that did not exist yet
	// leaves only the array it appended to.
	d := parse(t, `{"services":{"nginx":{"restarts":[{"timestamp":"2025-06-15T10:30:00Z","success":true}]}},"last_run":null,"last_daily_digest":null}`)
	if got := times(recs(t, d, "nginx", restart)); got != "10:30:00" {
		t.Fatalf("restarts = %s", got)
	}
	add(t, d, "nginx", restart, store.Record{Time: t0, Success: true})
	if got := times(recs(t, d, "nginx", restart)); got != "10:30:00, 12:00:00" {
		t.Errorf("after a second restart = %s", got)
	}
	if !strings.Contains(marshal(t, d), `"redeployments": []`) {
		t.Error("adding a record did not register the service's other array")
	}
}

func TestPlainTimestampArrays(t *testing.T) {
	d := parse(t, `{"services":{
	  "a": {"restarts": ["2025-06-15T10:00:00Z"]},
	  "b": {"restart_timestamps": ["2025-06-15T10:00:00Z", "2025-06-15T11:00:00+00:00"]},
	  "c": {"redeployment_timestamps": ["2025-06-15T01:00:00Z"], "redeployments": []}
	}}`)
	for _, tc := range []struct {
		service string
		a       store.Action
		want    string
	}{
		{"a", restart, "bare 10:00:00"},
		{"b", restart, "foreign bare 10:00:00, foreign bare 11:00:00"},
		{"c", redeploy, "foreign bare 01:00:00"},
	} {
		if got := times(recs(t, d, tc.service, tc.a)); got != tc.want {
			t.Errorf("%s: %s; want %s", tc.service, got, tc.want)
		}
	}
	// Appending to a plain array keeps it plain.
	add(t, d, "a", restart, store.Record{Time: t0, Success: true})
	out := marshal(t, d)
	if !strings.Contains(out, "\"restarts\": [\n        \"2025-06-15T10:00:00Z\",\n        \"2025-06-15T12:00:00Z\"\n      ]") {
		t.Errorf("plain array not kept plain:\n%s", out)
	}
	if !strings.Contains(out, `"2025-06-15T11:00:00+00:00"`) {
		t.Errorf("an alias array was rewritten:\n%s", out)
	}
	// A bare record keeps nothing but its time: a change to it is not kept.
	rs := recs(t, d, "a", restart)
	rs[0].Error, rs[0].InProgress = "x", true
	if err := d.PutRecords("a", restart, actions, rs); err != nil {
		t.Fatal(err)
	}
	if got := times(recs(t, d, "a", restart)); got != "bare 10:00:00, bare 12:00:00" {
		t.Errorf("after changing a bare record: %s", got)
	}
}

func TestPutRecordsChangesARecordWhereItIs(t *testing.T) {
	d := parse(t, `{"services":{"nginx":{"restarts":[{"timestamp":"2025-06-15T10:30:00Z","success":false,"in_progress":true,"pid":7,"tier":2},{"timestamp":"2025-06-15T11:00:00Z","success":true}]}}}`)
	rs := recs(t, d, "nginx", restart)
	rs[0].InProgress, rs[0].PID, rs[0].Success = false, 0, true
	if err := d.PutRecords("nginx", restart, actions, rs); err != nil {
		t.Fatal(err)
	}
	out := marshal(t, d)
	want := `"restarts": [
        {
          "timestamp": "2025-06-15T10:30:00Z",
          "success": true,
          "tier": 2
        },
        {
          "timestamp": "2025-06-15T11:00:00Z",
          "success": true
        }
      ]`
	if !strings.Contains(out, want) {
		t.Errorf("want\n%s\nin\n%s", want, out)
	}
}

// A record's Ref says where it is kept in the document as it was read: a
// put of records from before an earlier put of the same action fails
// rather than write the wrong records.
func TestStaleRecordsAreRefused(t *testing.T) {
	d := parse(t, referenceFile)
	old := recs(t, d, "nginx", restart)
	if err := d.PutRecords("nginx", restart, actions, old[1:]); err != nil {
		t.Fatal(err)
	}
	if err := d.PutRecords("nginx", restart, actions, old); err == nil {
		t.Error("a put of records from before the last put was taken")
	}
}

func TestUnknownMembersSurvive(t *testing.T) {
	d := parse(t, `{"services":{"nginx":{"restarts":[{"timestamp":"2025-06-15T10:30:00Z","success":true,"tier":2}],"owner":"ops"}},"agent":{"v":3},"last_run":null}`)
	add(t, d, "nginx", restart, store.Record{Time: t0, Success: true})
	d.Complete()
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
	d.PutStamp("daily_digest", t0)
	if last, _ := d.Last("daily_digest"); !last.Equal(t0) {
		t.Errorf("Last = %v; want %v", last, t0)
	}
	if !strings.Contains(marshal(t, d), `"last_daily_digest": "2025-06-15T12:00:00Z"`) {
		t.Error("mark not written as last_daily_digest")
	}
	if got := d.Stamps(); len(got) != 1 || got[0] != "daily_digest" {
		t.Errorf("Stamps = %q", got)
	}
	if store.CheckStamp("Daily Digest") == nil || store.CheckStamp("daily_digest") != nil {
		t.Error("CheckStampName accepts the wrong names")
	}
}

func TestBadArrayIsAnError(t *testing.T) {
	d := parse(t, `{"services":{"nginx":{"restarts":"lots"}}}`)
	if _, err := d.Records("nginx", restart); err == nil || !strings.Contains(err.Error(), "services.nginx.restarts is not an array of records") {
		t.Errorf("Records = %v", err)
	}
	// Other services still work, and the bad field is left alone.
	add(t, d, "redis", restart, store.Record{Time: t0, Success: true})
	d.Complete()
	if !strings.Contains(marshal(t, d), `"restarts": "lots"`) {
		t.Error("the bad field was rewritten")
	}
	// A record guard cannot read is listed, unreadable, and kept as it was.
	d = parse(t, `{"services":{"nginx":{"restarts":[{"when":"yesterday"},17]}}}`)
	if got := times(recs(t, d, "nginx", restart)); got != "unreadable, unreadable" {
		t.Errorf("records = %s", got)
	}
	add(t, d, "nginx", restart, store.Record{Time: t0, Success: true})
	if out := marshal(t, d); !strings.Contains(out, `"when": "yesterday"`) || !strings.Contains(out, "17,") {
		t.Errorf("unreadable records not kept:\n%s", out)
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
			rs, err := d.Records(name, restart)
			if err != nil {
				continue
			}
			if len(rs) > 0 {
				// Leave out the first, and add one.
				if err := d.PutRecords(name, restart, actions, append(rs[1:], store.Record{Time: t0})); err != nil {
					t.Fatalf("PutRecords of what Records gave: %v", err)
				}
			}
		}
		d.Complete()
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
// still counts, as a foreign record.
func TestBothFormatsCountOnce(t *testing.T) {
	d := parse(t, `{"services":{"nginx":{
	  "restarts": [{"timestamp": "2025-06-15T10:00:00Z", "success": true}, {"timestamp": "2025-06-15T11:00:00Z", "success": true}],
	  "restart_timestamps": ["2025-06-15T10:00:00Z", "2025-06-15T11:00:00.250Z"]
	}, "web": {
	  "restarts": [{"timestamp": "2025-06-15T10:00:00Z", "success": true}],
	  "restart_timestamps": ["2025-06-15T10:00:00Z", "2025-06-15T10:30:00Z"]
	}}}`)
	if got := times(recs(t, d, "nginx", restart)); got != "10:00:00, 11:00:00" {
		t.Errorf("nginx: %s; want each action once", got)
	}
	if got := times(recs(t, d, "web", restart)); got != "10:00:00, foreign bare 10:30:00" {
		t.Errorf("web: %s; want one in both forms, one bare", got)
	}
}

// Where the file keeps bare arrays, every record added goes there too; a
// record removed takes its twin with it; clearing empties them.
func TestMirrorsIntoBareArrays(t *testing.T) {
	d := parse(t, `{"services":{"old":{"restart_timestamps": ["2025-06-15T11:00:00Z"]}}}`)
	add(t, d, "new", redeploy, store.Record{Time: t0, Success: true})
	add(t, d, "old", restart, store.Record{Time: t0.Add(time.Second), InProgress: true, PID: 42})
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
	rs := recs(t, d, "old", restart)
	if got := times(rs); got != "12:00:01 in progress, foreign bare 11:00:00" {
		t.Fatalf("old: %s; want the bare one, the reservation once", got)
	}
	// Leave the reservation out: its twin goes, the foreign one stays.
	if err := d.PutRecords("old", restart, actions, rs[1:]); err != nil {
		t.Fatal(err)
	}
	if got := times(recs(t, d, "old", restart)); got != "foreign bare 11:00:00" {
		t.Errorf("old after the removal: %s", got)
	}
	if !strings.Contains(marshal(t, d), "\"restart_timestamps\": [\n        \"2025-06-15T11:00:00Z\"\n      ]") {
		t.Errorf("the twin was not removed:\n%s", marshal(t, d))
	}
	// Leave everything out: every array is emptied.
	if err := d.PutRecords("old", restart, actions, nil); err != nil {
		t.Fatal(err)
	}
	if got := times(recs(t, d, "old", restart)); got != "" {
		t.Errorf("old after clearing: %s", got)
	}
	// An action configured with timestamps writes them into a file with none.
	named := restart
	named.Timestamps = "restart_timestamps"
	d = parse(t, `{"services":{}}`)
	if err := d.PutRecords("x", named, []store.Action{named}, []store.Record{{Time: t0, Success: true}}); err != nil {
		t.Fatal(err)
	}
	if out := marshal(t, d); !strings.Contains(out, `"restart_timestamps": [`) {
		t.Errorf("no restart_timestamps:\n%s", out)
	}
}
