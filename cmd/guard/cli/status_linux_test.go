package cli

import (
	"bytes"
	"io"
	"strings"
	"testing"
	"time"

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

func TestWatchFrameRedrawsInPlace(t *testing.T) {
	first := string(frame("A\nB\n", true, time.Second))
	if first != "\x1b[2J\x1b[HA\x1b[K\nB\x1b[K\n\x1b[K\nevery 1s; Ctrl-C to stop\x1b[K\n\x1b[J" {
		t.Errorf("first frame %q", first)
	}
	next := string(frame("A\n", false, 2*time.Second))
	if strings.Contains(next, "\x1b[2J") || !strings.HasPrefix(next, "\x1b[H") || !strings.HasSuffix(next, "\x1b[J") {
		t.Errorf("a later frame clears the screen first or does not redraw in place: %q", next)
	}
}
