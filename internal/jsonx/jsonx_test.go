package jsonx

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"
)

func TestObjectWriterMatchesMarshalIndent(t *testing.T) {
	var b bytes.Buffer
	w := NewObjectWriter(&b, "", false)
	w.String("s", "a\"b\\c\n<&>\u2028é\x01")
	w.Int("n", -42)
	w.Bool("t", true)
	w.StringOrNull("empty", "")
	w.Time("when", time.Date(2026, 2, 10, 23, 32, 15, 999, time.FixedZone("x", 3600)))
	w.Time("never", time.Time{})
	inner := w.Object("o")
	inner.Int("x", 1)
	inner.Close()
	w.Object("empty_object").Close()
	w.Array("a", 2, func(i int, indent string) {
		iw := NewObjectWriter(&b, indent, false)
		iw.Int("i", int64(i))
		iw.Close()
	})
	w.Array("none", 0, nil)
	w.Extra(Extra{"z": json.RawMessage(`7`), "m": json.RawMessage(`"raw"`)}) // (raw values are copied as they are)
	w.Close()

	want := map[string]any{
		"s": "a\"b\\c\n<&>\u2028é\x01", "n": -42, "t": true, "empty": nil, "when": "2026-02-10T22:32:15Z", "never": nil,
		"o": map[string]any{"x": 1}, "empty_object": map[string]any{},
		"a": []any{map[string]any{"i": 0}, map[string]any{"i": 1}}, "none": []any{}, "m": "raw", "z": 7,
	}
	var got map[string]any
	if err := json.Unmarshal(b.Bytes(), &got); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, b.Bytes())
	}
	g, _ := json.Marshal(got)
	wj, _ := json.Marshal(want)
	if string(g) != string(wj) {
		t.Errorf("wrote\n%s\nwant the same as\n%s", b.Bytes(), wj)
	}
	// The layout is MarshalIndent's.
	var re bytes.Buffer
	json.Indent(&re, b.Bytes(), "", "  ")
	if re.String() != b.String() {
		t.Errorf("layout differs from json.Indent:\n%s\nvs\n%s", b.String(), re.String())
	}
}

// FuzzStrings holds AppendString and ParseString to encoding/json.
func FuzzStrings(f *testing.F) {
	for _, s := range []string{"", "plain", "q\"b\\", "\x00\x1f\x7f", "é€𝄞", "\xff\xfe", "\u2028\u2029", "<&>"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var b bytes.Buffer
		AppendString(&b, s)
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		enc.Encode(s)
		if b.String()+"\n" != want.String() {
			t.Fatalf("AppendString(%q) = %s; encoding/json writes %s", s, b.String(), want.String())
		}
		got, err := ParseString(b.Bytes())
		var back string
		json.Unmarshal(b.Bytes(), &back)
		if err != nil || got != back {
			t.Fatalf("ParseString(%s) = %q, %v; encoding/json reads %q", b.Bytes(), got, err, back)
		}
	})
}

// FuzzParseString reads arbitrary JSON strings, escapes and all.
func FuzzParseString(f *testing.F) {
	for _, s := range []string{`"a"`, `"\u00e9\ud83d\ude00"`, `"\ud800"`, `"\udc00\ud800x"`, `"\/\b\f\n\r\t"`, `"\uD83D\uDE00"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		var want string
		if json.Unmarshal(raw, &want) != nil || len(bytes.TrimSpace(raw)) == 0 || bytes.TrimSpace(raw)[0] != '"' {
			return
		}
		got, err := ParseString(raw)
		if err != nil || got != want {
			t.Fatalf("ParseString(%s) = %q, %v; encoding/json reads %q", raw, got, err, want)
		}
	})
}

func TestParseNumbersAndTypes(t *testing.T) {
	if n, err := ParseInt([]byte("-12")); n != -12 || err != nil {
		t.Errorf("ParseInt = %d, %v", n, err)
	}
	for _, bad := range []string{`"1"`, `1.5`, `true`, `[]`} {
		if _, err := ParseInt([]byte(bad)); err == nil {
			t.Errorf("ParseInt(%s) succeeded", bad)
		}
	}
	if _, err := ParseString([]byte(`12`)); err == nil {
		t.Error("ParseString(12) succeeded")
	}
	if items, err := Elements([]byte(` [1, {"a": [2]}, "x"] `)); err != nil || len(items) != 3 || string(items[1]) != `{"a": [2]}` {
		t.Errorf("Elements = %q, %v", items, err)
	}
	if tm, err := ParseTimeValue([]byte(`"2026-02-10T23:32:15.5+00:00"`)); err != nil || tm.Nanosecond() != 5e8 {
		t.Errorf("ParseTimeValue = %v, %v", tm, err)
	}
}

func TestTrimBOM(t *testing.T) {
	for in, want := range map[string]string{
		"\xef\xbb\xbf{}":  "{}",
		"{}":              "{}",
		"":                "",
		"\xef\xbb":        "\xef\xbb",
		"\xef\xbb\xbf":    "",
		" \xef\xbb\xbf{}": " \xef\xbb\xbf{}", // only a leading mark
	} {
		if got := string(TrimBOM([]byte(in))); got != want {
			t.Errorf("TrimBOM(%q) = %q; want %q", in, got, want)
		}
	}
}
