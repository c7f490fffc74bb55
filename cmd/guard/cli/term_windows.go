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

// ansiTerminal reports whether w is a console that takes ANSI escape
// sequences (colours, --watch's redraw), turning them on where the
// console can (ENABLE_VIRTUAL_TERMINAL_PROCESSING, Windows 10 and later):
// a console that starts without them (a cmd or PowerShell window of the
// old console host) would print them as text. Git Bash's terminal is no
// console: guard writes there as to a pipe.
func ansiTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	h := windows.Handle(f.Fd())
	var mode uint32
	if windows.GetConsoleMode(h, &mode) != nil {
		return false
	}
	return mode&windows.ENABLE_VIRTUAL_TERMINAL_PROCESSING != 0 ||
		windows.SetConsoleMode(h, mode|windows.ENABLE_VIRTUAL_TERMINAL_PROCESSING) == nil
}

// notifyResize does nothing: Windows has no SIGWINCH. --watch still takes
// the new size at its next frame.
func notifyResize(c chan<- os.Signal) {}
