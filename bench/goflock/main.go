// Command goflock does what flock(1) does in bench/driver's reference
// scenario, written in Go: it takes an exclusive lock on a file, runs a
// command and waits for it. It shows what the Go runtime's own start costs
// over a C program's, which guard cannot avoid:
//
//	goflock LOCKFILE COMMAND [ARG...]
package main

import (
	"fmt"
	"os"
	"syscall"
)

func main() {
	if len(os.Args) < 3 {
		fmt.Fprintln(os.Stderr, "usage: goflock LOCKFILE COMMAND [ARG...]")
		os.Exit(64)
	}
	f, err := os.OpenFile(os.Args[1], os.O_RDWR|os.O_CREATE, 0o600)
	if err == nil {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "goflock:", err)
		os.Exit(1)
	}
	pid, err := syscall.ForkExec(os.Args[2], os.Args[2:], &syscall.ProcAttr{Env: os.Environ(), Files: []uintptr{0, 1, 2}})
	if err != nil {
		fmt.Fprintln(os.Stderr, "goflock:", err)
		os.Exit(126)
	}
	var ws syscall.WaitStatus
	if _, err := syscall.Wait4(pid, &ws, 0, nil); err != nil {
		os.Exit(1)
	}
	os.Exit(ws.ExitStatus())
}
