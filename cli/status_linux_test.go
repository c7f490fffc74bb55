package cli

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"testing"

	"golang.org/x/sys/unix"
)

// TestColourOnlyOnATerminalWithoutNoColor covers hostile-user finding 13:
// guard itself must find out that stdout is a terminal.
func TestColourOnlyOnATerminalWithoutNoColor(t *testing.T) {
	pts := openPTY(t)
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

// openPTY opens a pseudo-terminal and returns its terminal end.
func openPTY(t *testing.T) *os.File {
	t.Helper()
	ptm, err := os.OpenFile("/dev/ptmx", os.O_RDWR, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals here: %v", err)
	}
	t.Cleanup(func() { ptm.Close() })
	if err := unix.IoctlSetPointerInt(int(ptm.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Fatal(err)
	}
	n, err := unix.IoctlGetInt(int(ptm.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Fatal(err)
	}
	pts, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pts.Close() })
	return pts
}
