package circuit

import (
	"errors"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestCommandKey(t *testing.T) {
	tests := []struct {
		argv []string
		want string
	}{
		{[]string{"python3", "lint.py"}, "python3 lint.py"},
		{[]string{"sh", "-c", "echo hi"}, "sh -c 'echo hi'"},
		{[]string{"echo", ""}, "echo ''"},
		{[]string{"echo", "it's"}, `echo 'it'\''s'`},
		{[]string{"a=b", "--x=/p/q,r:s@t%u+v"}, "a=b --x=/p/q,r:s@t%u+v"},
		{[]string{"echo", "$HOME"}, "echo '$HOME'"},
	}
	for _, tc := range tests {
		if got := CommandKey(tc.argv); got != tc.want {
			t.Errorf("CommandKey(%q) = %s; want %s", tc.argv, got, tc.want)
		}
	}
	// Different commands never share a key.
	if CommandKey([]string{"a b"}) == CommandKey([]string{"a", "b"}) {
		t.Error(`"a b" and "a" "b" share a key`)
	}
}

// shellWords asks bash what words a string holds.
func shellWords(t *testing.T, s string) []string {
	t.Helper()
	out, err := exec.Command("bash", "-c", `for a in `+s+`; do printf '%s\0' "$a"; done`).Output()
	if err != nil {
		t.Fatalf("bash: %v", err)
	}
	words := strings.Split(string(out), "\x00")
	return words[:len(words)-1]
}

func TestKeyArg(t *testing.T) {
	tests := []struct{ key, want string }{
		{"lint", "lint"},
		{"python3 lint.py", "'python3 lint.py'"},
		{`echo "$HOME"`, `'echo "$HOME"'`},
		{"it's", `'it'\''s'`},
		{"", "''"},
		{"-x", "-- -x"},
		{"-x y", "-- '-x y'"},
		{"evil\x1b[31mRED\nx\a", `$'evil\x1b[31mRED\nx\x07'`},
		{"it's\t\\", `$'it\'s\t\\'`},
		{"ls \u202efdp", `$'ls \xe2\x80\xaefdp'`},
		{`a\xceb`, `$'a\xceb'`},     // not UTF-8: its byte
		{`a\\xceb`, `'a\xceb'`},     // UTF-8 that spells the escape
		{`a\\\xceb`, `$'a\\\xceb'`}, // a backslash, then the byte
		{"$CLAUDE_PROJECT_DIR/h.sh @ /p\\xce", `$'$CLAUDE_PROJECT_DIR/h.sh @ /p\xce'`},
		// Parts keyed apart, one UTF-8 with a backslash, one not: as stored.
		{`$CLAUDE_PROJECT_DIR/a\b @ /p\xce`, `'$CLAUDE_PROJECT_DIR/a\b @ /p\xce'`},
	}
	for _, tc := range tests {
		if got := KeyArg(tc.key); got != tc.want {
			t.Errorf("KeyArg(%q) = %s; want %s", tc.key, got, tc.want)
		}
	}
}

// FuzzKeyArg: bash reads the hint for a key as the command line guard run
// keys as that key, and the hint holds nothing a terminal would act on.
func FuzzKeyArg(f *testing.F) {
	for _, s := range []string{"", "plain", "it's", `"dq"`, "$x `y` \\z", "new\nline", "*?[a]", "~user", "a b\tc",
		"a\xceb", `a\xceb`, "\x1b[2J", "\u202e", "-n", `\\\xff\xff`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		if strings.ContainsRune(raw, 0) {
			return // not a possible argument
		}
		key := ValidKey(raw)
		arg := KeyArg(key)
		for _, r := range arg {
			if !strconv.IsPrint(r) && r != ' ' {
				t.Fatalf("KeyArg(%q) = %q holds %U", key, arg, r)
			}
		}
		want := []string{raw}
		if strings.HasPrefix(raw, "-") {
			want = []string{"--", raw}
		}
		if words := shellWords(t, arg); !slices.Equal(words, want) {
			t.Errorf("bash read KeyArg(%q) = %s as %q; want %q", key, arg, words, want)
		}
	})
}

func TestProjectKey(t *testing.T) {
	tests := []struct{ cmd, dir, want string }{
		{"$CLAUDE_PROJECT_DIR/h.sh", "/p/a", "$CLAUDE_PROJECT_DIR/h.sh @ /p/a"},
		{`"${CLAUDE_PROJECT_DIR}"/h.sh`, "/p/a", `"${CLAUDE_PROJECT_DIR}"/h.sh @ /p/a`},
		{"$CLAUDE_PROJECT_DIR/h.sh", "", "$CLAUDE_PROJECT_DIR/h.sh"},
		{"./h.sh", "/p/a", "./h.sh"},
		{"$CLAUDE_PROJECT_DIR/h.sh", "/p\xce", `$CLAUDE_PROJECT_DIR/h.sh @ /p\xce`}, // not UTF-8
	}
	for _, tc := range tests {
		got := ProjectKey(tc.cmd, tc.dir)
		if got != tc.want {
			t.Errorf("ProjectKey(%q, %q) = %q; want %q", tc.cmd, tc.dir, got, tc.want)
		}
		wantProject := ""
		if got != tc.cmd {
			wantProject = ValidKey(tc.dir)
		}
		if p := KeyProject(got); p != wantProject {
			t.Errorf("KeyProject(%q) = %q; want %q", got, p, wantProject)
		}
	}
	if p := KeyProject("echo a @ b"); p != "" {
		t.Errorf("KeyProject of a key without the variable = %q; want none", p)
	}
}

// TestValidKeyKeepsEveryCommandApart: no two command lines share a key,
// be they UTF-8 or not (a byte and the text that spells its escape
// included), and a UTF-8 key without a backslash before x and two hex
// digits from 80 to ff is kept as it is, as keys were stored before.
func TestValidKeyKeepsEveryCommandApart(t *testing.T) {
	raws := []string{"a\xff", "a\xfe", "a\ufffd", `a\xff`, "a\\\xff", `a\\xff`, "a\\\\\xff", "plain", "ünï",
		"a\xceb", `a\xceb`, `a\\xceb`, "a\\\xceb", `printf '\x41'`, `grep '\d' \\`, `\xCE`, `\x`, `\xc`, "\\", "\xce\\"}
	seen := map[string]string{}
	for _, raw := range raws {
		k := ValidKey(raw)
		if !utf8.ValidString(k) {
			t.Errorf("ValidKey(%q) = %q, not valid UTF-8", raw, k)
		}
		if prev, ok := seen[k]; ok {
			t.Errorf("ValidKey(%q) = ValidKey(%q) = %q", raw, prev, k)
		}
		seen[k] = raw
		if back, ok := RawKey(k); !ok || back != raw {
			t.Errorf("RawKey(ValidKey(%q)) = %q, %v", raw, back, ok)
		}
	}
	for raw, want := range map[string]string{
		"plain": "plain", `grep '\d'`: `grep '\d'`, `printf '\x41'`: `printf '\x41'`, `\xCE`: `\xCE`, "a\nb": "a\nb",
		`a\xceb`: `a\\xceb`, `a\\xceb`: `a\\\\xceb`, "a\xceb": `a\xceb`, "a\\\xce": `a\\\xce`,
	} {
		if got := ValidKey(raw); got != want {
			t.Errorf("ValidKey(%q) = %q; want %q", raw, got, want)
		}
	}
}

func FuzzValidKey(f *testing.F) {
	for _, s := range []string{"a\xceb", `a\xceb`, `a\\xceb`, "a\\\xceb", `\\\`, "\xff\\x80"} {
		f.Add(s, `a\xceb`)
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		ka, kb := ValidKey(a), ValidKey(b)
		if !utf8.ValidString(ka) {
			t.Fatalf("ValidKey(%q) = %q, not valid UTF-8", a, ka)
		}
		if a != b && ka == kb {
			t.Fatalf("ValidKey(%q) = ValidKey(%q) = %q", a, b, ka)
		}
		if back, ok := RawKey(ka); !ok || back != a {
			t.Fatalf("RawKey(ValidKey(%q)) = %q, %v", a, back, ok)
		}
		if utf8.ValidString(a) && !strings.Contains(a, `\x`) && ka != a {
			t.Fatalf("ValidKey(%q) = %q; want it kept as it is", a, ka)
		}
	})
}

func TestResolveKey(t *testing.T) {
	has := func(keys ...string) func(string) bool {
		return func(k string) bool { return slices.Contains(keys, k) }
	}
	tests := []struct {
		name, arg string
		keys      []string
		want      string
		ambiguous bool
	}{
		{"exact", "lint", []string{"lint"}, "lint", false},
		{"no state", "lint", nil, "lint", false},
		{"raw bytes", "a\xceb", []string{`a\xceb`}, `a\xceb`, false},
		{"as status shows a key that is not UTF-8", `a\xceb`, []string{`a\xceb`}, `a\xceb`, false},
		{"the text, when both are there", `a\xceb`, []string{`a\xceb`, `a\\xceb`}, `a\\xceb`, false},
		{"as --json shows the text", `a\\xceb`, []string{`a\\xceb`}, `a\\xceb`, false},
		{"as status shows control characters", `evil\x1b[31m\nx\u202e`, []string{"evil\x1b[31m\nx\u202e"}, "evil\x1b[31m\nx\u202e", false},
		{"with their bytes", "evil\x1b[31m\nx", []string{"evil\x1b[31m\nx"}, "evil\x1b[31m\nx", false},
		{"a backslash kept", `printf 'a\nb'`, []string{`printf 'a\nb'`, "printf 'a\nb'"}, `printf 'a\nb'`, false},
		{"one of two that look alike", `printf 'a\nb'`, []string{"printf 'a\nb'"}, "printf 'a\nb'", false},
		{"new key", `a\xceb`, nil, `a\\xceb`, false},
		{"ambiguous", `\x1b\\xceb`, []string{`\x1b\\xceb`, "\x1b\\\\xceb"}, "", true},
		{"parts keyed apart", `$CLAUDE_PROJECT_DIR/a\b @ /p\xce`, []string{`$CLAUDE_PROJECT_DIR/a\b @ /p\xce`}, `$CLAUDE_PROJECT_DIR/a\b @ /p\xce`, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ResolveKey(tc.arg, has(tc.keys...))
			var ae *AmbiguousKeyError
			if tc.ambiguous {
				if !errors.As(err, &ae) {
					t.Fatalf("ResolveKey(%q) = %q, %v; want ambiguous", tc.arg, got, err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Errorf("ResolveKey(%q) = %q, %v; want %q", tc.arg, got, err, tc.want)
			}
		})
	}
}

func TestUnescape(t *testing.T) {
	for in, want := range map[string]string{
		`plain`: "plain", `a\nb\t`: "a\nb\t", `\x1b[2J`: "\x1b[2J", `\u202e`: "\u202e", `\U0001F600`: "\U0001F600",
		`a\xceb`: "a\xceb", `a\\b`: `a\b`, `a\db`: `a\db`, `end\`: `end\`, `\x1`: `\x1`, `\uD800`: `\uD800`,
	} {
		if got, _ := Unescape(in); got != want {
			t.Errorf("Unescape(%q) = %q; want %q", in, got, want)
		}
	}
}

// TestSessionIDIsExact covers hostile-user-3 m7: session ids that differ
// only in white space are two sessions, so their keys differ; an id of
// white space only is no session.
func TestSessionIDIsExact(t *testing.T) {
	for _, tc := range []struct{ payload, want string }{
		{`{"session_id":"abc"}`, "abc"},
		{`{"session_id":"abc "}`, "abc "},
		{`{"session_id":" abc"}`, " abc"},
		{`{"session_id":"abc\t"}`, "abc\t"},
		{`{"session_id":"a b"}`, "a b"},
		{`{"session_id":"  "}`, ""},
		{`{"session_id":""}`, ""},
		{`{"session_id":7}`, ""},
		{`not json`, ""},
	} {
		if got := SessionID([]byte(tc.payload)); got != tc.want {
			t.Errorf("SessionID(%s) = %q; want %q", tc.payload, got, tc.want)
		}
	}
	keys := map[string]bool{}
	for _, id := range []string{"abc", "abc ", " abc", "abc\n"} {
		keys[ScopedKey("k", "k", ScopeSession, "", id)] = true
	}
	if len(keys) != 4 {
		t.Errorf("four session ids that differ in white space made %d keys; want 4", len(keys))
	}
}
