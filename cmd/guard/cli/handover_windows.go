//go:build windows

package cli

import (
	"os"
	"os/signal"
)

// replaceProcess does on Windows what execve(2) does elsewhere, as far as
// Windows can: it has no exec, so it starts argv0 with guard's streams and
// the environment envv, waits for it, and exits with its exit status. A
// Ctrl-C or Ctrl-Break reaches both (the console sends it to every process
// attached to it), so guard ignores it and goes on waiting for the command
// to end. It returns only if the command cannot be started. (Unlike exec,
// the command has a pid of its own, and if guard itself is ended by
// TerminateProcess, the command runs on.)
func replaceProcess(argv0 string, argv []string, envv []string) error {
	p, err := os.StartProcess(argv0, argv, &os.ProcAttr{Env: envv, Files: []*os.File{os.Stdin, os.Stdout, os.Stderr}})
	if err != nil {
		return err
	}
	signal.Ignore(os.Interrupt)
	st, err := p.Wait()
	if err != nil {
		os.Exit(1)
	}
	os.Exit(st.ExitCode())
	return nil
}
