// Package cli is guard's command line: flag parsing, printing and exit
// codes, over the packages that do the work (internal/circuit,
// internal/cooldown, internal/claude, internal/view, and the states
// internal/store opens). cmd/guard is its main; the end-to-end tests run it
// the same way. It is the one place that words errors for people and picks
// exit statuses.
package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"time"

	"guard/config"
	"guard/internal/store"
	"guard/internal/view"
)

// Main runs guard with the process's arguments, streams and environment,
// and returns the status to exit with. It is the one place that reads them
// from the process: everything after reads e.args, e.getenv and e.environ,
// and replaces the process through e.exec, so that tests need not swap
// globals (architecture-2 #11).
func Main() int {
	e := processEnv()
	if url := e.earlyHandoff(); url != "" {
		// A state in PostgreSQL named in the environment goes to guard-pg
		// at once, before this guard spends time on its config. (One named
		// only in the config is handed over once the config is read; so
		// is a completion request that needs the state, which this guard
		// answers itself otherwise.)
		e.handoff(&store.NeedsDriverError{URL: url})
	}
	defer e.recoverPanic()
	return e.main(e.args)
}

// processEnv is the env of this process: its arguments, streams and
// environment, the clock, and exec(2).
func processEnv() *env {
	return &env{
		stdin:   os.Stdin,
		stdout:  os.Stdout,
		stderr:  os.Stderr,
		getenv:  os.Getenv,
		environ: os.Environ,
		now:     time.Now,
		args:    os.Args,
		exec:    replaceProcess,
		exits:   true,
	}
}

// earlyHandoff returns the database URL this guard hands its command line
// over to guard-pg for before it reads its config, or "": the command reads
// a state, the state (or cooldown state) named in the environment is a
// postgres:// URL, and this guard has no PostgreSQL driver of its own. A
// completion request is answered here.
func (e *env) earlyHandoff() string {
	if store.HasBackend(store.KindPostgres) || len(e.args) < 2 || !readsState[e.args[1]] || isCompletion(e.args) {
		return ""
	}
	for _, v := range []string{"GUARD_STATE", "GUARD_COOLDOWN_STATE"} {
		if url := e.getenv(v); config.IsDatabaseURL(url) {
			return url
		}
	}
	return ""
}

// recoverPanic keeps a bug in guard from becoming a block: an unrecovered
// panic exits 2, which Claude Code reads as the hook's deliberate "block".
// It says what happened and exits 1; a guard run whose command had not yet
// started runs it now, unguarded, as on any other trouble of guard's own.
// (A panic on another goroutine cannot be caught here; guard's own
// goroutines only copy streams and wait.)
func (e *env) recoverPanic() {
	r := recover()
	if r == nil {
		return
	}
	fmt.Fprintf(e.stderr, "guard: internal error, please report it: %v\n", r)
	if argv := e.unguardedArgv(); argv != nil {
		if path, err := exec.LookPath(argv[0]); err == nil {
			fmt.Fprintf(e.stderr, "guard: running %s unguarded\n", view.Printable(strings.Join(argv, " ")))
			err = e.exec(path, argv, e.environ())
			fmt.Fprintf(e.stderr, "guard: cannot run it: %v\n", err)
		}
	}
	os.Exit(1)
}

// unguardedArgv is the command a guard run that panicked runs unguarded:
// its command, if it had not started it yet; else nil.
func (e *env) unguardedArgv() []string {
	if len(e.args) < 2 || e.args[1] != "run" || e.childStarted || e.exec == nil {
		return nil
	}
	return Salvage(e.args[2:])
}

// readsState are the commands that read a state, which a guard without the
// database driver hands over to guard-pg when the state is a database.
// (install must not be: it writes the path of the guard that runs it.)
var readsState = map[string]bool{"run": true, "status": true, "report": true, "reset": true, "trip": true,
	"probe": true, "record": true, "disable": true, "enable": true, notifyCommandName: true, "log": true, "state": true, "cooldown": true, "config": true}

// env is what a command may touch of the outside world. Commands write to
// the writers they are given and read the clock through now, so that tests
// need not swap globals.
type env struct {
	stdin   io.Reader
	stdout  io.Writer
	stderr  io.Writer
	getenv  func(string) string
	environ func() []string
	now     func() time.Time

	args []string // the whole command line (global flags moved after the command once main has run)
	// exec replaces the process (replaceProcess): the hand-overs to guard-pg
	// and guard-web, and a panicking guard run's command.
	exec      func(argv0 string, argv []string, envv []string) error
	companion func(name string) (path, why string) // nil: findOurs (tests give their own)
	sigs      chan os.Signal                       // guard run's signals, taken from its start
	sigsReady chan struct{}                        // closed once sigs is subscribed

	// hookTimeout is guard run's --hook-timeout: how long its caller gives
	// the command (0: not given).
	hookTimeout time.Duration
	// recordAnyway is set once guard run stopped its command for its
	// timeout: a signal then no longer ends a wait to record the outcome.
	recordAnyway bool
	// losing is guard run's slot when it can be lost while the command
	// runs (a database's row), which then stops the command.
	losing store.Losing

	logWarned    bool // a failure to write the event log was reported
	onSkipFlag   bool // guard run's on_skip came from --on-skip (see block)
	childStarted bool // guard run started its command (see recoverPanic)
	// runHooks is the state guard run opened, for logging a skip it
	// decides without the state (see guardFailed); nil before.
	runHooks *store.Hooks
	// runShell is guard run's --shell, which runs its fallback too ("":
	// /bin/sh); skipWhy is why guard run did not run its command
	// (breaker.SkipReason, max_concurrent, failure_mode_closed), for the
	// fallback.
	runShell, skipWhy string

	// payloadBuf is the hook payload guard run read from stdin, if
	// payloadRead (see payload).
	payloadBuf  []byte
	payloadRead bool

	// heldWarnings, when set, keeps guard run's warnings until the
	// command's status is known: a hook that exits 2 blocks, and Claude
	// reads its stderr as the reason, to which guard must add nothing.
	heldWarnings *strings.Builder
	// warned, when set, holds the warnings printed so far, each printed
	// once.
	warned map[string]bool
	// watching, when set, keeps the event logs status --watch reads from
	// one frame to the next.
	watching *watchEvents
	fitCols  int // status --watch on a terminal: its width, which keys shorten to fit

	// execKnown, once set, says whether the Claude Code that runs hooks
	// here runs the exec form (install: claudeCodeRunsExec).
	execKnown *bool

	// exits is set when the process ends with the command, so that what
	// the operating system undoes anyway (signal subscriptions) is left.
	exits bool
}

// An exitError carries the status a command wants guard to exit with.
type exitError struct {
	code int
	err  error // printed if not nil
}

func (e *exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit status %d", e.code)
	}
	return e.err.Error()
}

func (e *exitError) Unwrap() error { return e.err }

// exit returns an error that makes guard exit with code and print nothing.
func exit(code int) error {
	if code == 0 {
		return nil
	}
	return &exitError{code: code}
}

// A usageError is a command line guard cannot make sense of.
type usageError struct{ err error }

func (e *usageError) Error() string { return e.err.Error() }
func (e *usageError) Unwrap() error { return e.err }

func usagef(format string, args ...any) error {
	return &usageError{err: fmt.Errorf(format, args...)}
}

// A hintedError is an error with what to do about it: each hint is
// printed as its own "guard: hint: ..." line after the error.
type hintedError struct {
	err   error
	hints []string
}

func (e *hintedError) Error() string { return e.err.Error() }
func (e *hintedError) Unwrap() error { return e.err }

// exitUsage is the status of a command line guard cannot make sense of:
// EX_USAGE of sysexits.h. Never 2, which a Claude hook reads as "block".
const exitUsage = 64

// main runs guard with args and returns its exit status. exitStatus is the
// one place that turns errors into messages and exit statuses: 0 for
// success, the code of an exitError, 64 for a usage error, and 1 for
// anything else. guard never exits 2 on its own account.
func (e *env) main(args []string) int {
	if isCompletion(args) {
		// The flag stays last, where urfave/cli looks for it.
		args = append(hoistGlobalFlags(args[:len(args)-1:len(args)-1]), completionFlag)
		e.args = args
		return e.complete(args)
	}
	args = hoistGlobalFlags(args)
	args = helpCommand(args)
	e.args = args
	if len(args) > 1 && args[1] == "run" {
		// guard's hot path skips urfave/cli when it can.
		if l, ok := parseRunLine(args[2:]); ok {
			return e.exitStatus(e.guardRun(l))
		}
	}
	app := e.app()
	return e.exitStatus(app.Run(reorderFlags(app, args)))
}

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

// exitStatus turns what a command returned into guard's exit status,
// printing the error if there is one to print.
func (e *env) exitStatus(err error) int {
	if err == nil {
		return 0
	}
	var xe *exitError
	if errors.As(err, &xe) {
		if xe.err != nil {
			e.errorf("%v", xe.err)
		}
		return xe.code
	}
	var ue *usageError
	if errors.As(err, &ue) {
		e.errorf("%v", ue.err)
		fmt.Fprintf(e.stderr, "Run 'guard --help' or 'guard COMMAND --help' for usage.\n")
		return exitUsage
	}
	e.errorf("%v", err)
	var he *hintedError
	if errors.As(err, &he) {
		for _, h := range he.hints {
			fmt.Fprintf(e.stderr, "guard: hint: %s\n", safeLine("%s", h))
		}
	}
	return 1
}

// errorf prints an error the one way guard prints errors: one line, with
// the secrets of any database URL in it hidden and what a terminal would
// act on escaped (see safeLine).
func (e *env) errorf(format string, args ...any) {
	fmt.Fprintf(e.stderr, "guard: error: %s\n", safeLine(format, args...))
}

// warnf prints a warning: one line, on stderr, made safe as errorf's.
func (e *env) warnf(format string, args ...any) {
	line := safeLine(format, args...)
	if e.warned != nil {
		// guard status --watch: each warning once, not every second.
		if e.warned[line] {
			return
		}
		e.warned[line] = true
	}
	if e.heldWarnings != nil {
		fmt.Fprintf(e.heldWarnings, "guard: warning: %s\n", line)
		return
	}
	fmt.Fprintf(e.stderr, "guard: warning: %s\n", line)
}

// safeLine formats a message guard prints: a location or an error in it
// may hold a database password (pgx's errors may quote the connection
// string), and a key or a path may hold control characters.
func safeLine(format string, args ...any) string {
	// Line by line: guard's own multi-line warnings keep their lines, and
	// whatever was formatted into them is escaped within its line.
	lines := strings.Split(config.Redact(fmt.Sprintf(format, args...)), "\n")
	for i, l := range lines {
		lines[i] = view.Printable(l)
	}
	return strings.Join(lines, "\n")
}

// holdWarnings keeps warnings back until releaseWarnings.
func (e *env) holdWarnings() { e.heldWarnings = &strings.Builder{} }

// releaseWarnings prints the warnings held back, unless the command exited
// 2 (err is its status): then they are dropped, since Claude reads that
// stderr as the hook's reason for blocking.
func (e *env) releaseWarnings(err error) {
	held := e.heldWarnings
	e.heldWarnings = nil
	var xe *exitError
	if held == nil || (errors.As(err, &xe) && xe.code == 2 && xe.err == nil) {
		return
	}
	io.WriteString(e.stderr, held.String())
}
