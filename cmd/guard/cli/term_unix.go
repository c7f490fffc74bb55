//go:build unix

package cli

import (
	"io"
	"os"
	"os/signal"
	"syscall"

	"golang.org/x/sys/unix"
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

// notifyResize sends to c when the terminal is resized (SIGWINCH), so that
// --watch redraws at once; signal.Stop(c) ends it.
func notifyResize(c chan<- os.Signal) { signal.Notify(c, syscall.SIGWINCH) }
