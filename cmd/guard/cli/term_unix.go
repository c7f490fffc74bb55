//go:build unix

package cli

import (
	"io"
	"os"
	"os/signal"
	"syscall"

	"golang.org/x/sys/unix"

	"guard/internal/supervise"
)

// termSize returns the rows and columns of the terminal w is; 0 and 0 if
// it is none, or does not say. --watch asks before each frame, so that it
// follows a resize.
func termSize(w io.Writer) (rows, cols int) {
	f, ok := w.(*os.File)
	if !ok {
		return 0, 0
	}
	ws, err := unix.IoctlGetWinsize(int(f.Fd()), unix.TIOCGWINSZ)
	if err != nil {
		return 0, 0
	}
	return int(ws.Row), int(ws.Col)
}

// ansiTerminal reports whether w is a terminal, which takes ANSI escape
// sequences (colours, --watch's redraw).
func ansiTerminal(w io.Writer) bool { return supervise.IsTerminal(w) }

// notifyResize sends to c when the terminal is resized (SIGWINCH), so that
// --watch redraws at once; signal.Stop(c) ends it.
func notifyResize(c chan<- os.Signal) { signal.Notify(c, syscall.SIGWINCH) }
