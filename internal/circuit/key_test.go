package circuit

import (
	"os/exec"
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

// shellWords asks sh what words a string holds.
func shellWords(t *testing.T, s string) []string {
	t.Helper()
	out, err := exec.Command("sh", "-c", `for a in `+s+`; do printf '%s\0' "$a"; done`).Output()
	if err != nil {
		t.Fatalf("sh: %v", err)
	}
	words := strings.Split(string(out), "\x00")
	return words[:len(words)-1]
}

func FuzzKeyArg(f *testing.F) {
	for _, s := range []string{"", "plain", "it's", `"dq"`, "$x `y` \\z", "new\nline", "*?[a]", "~user", "a b\tc"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if strings.ContainsRune(s, 0) || !utf8.ValidString(s) {
			return // not a possible argument
		}
		words := shellWords(t, KeyArg(s))
		if len(words) != 1 || words[0] != s {
			t.Errorf("sh read KeyArg(%q) = %s as %q", s, KeyArg(s), words)
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

func TestValidKeyKeepsInvalidUTF8Apart(t *testing.T) {
	seen := map[string]string{}
	for _, k := range []string{"a\xff", "a\xfe", "a\ufffd", `a\xff`, "a\\\xff", "plain", "ünï"} {
		v := ValidKey(k)
		if !utf8.ValidString(v) {
			t.Errorf("ValidKey(%q) = %q, not valid UTF-8", k, v)
		}
		if prev, ok := seen[v]; ok && utf8.ValidString(prev) == utf8.ValidString(k) {
			t.Errorf("ValidKey(%q) = ValidKey(%q) = %q", k, prev, v)
		}
		seen[v] = k
		if utf8.ValidString(k) && v != k {
			t.Errorf("ValidKey(%q) = %q; a valid key is kept as it is", k, v)
		}
	}
}
