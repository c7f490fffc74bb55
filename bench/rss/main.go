//go:build linux

// Command rss runs a command and prints its peak resident set size in KiB.
//
// It exists because a child's peak RSS, as wait4 reports it, starts at the
// size of whatever process forked it: measured straight from the benchmark
// driver, every command would look as big as the driver. This helper is
// small, so the peak it reports is the command's own.
//
// Usage: rss CMD [ARG...]
//
// It is Linux's, as bench/run.sh is: ru_maxrss is in KiB there (in bytes
// on macOS), and Windows has no rusage.
package main

import (
	"fmt"
	"os"
	"os/exec"
	"syscall"
)

func main() {
	cmd := exec.Command(os.Args[1], os.Args[2:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, nil, nil
	_ = cmd.Run()
	if cmd.ProcessState == nil {
		os.Exit(1)
	}
	ru, _ := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	fmt.Println(ru.Maxrss)
}
