//go:build unix

package main

import (
	"fmt"
	"os"
	"syscall"
)

// lock takes an exclusive flock(2) on f, waiting for it.
func lock(f *os.File) error { return syscall.Flock(int(f.Fd()), syscall.LOCK_EX) }

// run runs argv (argv[0] a path) with the same streams and environment,
// and returns its exit status: fork, exec and wait4, as flock(1) does.
func run(argv []string) int {
	pid, err := syscall.ForkExec(argv[0], argv, &syscall.ProcAttr{Env: os.Environ(), Files: []uintptr{0, 1, 2}})
	if err != nil {
		fmt.Fprintln(os.Stderr, "goflock:", err)
		return 126
	}
	var ws syscall.WaitStatus
	if _, err := syscall.Wait4(pid, &ws, 0, nil); err != nil {
		return 1
	}
	return ws.ExitStatus()
}
