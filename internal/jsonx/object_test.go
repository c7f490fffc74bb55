package jsonx

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"
)

type inner struct {
	A     int   `json:"a"`
	Extra Extra `json:"-"`
}

func (i *inner) UnmarshalJSON(b []byte) error {
	type plain inner
	return UnmarshalObject(b, (*plain)(i), &i.Extra)
}

func (i inner) MarshalJSON() ([]byte, error) {
	type plain inner
	return MarshalObject(plain(i), i.Extra)
}

type outer struct {
	Name   string            `json:"name"`
	Inner  inner             `json:"inner"`
	List   []inner           `json:"list"`
	ByName map[string]*inner `json:"by_name"`
	Extra  Extra             `json:"-"`
}

func (o *outer) UnmarshalJSON(b []byte) error {
	type plain outer
	return UnmarshalObject(b, (*plain)(o), &o.Extra)
}

func (o outer) MarshalJSON() ([]byte, error) {
	type plain outer
	return MarshalObject(plain(o), o.Extra)
}

func TestObjectKeepsUnknownMembersAtEveryLevel(t *testing.T) {
	in := `{"name":"x","top":1,"inner":{"a":1,"i":"in"},"list":[{"a":2,"l":[true]}],` +
		`"by_name":{"k":{"a":3,"m":{"deep":"yes"}}},"z":"<&>"}`
	var o outer
	if err := json.Unmarshal([]byte(in), &o); err != nil {
		t.Fatal(err)
	}
	o.Inner.A = 10
	o.List[0].A = 20
	o.ByName["k"].A = 30
	out, err := json.Marshal(o)
	if err != nil {
		t.Fatal(err)
	}
	var got, want any
	json.Unmarshal(out, &got)
	json.Unmarshal([]byte(`{"name":"x","top":1,"inner":{"a":10,"i":"in"},"list":[{"a":20,"l":[true]}],`+
		`"by_name":{"k":{"a":30,"m":{"deep":"yes"}}},"z":"<&>"}`), &want)
	gotJSON, _ := json.Marshal(got)
	wantJSON, _ := json.Marshal(want)
	if string(gotJSON) != string(wantJSON) {
		t.Errorf("round trip = %s\nwant %s", out, wantJSON)
	}
}

func TestObjectMatchesNamesLikeEncodingJSON(t *testing.T) {
	var i inner
	if err := json.Unmarshal([]byte(`{"A": 4}`), &i); err != nil {
		t.Fatal(err)
	}
	if i.A != 4 || len(i.Extra) != 0 {
		t.Errorf("got %+v; want A=4 and no extra", i)
	}
}

func TestMarshalObjectOnlyExtra(t *testing.T) {
	type empty struct{}
	out, err := MarshalObject(empty{}, Extra{"b": json.RawMessage(`2`), "a": json.RawMessage(`"&"`)})
	if err != nil {
		t.Fatal(err)
	}
	if string(out) != `{"a":"&","b":2}` {
		t.Errorf("MarshalObject = %s", out)
	}
}

func TestTimeWritesSecondsInUTC(t *testing.T) {
	zone := time.FixedZone("x", 3600)
	tm := TimeOf(time.Date(2026, 2, 11, 0, 32, 15, 987654321, zone))
	out, _ := json.Marshal(tm)
	if string(out) != `"2026-02-10T23:32:15Z"` {
		t.Errorf("Marshal = %s", out)
	}
	out, _ = json.Marshal(Time{})
	if string(out) != "null" {
		t.Errorf("Marshal(zero) = %s; want null", out)
	}
}

// TestOffsetTimeMilli: min_interval's last start is written to the
// millisecond, always three digits, in UTC with +00:00, and read back as
// written (a whole second keeps its .000).
func TestOffsetTimeMilli(t *testing.T) {
	zone := time.FixedZone("x", 3600)
	for _, st := range []struct {
		in   time.Time
		want string
	}{
		{time.Date(2026, 2, 11, 0, 32, 15, 987654321, zone), `"2026-02-10T23:32:15.987+00:00"`},
		{time.Date(2026, 2, 10, 23, 32, 15, 0, time.UTC), `"2026-02-10T23:32:15.000+00:00"`},
		{time.Date(2026, 2, 10, 23, 32, 15, 5e6, time.UTC), `"2026-02-10T23:32:15.005+00:00"`},
		{time.Time{}, "null"},
	} {
		var b bytes.Buffer
		AppendOffsetTimeMilli(&b, st.in)
		if b.String() != st.want {
			t.Errorf("AppendOffsetTimeMilli(%v) = %s; want %s", st.in, b.String(), st.want)
			continue
		}
		var back Time
		if err := json.Unmarshal(b.Bytes(), &back); err != nil || !back.Equal(st.in.Truncate(time.Millisecond)) {
			t.Errorf("read back %s = %v, %v; want %v", b.String(), back.Time, err, st.in.Truncate(time.Millisecond))
		}
	}
}

func TestTimeReadsOtherForms(t *testing.T) {
	want := time.Date(2026, 2, 10, 23, 32, 15, 123456000, time.UTC)
	for _, in := range []string{
		`"2026-02-10T23:32:15.123456+00:00"`, // Python isoformat()
		`"2026-02-10T23:32:15.123456Z"`,
		`"2026-02-11T01:32:15.123456+02:00"`,
		`"2026-02-10T23:32:15.123456"`, // naive: UTC
		`"2026-02-10 23:32:15.123456+00:00"`,
	} {
		var tm Time
		if err := json.Unmarshal([]byte(in), &tm); err != nil {
			t.Errorf("Unmarshal(%s): %v", in, err)
			continue
		}
		if !tm.Equal(want) {
			t.Errorf("Unmarshal(%s) = %v; want %v", in, tm.Time, want)
		}
	}
	var tm Time
	if err := json.Unmarshal([]byte("null"), &tm); err != nil || !tm.IsZero() {
		t.Errorf("Unmarshal(null) = %v, %v", tm, err)
	}
	if err := json.Unmarshal([]byte(`"yesterday"`), &tm); err == nil {
		t.Error("Unmarshal(yesterday) succeeded")
	}
}
