package view

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"guard/internal/jsonx"
)

func TestPrintable(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain key", "plain key"},
		{"a\nb", `a\nb`},
		{"\x1b[31mred", `\x1b[31mred`},
		{"tab\there", `tab\there`},
		{"ünïcode", "ünïcode"},
		{"c1\u009b", `c1\u009b`},
		{`back\slash`, `back\slash`},
		{"rep\ufffdlacement", "rep\ufffdlacement"},
		// Format characters: bidi overrides and isolates, zero-width.
		{"ls \u202efdp.exe", `ls \u202efdp.exe`},
		{"\u2066a\u2067b\u2068c\u2069", `\u2066a\u2067b\u2068c\u2069`},
		{"zero\u200bwidth\u200d\ufeff", `zero\u200bwidth\u200d\ufeff`},
		{"line\u2028sep", `line\u2028sep`},
		// Bytes that are not UTF-8.
		{"a\xceb", `a\xceb`},
	}
	for _, tc := range tests {
		if got := Printable(tc.in); got != tc.want {
			t.Errorf("Printable(%q) = %q; want %q", tc.in, got, tc.want)
		}
	}
}

// TestKeyText: keys that Printable shows alike (an escape character and
// the text \x1b, a newline and the text \n, U+202E and the text \u202e, a
// byte and the text that spells it) show apart, each as the shell word that
// names it; a key with nothing escaped and no backslash shows as it is
// (h13 m16).
func TestKeyText(t *testing.T) {
	tests := []struct{ key, want string }{
		{"lint", "lint"},
		{"python3 check.py", "python3 check.py"},
		{"it's", "it's"},
		{"e\x1b", `$'e\x1b'`},
		{`e\x1b`, `'e\x1b'`},
		{"n\nl", `$'n\nl'`},
		{`n\nl`, `'n\nl'`},
		{"r\u202el", `$'r\xe2\x80\xael'`},
		{`r\u202el`, `'r\u202el'`},
		{`a\xceb`, `$'a\xceb'`}, // the stored key of a byte
		{`a\\xceb`, `'a\xceb'`}, // the stored key of the text
		{`back\slash`, `'back\slash'`},
		{"", "''"},
	}
	seen := map[string]string{}
	for _, tc := range tests {
		got := KeyText(tc.key)
		if got != tc.want {
			t.Errorf("KeyText(%q) = %q; want %q", tc.key, got, tc.want)
		}
		if other, ok := seen[got]; ok {
			t.Errorf("%q and %q both show as %s", other, tc.key, got)
		}
		seen[got] = tc.key
		if Printable(got) != got {
			t.Errorf("KeyText(%q) = %q is not safe to print", tc.key, got)
		}
	}
}

func TestErrorLine(t *testing.T) {
	err := errors.New("cannot reach the database at postgres://u:s3cret@h/db?password=s3cret: \x1b[2Jgone\u202e\nsecond line")
	got := ErrorLine(err)
	want := `cannot reach the database at postgres://u:xxxxx@h/db?password=xxxxx: \x1b[2Jgone\u202e`
	if got != want {
		t.Errorf("ErrorLine = %q; want %q", got, want)
	}
}

func TestJSONSafe(t *testing.T) {
	var b strings.Builder
	key := "ls \u202efdp.exe\u200b \U000E0041 é \x1b"
	if err := WriteJSON(&b, map[string]string{"key": key}); err != nil {
		t.Fatal(err)
	}
	want := `{
  "key": "ls \u202efdp.exe\u200b \udb40\udc41 é \u001b"
}
`
	if b.String() != want {
		t.Errorf("WriteJSON = %s; want %s", b.String(), want)
	}
	var back map[string]string
	if err := json.Unmarshal([]byte(b.String()), &back); err != nil || back["key"] != key {
		t.Errorf("WriteJSON's output reads back as %q, %v; want %q", back["key"], err, key)
	}
	if got := JSONSafe("{\"k\": \"a\xceb\"}"); got != "{\"k\": \"a\xceb\"}" {
		t.Errorf("JSONSafe changed a byte that is not UTF-8: %q", got)
	}
}

// A circuit opened by another tool has no open_reason: the report says
// "after failures" once (real-hooks re-run, N2).
func TestWhyOpen(t *testing.T) {
	at := jsonx.Time{Time: time.Date(2026, 11, 24, 3, 0, 0, 0, time.UTC)}
	reason := "3 failures in a row"
	for _, tc := range []struct {
		d    HookDetail
		want string
	}{
		{HookDetail{State: "open", DisabledAt: at}, "opened at 2026-11-24T03:00:00Z after failures"},
		{HookDetail{State: "open", DisabledAt: at, OpenReason: &reason}, "opened at 2026-11-24T03:00:00Z after 3 failures in a row"},
		{HookDetail{State: "open", DisabledAt: at, Forced: true}, "tripped by hand at 2026-11-24T03:00:00Z"},
	} {
		if got := whyOpen(tc.d); got != tc.want {
			t.Errorf("whyOpen(%+v) = %q; want %q", tc.d, got, tc.want)
		}
	}
}

// TestShortenApart: keys that differ still look different once shortened
// (newcomer-and-mission #4, issue 33 #5): a project's hooks share a long
// start and end, and the middle cut made them all alike.
func TestShortenApart(t *testing.T) {
	for _, tc := range []struct {
		keys  []string
		width int
	}{
		{[]string{`$CLAUDE_PROJECT_DIR/.claude/hooks/lint.sh`, `$CLAUDE_PROJECT_DIR/.claude/hooks/format.sh`, `$CLAUDE_PROJECT_DIR/.claude/hooks/typecheck.sh`}, 24},
		{[]string{`bash "$CLAUDE_PROJECT_DIR"/.claude/hooks/validators/check_alpha.sh --strict`, `bash "$CLAUDE_PROJECT_DIR"/.claude/hooks/validators/check_beta.sh --strict`}, 30},
		{[]string{`python3 ~/.claude/hooks/a-very-long-hook-name-one.py --flag`, `python3 ~/.claude/hooks/a-very-long-hook-name-two.py --flag`, `short`}, 20},
		{[]string{"same-start-" + strings.Repeat("x", 40) + "-1-same-end", "same-start-" + strings.Repeat("x", 40) + "-2-same-end"}, 12},
	} {
		got := ShortenApart(tc.keys, tc.width)
		seen := map[string]bool{}
		for i, s := range got {
			if seen[s] {
				t.Errorf("ShortenApart(%q, %d) = %q: two keys look the same", tc.keys, tc.width, got)
			}
			seen[s] = true
			if len([]rune(s)) > tc.width && s != tc.keys[i] {
				t.Errorf("ShortenApart: %q is longer than %d", s, tc.width)
			}
		}
	}
	// A project's hooks keep their script's name.
	got := ShortenApart([]string{`$CLAUDE_PROJECT_DIR/.claude/hooks/lint.sh`, `$CLAUDE_PROJECT_DIR/.claude/hooks/format.sh`}, 24)
	if !strings.HasSuffix(got[0], "lint.sh") || !strings.HasSuffix(got[1], "format.sh") {
		t.Errorf("script names lost: %q", got)
	}
	// Keys that fit, and width 0, are left whole.
	if got := ShortenApart([]string{"a", "bb"}, 0); got[0] != "a" || got[1] != "bb" {
		t.Errorf("width 0: %q", got)
	}
}

// TestReportSlowestTellsProjectHooksApart: the text report's slowest list
// names each project hook by its command, shortened where they differ,
// and its project apart (newcomer-and-mission #4).
func TestReportSlowestTellsProjectHooksApart(t *testing.T) {
	r := Report{DurationMS: map[string]*Durations{}, States: map[string]int{}}
	for i, h := range []string{"lint.sh", "format.sh", "typecheck.sh"} {
		key := `bash -c '$CLAUDE_PROJECT_DIR/.claude/hooks/validators/` + h + `' @ /home/dev/src/webapp`
		r.DurationMS[key] = &Durations{Count: 3, P50: int64(10 * (i + 1)), P95: int64(50 * (i + 1)), Max: int64(60 * (i + 1))}
	}
	var b strings.Builder
	WriteText(&b, r, time.Now())
	var lines []string
	for _, l := range strings.Split(b.String(), "\n") {
		if strings.Contains(l, " p95 ") {
			lines = append(lines, l)
		}
	}
	if len(lines) != 3 {
		t.Fatalf("slowest lists %d hooks:\n%s", len(lines), b.String())
	}
	for i, h := range []string{"typecheck.sh", "format.sh", "lint.sh"} {
		if !strings.Contains(lines[i], h) || !strings.HasSuffix(lines[i], " in /home/dev/src/webapp") {
			t.Errorf("line %d %q does not name %s and its project", i, lines[i], h)
		}
	}
}

// TestTableAlignsWideCharacters: a key in CJK (two columns each on a
// terminal) or with combining accents keeps the next column aligned.
func TestTableAlignsWideCharacters(t *testing.T) {
	var b strings.Builder
	(&table{header: []string{"KEY", "LAST ERROR"}, rows: [][]string{{"lint", "a"}, {"日本語", "b"}, {"cafe\u0301", "c"}}}).write(&b)
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	want := cellWidth("KEY") + strings.Index(lines[0], "LAST") - len("KEY")
	for _, l := range lines[1:] {
		last := l[strings.LastIndexByte(l, ' ')+1:]
		if got := cellWidth(strings.TrimSuffix(l, last)); got != want {
			t.Errorf("%q: its last column starts at column %d; want %d", l, got, want)
		}
	}
	for s, w := range map[string]int{"lint": 4, "日本": 4, "cafe\u0301": 4, "☃": 1, "🙂": 2, "": 0} {
		if got := cellWidth(s); got != w {
			t.Errorf("cellWidth(%q) = %d; want %d", s, got, w)
		}
	}
}
