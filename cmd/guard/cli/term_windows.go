//go:build windows

package cli

import (
	"io"
	"os"

	"golang.org/x/sys/windows"
)

// termSize returns the rows and columns of the console window w is; 0 and
// 0 if it is none. --watch asks before each frame, so that it follows a
// resize.
func termSize(w io.Writer) (rows, cols int) {
	f, ok := w.(*os.File)
	if !ok {
		return 0, 0
	}
	var info windows.ConsoleScreenBufferInfo
	if windows.GetConsoleScreenBufferInfo(windows.Handle(f.Fd()), &info) != nil {
		return 0, 0
	}
	return int(info.Window.Bottom-info.Window.Top) + 1, int(info.Window.Right-info.Window.Left) + 1
}

// notifyResize does nothing: Windows has no SIGWINCH. --watch still takes
// the new size at its next frame.
func notifyResize(c chan<- os.Signal) {}
