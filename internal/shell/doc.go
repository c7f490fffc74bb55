// Package shell reads a shell command line for what it is, with
// mvdan.cc/sh's parser, doing no expansion but quotes and $'...': its
// simple commands (Parse), the program each runs once the programs that
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
// A word that is not literal (a $VARIABLE, a command substitution, a glob)
// is kept as written and marked (Command.Literal). Package shell/bash goes
// further, for the budgets: it expands words as bash does and follows
// what runs other commands.
package shell
