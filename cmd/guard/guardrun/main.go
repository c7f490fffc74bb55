package guardrun

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"time"

	"guard/config"
	"guard/internal/store"
	"guard/internal/view"
)

// Main runs guard with the process's arguments, streams and environment,
// and returns the status to exit with: guard run, when it reads the command
// line and the config itself; every other command line goes to guard-cli,
// which it replaces the process with (see HandOver). It is the one place
// that reads them from the process: everything after reads e.Args,
// e.Getenv and e.Environ, and replaces the process through e.Exec, so that
// tests need not swap globals (architecture-2 #11).
func Main() int {
	e := ProcessEnv()
	defer e.RecoverPanic() // the hand-overs below included
	if url := e.EarlyHandoff(); url != "" {
		// A state in PostgreSQL named in the environment goes to guard-pg
		// at once, before this guard spends time on its config. (One named
		// only in the config is handed over once the config is read.)
		e.Handoff(&store.NeedsDriverError{URL: url})
	}
	e.lean = true
	return e.main()
}

// main is Main once the process is read: guard run with a command line
// ParseRunLine reads, else the hand-over to guard-cli. A guard run line
// that guard-cli would read (--help, a flag given twice, a bad value) and
// that cannot be handed over still runs its command, unguarded, if it can
// be found (see RunUnparsed): a hook always runs.
func (e *Env) main() int {
	if len(e.Args) < 2 || e.Args[1] != "run" {
		return e.ExitStatus(e.HandOver())
	}
	l, ok := ParseRunLine(e.Args[2:])
	if ok {
		return e.ExitStatus(e.Run(l))
	}
	return e.ExitStatus(e.RunUnparsed(e.HandOver()))
}

// ProcessEnv is the Env of this process: its arguments, streams and
// environment, the clock, and exec(2).
func ProcessEnv() *Env {
	e := &Env{
		Stdin:   os.Stdin,
		Stdout:  os.Stdout,
		Stderr:  os.Stderr,
		Getenv:  os.Getenv,
		Environ: os.Environ,
		Now:     time.Now,
		Args:    os.Args,
		Exec:    replaceProcess,
		Exits:   true,
	}
	if len(os.Args) > 1 && os.Args[1] == "run" {
		// Whichever way guard run goes (its command line read, or not
		// and the command run unguarded), in whichever binary.
		e.unbreakStreams()
	}
	return e
}

// unbreakStreams has guard write its own output through duplicates of fd
// 1 and 2 (see unbroken), so that a reader of its output that went away
// (guard run ... 2>&1 | head -1) cannot kill it by SIGPIPE before it
// records the run, or, with the parent-death signal, kill the command it
// runs: the write fails with EPIPE instead. It changes only the streams
// that are still the process's own, so it may be called more than once.
func (e *Env) unbreakStreams() {
	e.Stdout, e.Stderr = unbroken(e.Stdout), unbroken(e.Stderr)
}

// EarlyHandoff returns the database URL this guard hands its command line
// over to guard-pg for before it reads its config, or "": the command reads
// a state, the state (or cooldown state) named in the environment is a
// postgres:// URL, and this guard has no PostgreSQL driver of its own. A
// completion request is answered here.
func (e *Env) EarlyHandoff() string {
	if store.HasBackend(store.KindPostgres) || len(e.Args) < 2 || !readsState[e.Args[1]] || IsCompletion(e.Args) {
		return ""
	}
	for _, v := range []string{"GUARD_STATE", "GUARD_COOLDOWN_STATE"} {
		if url := e.Getenv(v); config.IsDatabaseURL(url) {
			return url
		}
	}
	return ""
}

// RecoverPanic keeps a bug in guard from becoming a block: an unrecovered
// panic exits 2, which Claude Code reads as the hook's deliberate "block".
// It says what happened and exits 1; a guard run whose command had not yet
// started runs it now, unguarded, as on any other trouble of guard's own.
// (A panic on another goroutine cannot be caught here; guard's own
// goroutines only copy streams and wait.)
func (e *Env) RecoverPanic() {
	r := recover()
	if r == nil {
		return
	}
	fmt.Fprintf(e.Stderr, "guard: internal error, please report it: %v\n", r)
	if argv := e.unguardedArgv(); argv != nil {
		if path, err := exec.LookPath(argv[0]); err == nil {
			fmt.Fprintf(e.Stderr, "guard: running %s unguarded\n", view.Printable(strings.Join(argv, " ")))
			if e.payloadRead && len(e.payloadBuf) > 0 {
				// guard read the hook's payload off stdin already: the
				// command gets it back in front of the rest (e.Stdin),
				// which an exec could not give it.
				os.Exit(e.runWithStdin(path, argv))
			}
			err = e.Exec(path, argv, e.Environ())
			fmt.Fprintf(e.Stderr, "guard: cannot run it: %v\n", err)
		}
	}
	os.Exit(1)
}

// runWithStdin runs argv (its program at path) with e's streams and
// environment, and returns its exit status (1 if it had none: a signal).
func (e *Env) runWithStdin(path string, argv []string) int {
	cmd := &exec.Cmd{Path: path, Args: argv, Env: e.Environ(), Stdin: e.Stdin, Stdout: e.Stdout, Stderr: e.Stderr}
	if err := cmd.Run(); err != nil && cmd.ProcessState == nil {
		fmt.Fprintf(e.Stderr, "guard: cannot run it: %v\n", err)
		return 1
	}
	if code := cmd.ProcessState.ExitCode(); code >= 0 {
		return code
	}
	return 1
}

// unguardedArgv is the command a guard run that panicked runs unguarded:
// its command, if it had not started it yet; else nil.
func (e *Env) unguardedArgv() []string {
	if len(e.Args) < 2 || e.Args[1] != "run" || e.childStarted || e.Exec == nil {
		return nil
	}
	return Salvage(e.Args[2:])
}

// readsState are the commands that read a state, which a guard without the
// database driver hands over to guard-pg when the state is a database.
// (install must not be: it writes the path of the guard that runs it.)
var readsState = map[string]bool{"run": true, "status": true, "report": true, "reset": true, "trip": true,
	"probe": true, "record": true, "disable": true, "enable": true, NotifyCommand: true, "log": true, "state": true, "cooldown": true, "config": true}

// An Env is what a command may touch of the outside world: guard run's
// here, and every other command's in package cli, whose env embeds it.
// Commands write to the writers they are given and read the clock through
// Now, so that tests need not swap globals.
type Env struct {
	Stdin   io.Reader
	Stdout  io.Writer
	Stderr  io.Writer
	Getenv  func(string) string
	Environ func() []string
	Now     func() time.Time

	Args []string // the whole command line (global flags moved after the command once main has run)
	// Exec replaces the process (replaceProcess): the hand-overs to
	// guard-cli, guard-pg and guard-web, and a panicking guard run's
	// command.
	Exec      func(argv0 string, argv []string, envv []string) error
	Companion func(name string) (path, why string) // nil: findOurs (tests give their own)
	// Sigs are the signals a command passes on, taken from its start (guard
	// run's, guard cooldown run's); SigsReady is closed once Sigs is
	// subscribed.
	Sigs      chan os.Signal
	SigsReady chan struct{}
	// Warned, when set, holds the warnings printed so far, each printed
	// once.
	Warned map[string]bool
	// Exits is set when the process ends with the command, so that what
	// the operating system undoes anyway (signal subscriptions) is left.
	Exits bool
	// lean is set in the guard binary, which has guard run only: the
	// on_state_change helper is then guard-cli (see StartNotes).
	lean bool

	// hookTimeout is guard run's --hook-timeout: how long its caller gives
	// the command (0: not given).
	hookTimeout time.Duration
	// recordAnyway is set once guard run stopped its command for its
	// timeout: a signal then no longer ends a wait to record the outcome.
	recordAnyway bool
	// losing is guard run's slot when it can be lost while the command
	// runs (a database's row), which then stops the command.
	losing store.Losing
	// hold is the slot file the command holds open too (store.Held), or
	// nil: its lock then lasts while anything the command started runs.
	hold *os.File

	logWarned    bool // a failure to write the event log was reported
	onSkipFlag   bool // guard run's on_skip came from --on-skip (see block)
	childStarted bool // guard run started its command (see recoverPanic)
	// host is Host(Getenv), asked once a process (see hostName): the
	// state's backend and guard run's leases both need it.
	host string
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
}

// CompletionFlag ends the command line of a completion request: the
// scripts run guard with the words typed so far and this flag (urfave/cli's
// protocol), and guard prints what may come next, one candidate per line.
// It is one only as the last word; anywhere else it is an argument like
// any other.
const CompletionFlag = "--generate-bash-completion"

// IsCompletion reports whether args, from the program name on, is a
// completion request.
func IsCompletion(args []string) bool {
	return len(args) > 1 && args[len(args)-1] == CompletionFlag
}
