package store

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
)

func FuzzRead(f *testing.F) {
	f.Add([]byte(`{"time":"2026-02-10T14:02:00Z","ts_ms":1770732120000,"event":"run","key":"k","exit":1}` + "\n"))
	f.Add([]byte("{}\n[]\nnull\n\"x\"\n{\"time\":\"bad\",\"event\":\"x\"}\n"))
	f.Add([]byte(`{"time":"2026-02-10T14:02:00Z","event":"skip","used":-1,"limit":"x"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		res, err := ReadEvents(bytes.NewReader(data), nil)
		out, malformed := res.Events, res.Malformed
		if err != nil {
			t.Fatalf("readFile: %v", err)
		}
		lines := 0
		for _, l := range bytes.Split(data, []byte("\n")) {
			if len(bytes.TrimSpace(l)) > 0 {
				lines++
			}
		}
		if len(out)+malformed != lines {
			t.Fatalf("%d events + %d malformed != %d lines", len(out), malformed, lines)
		}
		for _, e := range out {
			if e.Event == "" || e.Time.IsZero() && e.Raw == nil {
				t.Fatalf("event without name or time: %+v", e)
			}
			if _, err := e.MarshalJSON(); err != nil {
				t.Fatalf("cannot write back an event read: %v", err)
			}
		}
	})
}

// FuzzParseEvent holds ParseEvent to json.Unmarshal: the same event, or
// an error from both.
func FuzzParseEvent(f *testing.F) {
	f.Add([]byte(`{"time":"2026-02-10T14:02:00Z","ts_ms":1770732120000,"event":"run","key":"k","outcome":"failure","exit":1,"duration_ms":12,"error":"exit 1: \u00e9\ud83d\ude00","probe":true,"state":"open","host":"h"}`))
	f.Add([]byte(`{"time":"2026-02-10T14:02:00Z","event":"cooldown","key":"api","action":"restart","used":2,"limit":2,"until":"2026-02-10T15:00:00Z","pid":9}`))
	f.Add([]byte(`{"time":"2026-02-10T14:02:00+01:00","event":"x","EVENT":"y","key":null,"exit":1.5,"pid":99999999999999999999}`))
	f.Add([]byte(`{"ts_ms":1,"event":"a","event":"b","unknown":[1,{"x":2}],"probe":"yes"}`))
	f.Add([]byte(`{"ts_ms":-5,"event":"\ud800x","key":"a\u0000b","from":"\"","to":"\\"} `))
	f.Fuzz(func(t *testing.T, data []byte) {
		got, gotErr := ParseEvent(data)
		var want Event
		wantErr := json.Unmarshal(data, &want)
		if (gotErr != nil) != (wantErr != nil) {
			t.Fatalf("ParseEvent(%q) error %v; json.Unmarshal error %v", data, gotErr, wantErr)
		}
		if gotErr == nil && !reflect.DeepEqual(got, want) {
			t.Fatalf("ParseEvent(%q) =\n%+v\nwant\n%+v", data, got, want)
		}
	})
}

func BenchmarkParseEvent(b *testing.B) {
	line := []byte(`{"time":"2026-02-10T14:02:00Z","ts_ms":1770732120000,"event":"run","key":"python3 $CLAUDE_PROJECT_DIR/.claude/hooks/check.py --strict","outcome":"failure","exit":1,"duration_ms":212,"error":"exit 1: No module named 'black'","state":"closed","host":"bench-1"}`)
	b.Run("ParseEvent", func(b *testing.B) {
		for b.Loop() {
			ParseEvent(line)
		}
	})
	b.Run("json.Unmarshal", func(b *testing.B) {
		for b.Loop() {
			var e Event
			json.Unmarshal(line, &e)
		}
	})
}
