package supervise

import (
	"testing"

	"guard/internal/ptytest"
)

// TestStderrTerminalIsTheChilds covers hostile-user finding 10: where
// guard's stderr is a terminal, the child's stderr is that terminal, not a
// pipe.
func TestStderrTerminalIsTheChilds(t *testing.T) {
	pts := ptytest.Open(t)
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
