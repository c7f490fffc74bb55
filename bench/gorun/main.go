// Command gorun is the Go floor guard's closed call is measured against: an
// otherwise empty static Go program that runs a command through os/exec,
// with its standard streams passed through, waits for it and exits with
// its status. What guard costs beyond it is guard's own: its binary and
// package initialisation, its command line and config, its supervision of
// the child, its state.
//
//	gorun COMMAND [ARG...]
//
// Built with -tags gorun_with (bench/run.sh builds it as gorun-with), it
// adds, as $GORUN_WITH names them (a comma-separated list), the parts of
// guard's supervision that cost a closed call start-up time, each done as
// guard does it, so that the driver can list what each costs: "signals"
// (subscribing to the four signals guard passes on, in the background),
// "pipe" (the child's stderr through a pipe copied on), "pdeath" (a
// parent-death signal, set and waited for from a locked thread, and the
// program a child subreaper). See with_linux.go.
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
	err := run(cmd)
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		os.Exit(exit.ExitCode())
	case err != nil:
		os.Stderr.WriteString("gorun: " + err.Error() + "\n")
		os.Exit(127)
	}
}
