// Command goflock does what flock(1) does in bench/driver's reference
// scenario, written in Go: it takes an exclusive lock on a file, runs a
// command and waits for it. It shows what the Go runtime's own start costs
// over a C program's, which guard cannot avoid:
//
//	goflock LOCKFILE COMMAND [ARG...]
//
// The lock is the one guard takes: flock(2) on Unix (lock_unix.go),
// LockFileEx on Windows (lock_windows.go).
package main

import (
	"fmt"
	"os"
)

func main() {
	if len(os.Args) < 3 {
		fmt.Fprintln(os.Stderr, "usage: goflock LOCKFILE COMMAND [ARG...]")
		os.Exit(64)
	}
	f, err := os.OpenFile(os.Args[1], os.O_RDWR|os.O_CREATE, 0o600)
	if err == nil {
		err = lock(f)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "goflock:", err)
		os.Exit(1)
	}
	os.Exit(run(os.Args[2:]))
}
