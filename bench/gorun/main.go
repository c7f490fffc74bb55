// Command gorun is the Go floor guard's closed call is measured against: an
// otherwise empty static Go program that runs a command through os/exec,
// with its standard streams passed through, waits for it and exits with
// its status. What guard costs beyond it is guard's own: its binary and
// package initialisation, its command line and config, its supervision of
// the child, its state.
//
//	gorun COMMAND [ARG...]
package main

import (
	"errors"
	"os"
	"os/exec"
)

func main() {
	if len(os.Args) < 2 {
		os.Stderr.WriteString("usage: gorun COMMAND [ARG...]\n")
		os.Exit(64)
	}
	cmd := exec.Command(os.Args[1], os.Args[2:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		os.Exit(exit.ExitCode())
	case err != nil:
		os.Stderr.WriteString("gorun: " + err.Error() + "\n")
		os.Exit(127)
	}
}
