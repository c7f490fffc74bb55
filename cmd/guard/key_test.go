package main

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
		if got := commandKey(tc.argv); got != tc.want {
			t.Errorf("commandKey(%q) = %s; want %s", tc.argv, got, tc.want)
		}
	}
	// Different commands never share a key.
	if commandKey([]string{"a b"}) == commandKey([]string{"a", "b"}) {
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
		words := shellWords(t, keyArg(s))
		if len(words) != 1 || words[0] != s {
			t.Errorf("sh read keyArg(%q) = %s as %q", s, keyArg(s), words)
		}
	})
}
