package cli

import (
	"bytes"
	"io"
	"testing"

	"guard/internal/ptytest"
)

// TestColourOnlyOnATerminalWithoutNoColor covers hostile-user finding 13:
// guard itself must find out that stdout is a terminal.
func TestColourOnlyOnATerminalWithoutNoColor(t *testing.T) {
	pts := ptytest.Open(t)
	for _, tc := range []struct {
		tty  bool
		env  map[string]string
		want bool
	}{
		{true, nil, true},
		{false, nil, false},
		{true, map[string]string{"NO_COLOR": "1"}, false},
		{true, map[string]string{"TERM": "dumb"}, false},
	} {
		var out io.Writer = &bytes.Buffer{}
		if tc.tty {
			out = pts
		}
		e := &env{stdout: out, getenv: func(k string) string { return tc.env[k] }}
		if got := e.color(); got != tc.want {
			t.Errorf("tty %v, env %v: color = %v; want %v", tc.tty, tc.env, got, tc.want)
		}
	}
}
