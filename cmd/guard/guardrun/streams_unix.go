//go:build unix

package guardrun

import (
	"io"
	"os"

	"golang.org/x/sys/unix"
)

// unbroken returns a writer for guard's own stdout or stderr that a reader
// who went away cannot kill guard through: a duplicate of the descriptor
// (close-on-exec, so that no child inherits it). The Go runtime ends a
// program by SIGPIPE for a write to a broken pipe on descriptor 1 or 2
// only, unless it subscribed to SIGPIPE; on any other descriptor the write
// fails with EPIPE (os/signal's doc, "SIGPIPE"). Subscribing would cost
// every guard run one more round trip to the runtime's signal thread,
// about 50 µs of wall time on the benchmark's machine (issue 36); a dup is
// one system call. Any other writer, or a failed dup, is returned as it
// is.
func unbroken(w io.Writer) io.Writer {
	fd := -1
	switch w {
	case os.Stdout:
		fd = 1
	case os.Stderr:
		fd = 2
	}
	if fd < 0 {
		return w
	}
	dup, err := unix.FcntlInt(uintptr(fd), unix.F_DUPFD_CLOEXEC, 3)
	if err != nil {
		return w
	}
	return os.NewFile(uintptr(dup), w.(*os.File).Name())
}
