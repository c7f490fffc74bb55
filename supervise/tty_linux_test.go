package supervise

import (
	"fmt"
	"os"
	"testing"

	"golang.org/x/sys/unix"
)

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

// TestStderrTerminalIsTheChilds covers hostile-user finding 10: where
// guard's stderr is a terminal, the child's stderr is that terminal, not a
// pipe.
func TestStderrTerminalIsTheChilds(t *testing.T) {
	pts := openPTY(t)
	res := Run(Spec{Argv: []string{"/bin/sh", "-c", "test -t 2"}, Stderr: pts})
	if res.ExitCode != 0 {
		t.Errorf("the child's stderr is not a terminal (exit %d)", res.ExitCode)
	}
	// Where it is not a terminal, it is a pipe guard copies (for the tail).
	res = Run(Spec{Argv: []string{"/bin/sh", "-c", "test -t 2 || { echo not a tty >&2; exit 1; }"}, Stderr: &discard{}})
	if res.ExitCode != 1 || string(res.Tail) != "not a tty\n" {
		t.Errorf("exit %d, tail %q; want the piped stderr's tail", res.ExitCode, res.Tail)
	}
}

type discard struct{}

func (*discard) Write(p []byte) (int, error) { return len(p), nil }
