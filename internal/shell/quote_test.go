package shell

import (
	"os/exec"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestQuote(t *testing.T) {
	for in, want := range map[string]string{
		"lint.py":    "lint.py",
		"":           "''",
		"echo hi":    "'echo hi'",
		"it's":       `'it'\''s'`,
		"$HOME":      "'$HOME'",
		"a=b,c:d@e%": "a=b,c:d@e%",
	} {
		if got := Quote(in); got != want {
			t.Errorf("Quote(%q) = %s; want %s", in, got, want)
		}
	}
	if got := Join([]string{"sh", "-c", "echo hi"}); got != "sh -c 'echo hi'" {
		t.Errorf("Join = %s", got)
	}
}

// FuzzQuote asks sh to read back what Quote wrote.
func FuzzQuote(f *testing.F) {
	for _, s := range []string{"", "plain", "it's", `"dq"`, "$x `y` \\z", "new\nline", "*?[a]", "~user", "a b\tc", "'''"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if strings.ContainsRune(s, 0) || !utf8.ValidString(s) {
			return // not a possible argument
		}
		out, err := exec.Command("sh", "-c", `for a in `+Quote(s)+`; do printf '%s\0' "$a"; done`).Output()
		if err != nil {
			t.Fatalf("sh: %v", err)
		}
		if words := strings.Split(string(out), "\x00"); len(words) != 2 || words[0] != s {
			t.Errorf("sh read Quote(%q) = %s as %q", s, Quote(s), words[:len(words)-1])
		}
	})
}
