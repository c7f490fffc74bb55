package cli

import (
	"slices"
	"strings"

	"guard/cmd/guard/guardrun"
	"guard/internal/store"
)

// Main runs guard-cli (and guard-pg and guard-web, which are guard-cli
// with a driver or the dashboard linked in) with the process's arguments,
// streams and environment, and returns the status to exit with. It is the
// one place that reads them from the process: everything after reads
// e.Args, e.Getenv and e.Environ, and replaces the process through e.Exec,
// so that tests need not swap globals (architecture-2 #11).
func Main() int {
	e := &env{Env: *guardrun.ProcessEnv()}
	if url := e.EarlyHandoff(); url != "" {
		// A state in PostgreSQL named in the environment goes to guard-pg
		// at once, before this guard spends time on its config. (One named
		// only in the config is handed over once the config is read; so
		// is a completion request that needs the state, which this guard
		// answers itself otherwise.)
		e.Handoff(&store.NeedsDriverError{URL: url})
	}
	defer e.RecoverPanic()
	return e.main(e.Args)
}

// env is what a command may touch of the outside world: guard run's
// (guardrun.Env, which holds the streams, the environment, the clock and
// the one exit-code map), and what status --watch and install keep.
type env struct {
	guardrun.Env

	// watching, when set, keeps the event logs status --watch reads from
	// one frame to the next.
	watching *watchEvents
	fitCols  int // status --watch on a terminal: its width, which keys shorten to fit

	// execKnown, once set, says whether the Claude Code that runs hooks
	// here runs the exec form (install: claudeCodeRunsExec).
	execKnown *bool
}

// main runs guard with args and returns its exit status. ExitStatus is the
// one place that turns errors into messages and exit statuses: 0 for
// success, the code of an ExitError, 64 for a usage error, and 1 for
// anything else. guard never exits 2 on its own account.
func (e *env) main(args []string) int {
	if guardrun.IsCompletion(args) {
		// The flag stays last, where urfave/cli looks for it.
		args = append(hoistGlobalFlags(args[:len(args)-1:len(args)-1]), guardrun.CompletionFlag)
		e.Args = args
		return e.complete(args)
	}
	args = hoistGlobalFlags(args)
	args = helpCommand(args)
	e.Args = args
	if len(args) > 1 && args[1] == "run" {
		// guard run's own parser first, as the lean guard reads it.
		if l, ok := guardrun.ParseRunLine(args[2:]); ok {
			return e.ExitStatus(e.Run(l))
		}
	}
	app := e.app()
	return e.ExitStatus(app.Run(reorderFlags(app, args)))
}

// exit returns an error that makes guard exit with code and print nothing.
func exit(code int) error { return guardrun.Exit(code) }

// usagef returns a usage error: guard exits 64 (guardrun.ExitUsage).
func usagef(format string, args ...any) error { return guardrun.Usagef(format, args...) }

// helpCommand reads "guard help [COMMAND...]" as "guard [COMMAND...]
// --help": the help of guard, or of that command, on stdout, exit 0, as
// "guard cooldown help" has it. (A command that is not guard's is still a
// usage error.) Global flags given with it (guard --state X help status)
// are dropped: help reads no state. Any other command line is returned as
// it is.
func helpCommand(args []string) []string {
	if len(args) < 2 || args[1] != "help" {
		return args
	}
	out := []string{args[0]}
	for i := 2; i < len(args); i++ {
		a := args[i]
		name, _, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		switch {
		case strings.HasPrefix(a, "-") && slices.Contains(globalFlags, name):
			if !hasValue {
				i++ // its value
			}
		case a == "help" && len(out) == 1:
		default:
			out = append(out, a)
		}
	}
	return append(out, "--help")
}
