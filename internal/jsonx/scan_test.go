package jsonx

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

func TestMembers(t *testing.T) {
	data := []byte(` {"a": 1, "b\"c": {"x": [1, "y", null]}, "é": "s", "d": -0.5e+3 } `)
	ms, nested, err := Members(data, "b\"c")
	if err != nil {
		t.Fatal(err)
	}
	if len(nested) != 1 || nested[0].Key != "x" || string(nested[0].Value) != `[1, "y", null]` {
		t.Errorf("nested = %q", nested)
	}
	want := []Member{{"a", nil, []byte("1")}, {`b"c`, nil, []byte(`{"x": [1, "y", null]}`)}, {"é", nil, []byte(`"s"`)}, {"d", nil, []byte("-0.5e+3")}}
	if len(ms) != len(want) {
		t.Fatalf("Members = %q", ms)
	}
	for i := range want {
		if ms[i].Key != want[i].Key || !bytes.Equal(ms[i].Value, want[i].Value) || string(ms[i].KeyRaw) != string(jsonQuote(want[i].Key)) {
			t.Errorf("member %d = %q %s; want %q %s", i, ms[i].Key, ms[i].Value, want[i].Key, want[i].Value)
		}
	}
	inner, err := ObjectMembers(ms[1].Value)
	if err != nil || len(inner) != 1 || inner[0].Key != "x" {
		t.Errorf("ObjectMembers = %q, %v", inner, err)
	}
	if none, err := ObjectMembers([]byte("null")); err != nil || none != nil {
		t.Errorf("ObjectMembers(null) = %v, %v", none, err)
	}
}

func TestMembersRejects(t *testing.T) {
	for _, bad := range []string{``, `[]`, `{`, `{"a"}`, `{"a":}`, `{"a":1,}`, `{"a":01}`, `{"a":1.}`, `{"a":tru}`,
		`{"a":"\x"}`, "{\"a\":\"\x01\"}", `{"a":1} x`, `{"a":[1,]}`, `{"a":"\u12G4"}`, `{"a":-}`, `{"a":1e}`} {
		if _, _, err := Members([]byte(bad), "a"); err == nil {
			t.Errorf("Members(%q) succeeded", bad)
		}
	}
}

// FuzzMembers holds Members to json.Valid's verdict, and to encoding/json's
// reading of the members.
func FuzzMembers(f *testing.F) {
	for _, s := range []string{`{}`, `{"a":1}`, `{"a":{"b":[1,2,{"c":"\u00e9\n"}]},"d":null}`, `{"x":-1.5E-3,"y":true,"z":false}`, `[1]`, `{"a":"\ud800"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		ms, _, err := Members(data, "a")
		var m map[string]json.RawMessage
		jerr := json.Unmarshal(data, &m)
		valid := json.Valid(data)
		isObject := valid && bytes.HasPrefix(bytes.TrimLeft(data, " \t\r\n"), []byte("{"))
		if (err == nil) != isObject {
			t.Fatalf("Members err = %v, but json.Valid = %v (object %v) for %q", err, valid, isObject, data)
		}
		if err != nil || jerr != nil {
			return
		}
		for _, mem := range ms {
			if got := m[mem.Key]; !bytes.Equal(bytes.TrimSpace(got), mem.Value) && !duplicate(ms, mem.Key) {
				t.Fatalf("member %q = %s; encoding/json says %s", mem.Key, mem.Value, got)
			}
		}
	})
}

func duplicate(ms []Member, key string) bool {
	n := 0
	for _, m := range ms {
		if m.Key == key {
			n++
		}
	}
	return n > 1
}

func BenchmarkMembers(b *testing.B) {
	var sb strings.Builder
	sb.WriteString(`{"version": 1, "hooks": {`)
	for i := range 1000 {
		if i > 0 {
			sb.WriteString(",")
		}
		fmt.Fprintf(&sb, `"uv run $CLAUDE_PROJECT_DIR/.claude/hooks/check_%d.py --strict": {"state": "closed", "failure_count": 1, "consecutive_failures": 1, "consecutive_successes": 0, "first_failure": "2026-02-10T23:32:15Z", "last_failure": "2026-02-10T23:35:42Z", "last_success": "2026-02-10T23:30:00Z", "last_error": "exit 1: something went wrong", "disabled_at": null, "retry_after": null, "last_run": "2026-02-10T23:35:42Z", "totals": {"successes": 5, "failures": 1, "ignored": 0, "cancelled": 0, "abandoned": 0, "skips": 0, "rejected": 0}}`, i)
	}
	sb.WriteString(`}, "global_stats": {"total_executions": 6000}}`)
	data := []byte(sb.String())
	b.SetBytes(int64(len(data)))
	b.Run("Members", func(b *testing.B) {
		for b.Loop() {
			Members(data, "hooks")
		}
	})
	b.Run("json.Valid", func(b *testing.B) {
		for b.Loop() {
			json.Valid(data)
		}
	})
}

func jsonQuote(s string) []byte {
	b, _ := json.Marshal(s)
	return b
}

func TestFind(t *testing.T) {
	data := []byte(`{"version": 1, "hooks": {"a \"q\" \\": {"state": "open"}, "b": [1, {"c": "}"}], "k": {"x": "y\\\""}}, "z": null}`)
	for _, tc := range []struct {
		path []string
		want string
		ok   bool
	}{
		{[]string{"version"}, "1", true},
		{[]string{"hooks", `a "q" \`}, `{"state": "open"}`, true},
		{[]string{"hooks", "k"}, `{"x": "y\\\""}`, true},
		{[]string{"hooks", "missing"}, "", false},
		{[]string{"z"}, "null", true},
		{[]string{"z", "x"}, "", false},
		{[]string{"nothing"}, "", false},
	} {
		got, ok := Find(data, tc.path...)
		if ok != tc.ok || string(got) != tc.want {
			t.Errorf("Find(%q) = %s, %v; want %s, %v", tc.path, got, ok, tc.want, tc.ok)
		}
	}
}

// FuzzFind holds Find to what encoding/json reads from a valid document.
func FuzzFind(f *testing.F) {
	f.Add([]byte(`{"hooks":{"k":{"state":"open"},"\"\\":"x"}}`), "k")
	f.Add([]byte(`{"a":[1,"\\\"",{"b":"\u0022"}],"hooks":{"":null}}`), "")
	f.Fuzz(func(t *testing.T, data []byte, key string) {
		// Maps, not a struct: encoding/json matches struct fields whatever
		// their case ("hookS"), and Find matches keys exactly.
		var top map[string]json.RawMessage
		var hooks map[string]json.RawMessage
		if json.Unmarshal(data, &top) != nil || json.Unmarshal(top["hooks"], &hooks) != nil && top["hooks"] != nil {
			Find(data, "hooks", key) // must not panic on anything
			return
		}
		if bytes.Count(data, []byte(`"hooks"`)) > 1 || strings.Contains(string(data), `\u`) {
			return // repeated or escaped keys: encoding/json's choice may differ
		}
		got, ok := Find(data, "hooks", key)
		want, wantOK := hooks[key]
		if ok != wantOK || ok && !bytes.Equal(got, bytes.TrimSpace(want)) {
			if duplicateKey(data, key) {
				return
			}
			t.Fatalf("Find(hooks, %q) = %s, %v; encoding/json says %s, %v", key, got, ok, want, wantOK)
		}
	})
}

func duplicateKey(data []byte, key string) bool {
	k, _ := json.Marshal(key)
	return bytes.Count(data, k) > 1
}
