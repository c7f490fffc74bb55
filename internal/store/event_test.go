package store

import (
	"bytes"
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
