package shell

import (
	"slices"
	"testing"
)

// TestSimpleCommand: what sh -c runs, when the string is one simple command
// of plain words (package supervise names a hook that could not start from
// it); anything guard could not be sure of gives nil.
func TestSimpleCommand(t *testing.T) {
	env := []string{"HOME=/home/me", "DIR=/proj", "EMPTY=", "SPACED=a b", "DIR=/proj2"}
	for i, st := range []struct {
		line string
		argv []string
	}{
		{"python3 x.py", []string{"python3", "x.py"}},
		{"exec python3 x.py", []string{"python3", "x.py"}},
		{"exec", []string{"exec"}},
		{"python3 'my hook.py' --strict", []string{"python3", "my hook.py", "--strict"}},
		{`python3 "$DIR"/x.py`, []string{"python3", "/proj2/x.py"}},
		{`python3 "${DIR}/x.py"`, []string{"python3", "/proj2/x.py"}},
		{"python3 $DIR/x.py", []string{"python3", "/proj2/x.py"}},
		{"python3 ~/x.py", []string{"python3", "/home/me/x.py"}},
		{"python3 ~", []string{"python3", "/home/me"}},
		{`python3 x\ y.py`, []string{"python3", "x y.py"}},
		{`python3 "a \"b\" \$c"`, []string{"python3", `a "b" $c`}},
		{"PYTHONPATH=/lib python3 x.py", []string{"python3", "x.py"}},
		{"python3 $UNSET/x.py", nil},
		{`python3 "$EMPTY"x.py`, []string{"python3", "x.py"}},
		{"python3 $EMPTY", nil},  // split away by the shell
		{"python3 $SPACED", nil}, // split by the shell
		{`python3 "$SPACED"`, []string{"python3", "a b"}},
		{"python3 ~other/x.py", nil},
		{"python3 *.py", nil},
		{"python3 $'x.py'", []string{"python3", "$x.py"}}, // POSIX sh has no $'...'
		{"python3 ${DIR:-/x}/x.py", nil},
		{"python3 $(pwd)/x.py", nil},
		{"python3 x.py; echo", nil},
		{"python3 x.py | cat", nil},
		{"python3 x.py > log", nil},
		{"! python3 x.py", nil},
		{"python3 x.py &", nil},
		{"if x; then y; fi", nil},
		{"", nil},
		{"python3 'x", nil},
	} {
		if got := SimpleCommand(st.line, env); !slices.Equal(got, st.argv) {
			t.Errorf("step %d: SimpleCommand(%q) = %q; want %q", i+1, st.line, got, st.argv)
		}
	}
}

// TestSimpleCommandWithoutParser: guard, which runs hooks, links no shell
// parser; it reads the plain lines hooks are made of as the parser would,
// and any other line as one it cannot be sure of (nil), never otherwise.
func TestSimpleCommandWithoutParser(t *testing.T) {
	env := []string{"HOME=/home/me", "DIR=/proj", "CLAUDE_PROJECT_DIR=/work/my project"}
	saved := full
	full = Parser{}
	t.Cleanup(func() { full = saved })
	for i, st := range []struct {
		line string
		argv []string
	}{
		{"python3 x.py", []string{"python3", "x.py"}},
		{"exec python3 x.py", []string{"python3", "x.py"}},
		{`"$CLAUDE_PROJECT_DIR"/.claude/hooks/check.sh --strict`, []string{"/work/my project/.claude/hooks/check.sh", "--strict"}},
		{`uv run "${CLAUDE_PROJECT_DIR}/.claude/hooks/lint.py"`, []string{"uv", "run", "/work/my project/.claude/hooks/lint.py"}},
		{`node ~/hooks/x.js`, []string{"node", "/home/me/hooks/x.js"}},
		{`bash 'a b.sh' "c\"d"`, []string{"bash", "a b.sh", `c"d`}},
		{"python3 $'x.py'", nil}, // the parser reads it; guard alone cannot be sure
		{"PYTHONPATH=/lib python3 x.py", []string{"python3", "x.py"}},
		{"A=$(x) python3 x.py", nil},
		{"python3 x.py; echo", nil},
		{"python3 $(pwd)/x.py", nil},
		{"python3 *.py", nil},
		{"python3 ${DIR:-/x}/x.py", nil},
		{"if x; then y; fi", nil},
	} {
		if got := SimpleCommand(st.line, env); !slices.Equal(got, st.argv) {
			t.Errorf("step %d: SimpleCommand(%q) without a parser = %q; want %q", i+1, st.line, got, st.argv)
		}
	}
}

// FuzzPlainMatchesParser holds the plain reader to mvdan.cc/sh's: whatever
// line it is sure of, it reads as the parser does, expanded (SimpleCommand,
// in POSIX mode) and as words (the commands Program reads, in bash mode).
func FuzzPlainMatchesParser(f *testing.F) {
	for _, line := range []string{
		"python3 x.py", `"$CLAUDE_PROJECT_DIR"/.claude/hooks/x.sh --strict`, "exec uv run ${D}/x.py",
		`a\ b 'c d' "e\"f\\g $HOME" ~/x ~ ~u/x`, "A=1 b", "a+=1 b", "if x", "x # y", "x#y", `\`, "é 'ü'",
		"$1 $_ ${_x} $a-b", "exec", "  ", "a\tb", `"a\
b"`,
	} {
		f.Add(line)
	}
	env := []string{"HOME=/home/me", "D=/d", "E=", "S=a b", "G=*", "_x=u"}
	f.Fuzz(func(t *testing.T, line string) {
		words, sure := lex(line)
		if !sure {
			return
		}
		if got, want := simple(words, env), full.Simple(line, env); !slices.Equal(got, want) {
			t.Errorf("SimpleCommand(%q): plain %q; parser %q", line, got, want)
		}
		cs, ok := plainCommands(line)
		if !ok {
			return
		}
		want, err := full.Commands(line)
		if err != nil {
			t.Fatalf("plain line %q: the parser refuses it: %v", line, err)
		}
		if len(cs) != len(want) || len(cs) == 1 && (!slices.Equal(cs[0].Words, want[0].Words) || !slices.Equal(cs[0].Literal, want[0].Literal) || len(want[0].Assigns) > 0) {
			t.Errorf("commands of %q: plain %+v; parser %+v", line, cs, want)
		}
	})
}
