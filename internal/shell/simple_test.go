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
