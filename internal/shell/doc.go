// Package shell reads a shell command line for what it is, doing no
// expansion but quotes and $'...': its simple commands (package shell/sh's
// Commands, with mvdan.cc/sh's parser), the program each runs once the programs that
// run a command given in their arguments are taken off (Command.Program:
// sudo, env VAR=value, timeout 5, setsid, flock -w 5 FILE, ...), and the
// normal form guard matches budget patterns against (Command.Normal). It
// holds the one table of those programs and their options (runners.go,
// Runner), which install and doctor ("is this hook guard already?"), the
// budgets' normal form, and package shell/bash's reader all read the same
// way. SimpleCommand expands one simple command as sh would with a given
// environment (package supervise names from it a hook that could not
// start). It also quotes words for sh (Quote, Join), the way guard writes
// keys and the hook commands it installs.
//
// This package links no parser: guard run needs only Program, SimpleCommand
// and Quote, and reads the plain lines hooks are made of (words of
// literals, quotes and $VARIABLES) by hand (simple.go), so that no hook
// call pays for mvdan.cc/sh's start-up. A line outside that subset goes to
// the parser when package shell/sh is linked in (it registers itself:
// guard-cli, guard-pg and guard-web); without it (guard), such a line is
// one guard cannot be sure of, the cautious answer.
//
// A word that is not literal (a $VARIABLE, a command substitution, a glob)
// is kept as written and marked (Command.Literal). Package shell/bash goes
// further, for the budgets: it expands words as bash does and follows
// what runs other commands.
package shell
