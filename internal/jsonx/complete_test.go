package jsonx

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// TestComplete: a JSON document cut short anywhere reads as its whole
// values, with what is open closed; the keys say where the cut fell.
func TestComplete(t *testing.T) {
	for _, st := range []struct {
		in, want string
		at       []string
	}{
		{`{"a": 1, "b": [1, 2`, `{"a": 1, "b": [1, 2]}`, []string{"b"}},
		{`{"a": 1, "b": [1, 2,`, `{"a": 1, "b": [1, 2]}`, []string{"b"}},
		{`{"a": {"x": "hello wor`, `{"a": {}}`, []string{"a", "x"}},
		{`{"a": {"x": true}, "b`, `{"a": {"x": true}}`, []string{"a"}},
		{`{"s": {"web": {"r": [{"t": "2026", "ok": tr`, `{"s": {"web": {"r": [{"t": "2026"}]}}}`, []string{"s", "web", "r", "ok"}},
		{`[{"a": 1}, {"b"`, `[{"a": 1}, {}]`, []string{"b"}},
		{`{"a": 1} trailing`, `{"a": 1}`, nil},
		{`{"a": 1, "b": x}`, `{"a": 1}`, []string{"b"}},
		{`{`, `{}`, nil},
	} {
		out, at, ok := Complete([]byte(st.in))
		if !ok || string(out) != st.want || !slices.Equal(at, st.at) {
			t.Errorf("Complete(%q) = %q, %q, %v; want %q, %q", st.in, out, at, ok, st.want, st.at)
		}
		if ok && !json.Valid(out) {
			t.Errorf("Complete(%q) = %q, which does not parse", st.in, out)
		}
	}
	for _, in := range []string{``, `"x"`, `12`, `nonsense`} {
		if _, _, ok := Complete([]byte(in)); ok {
			t.Errorf("Complete(%q) ok; want not", in)
		}
	}
	// Cut at every byte, the result parses.
	doc := `{"services": {"web": {"consecutive_healthy": 0, "restarts": [{"timestamp": "2026-11-28T06:11:53Z", "success": true}, "2026-11-28T06:11:54Z"]}}, "last_run": null}`
	for i := range len(doc) {
		if out, _, ok := Complete([]byte(doc[:i])); ok && !json.Valid(out) {
			t.Errorf("Complete of %d bytes = %q, which does not parse", i, out)
		}
	}
	if out, _, _ := Complete([]byte(doc)); string(out) != doc || !strings.HasSuffix(string(out), "null}") {
		t.Errorf("Complete of a whole document = %q", out)
	}
}
