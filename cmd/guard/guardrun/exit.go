package guardrun

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"guard/config"
	"guard/internal/view"
)

// An ExitError carries the status a command wants guard to exit with.
type ExitError struct {
	Code int
	Err  error // printed if not nil
}

func (e *ExitError) Error() string {
	if e.Err == nil {
		return fmt.Sprintf("exit status %d", e.Code)
	}
	return e.Err.Error()
}

func (e *ExitError) Unwrap() error { return e.Err }

// Exit returns an error that makes guard exit with code and print nothing.
func Exit(code int) error {
	if code == 0 {
		return nil
	}
	return &ExitError{Code: code}
}

// A UsageError is a command line guard cannot make sense of.
type UsageError struct{ Err error }

func (e *UsageError) Error() string { return e.Err.Error() }

func (e *UsageError) Unwrap() error { return e.Err }

// Usagef returns a UsageError: guard exits ExitUsage (64).
func Usagef(format string, args ...any) error {
	return &UsageError{Err: fmt.Errorf(format, args...)}
}

// A HintedError is an error with what to do about it: each hint is
// printed as its own "guard: hint: ..." line after the error.
type HintedError struct {
	Err   error
	Hints []string
}

func (e *HintedError) Error() string { return e.Err.Error() }

func (e *HintedError) Unwrap() error { return e.Err }

// ExitUsage is the status of a command line guard cannot make sense of:
// EX_USAGE of sysexits.h. Never 2, which a Claude hook reads as "block".
const ExitUsage = 64

// ExitStatus turns what a command returned into guard's exit status,
// printing the error if there is one to print.
func (e *Env) ExitStatus(err error) int {
	if err == nil {
		return 0
	}
	var xe *ExitError
	if errors.As(err, &xe) {
		if xe.Err != nil {
			e.Errorf("%v", xe.Err)
		}
		return xe.Code
	}
	var ue *UsageError
	if errors.As(err, &ue) {
		e.Errorf("%v", ue.Err)
		fmt.Fprintf(e.Stderr, "Run 'guard --help' or 'guard COMMAND --help' for usage.\n")
		return ExitUsage
	}
	e.Errorf("%v", err)
	var he *HintedError
	if errors.As(err, &he) {
		for _, h := range he.Hints {
			fmt.Fprintf(e.Stderr, "guard: hint: %s\n", safeLine("%s", h))
		}
	}
	return 1
}

// Errorf prints an error the one way guard prints errors: one line, with
// the secrets of any database URL in it hidden and what a terminal would
// act on escaped (see safeLine).
func (e *Env) Errorf(format string, args ...any) {
	fmt.Fprintf(e.Stderr, "guard: error: %s\n", safeLine(format, args...))
}

// Warnf prints a warning: one line, on stderr, made safe as errorf's.
func (e *Env) Warnf(format string, args ...any) {
	line := safeLine(format, args...)
	if e.Warned != nil {
		// guard status --watch: each warning once, not every second.
		if e.Warned[line] {
			return
		}
		e.Warned[line] = true
	}
	if e.heldWarnings != nil {
		fmt.Fprintf(e.heldWarnings, "guard: warning: %s\n", line)
		return
	}
	fmt.Fprintf(e.Stderr, "guard: warning: %s\n", line)
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
func (e *Env) holdWarnings() { e.heldWarnings = &strings.Builder{} }

// releaseWarnings prints the warnings held back, unless the command exited
// 2 (err is its status): then they are dropped, since Claude reads that
// stderr as the hook's reason for blocking.
func (e *Env) releaseWarnings(err error) {
	held := e.heldWarnings
	e.heldWarnings = nil
	var xe *ExitError
	if held == nil || (errors.As(err, &xe) && xe.Code == 2 && xe.Err == nil) {
		return
	}
	io.WriteString(e.Stderr, held.String())
}
