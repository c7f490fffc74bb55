//go:build windows

package notify

import (
	"syscall"

	"golang.org/x/sys/windows"
)

// detached starts the helper as a process group of its own, with a console
// of its own that has no window (CREATE_NO_WINDOW): a Ctrl+C in the
// caller's console does not reach it, and the commands it runs share its
// hidden console. (With no console at all, DETACHED_PROCESS, each console
// program it started would get a console window of its own, popping up on
// the user's screen, and the Ctrl-Break that asks a command to stop at its
// timeout could not reach it.)
func detached() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{CreationFlags: windows.CREATE_NEW_PROCESS_GROUP | windows.CREATE_NO_WINDOW}
}
