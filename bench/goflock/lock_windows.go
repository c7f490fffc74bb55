//go:build windows

package main

import (
	"fmt"
	"os"

	"golang.org/x/sys/windows"
)

// lock takes an exclusive LockFileEx lock on f's first byte, waiting for
// it, as gofrs/flock does on the state's lock file.
func lock(f *os.File) error {
	return windows.LockFileEx(windows.Handle(f.Fd()), windows.LOCKFILE_EXCLUSIVE_LOCK, 0, 1, 0, &windows.Overlapped{})
}

// run runs argv (argv[0] a path) with the same streams and environment,
// and returns its exit status.
func run(argv []string) int {
	p, err := os.StartProcess(argv[0], argv, &os.ProcAttr{Env: os.Environ(), Files: []*os.File{os.Stdin, os.Stdout, os.Stderr}})
	if err != nil {
		fmt.Fprintln(os.Stderr, "goflock:", err)
		return 126
	}
	st, err := p.Wait()
	if err != nil {
		return 1
	}
	return st.ExitCode()
}
