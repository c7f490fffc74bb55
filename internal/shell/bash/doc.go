// Package bash is guard's symbolic reader of bash command lines: Read
// returns what a line would run, as a tree of Nodes (Run, Seq, Alt, Loop,
// Unread), without running anything. guard cooldown counts the budgeted
// actions a command takes from it; a wrong reading lets an action dodge
// its budget, so its contract is this.
//
// What it follows, reading the commands they run: ;, &&, ||, pipelines,
// subshells, $(...), <(...) and >(...); if and case (Alt: one branch
// runs); for over words it can read (unrolled, or counted past 256),
// while, until, select and C-style for (a Loop of Unknown count);
// functions and aliases the line defines (both an alias's expansion and
// the word as written, since expand_aliases may be off); eval, trap,
// source and . of what the line gives; the shells' -c, their scripts from
// a here-document, a here-string, a literal pipe or a file the line wrote;
// every program of package shell's Runner table, through Runner.Use, as
// Command.Program reads them (sudo, env, timeout, flock, setsid, ...), the
// commands their options hand a shell (Runner.Commands: rsync -e, tar
// --to-command, git -c alias.x='!...', vim -c '!...', ...) and the
// variables whose value a program runs (shell.CommandVar); su, runuser,
// xargs (with its input's words when they are literal), find -exec,
// watch, parallel, sem, entr, ssh and pssh, clush, ansible -a, salt
// cmd.run, tmux, screen, script -c, sg, newgrp, at, batch, crontab's jobs,
// make's recipes from the line (searched as code), git bisect run,
// submodule foreach, rebase --exec, git config's commands (installed, run
// again and again), and guard run. A file written where a program runs it
// later (.git/hooks, ~/.bashrc, cron, systemd) is installed, as crontab
// installs; a file run that the line did not write under that name, when
// the line wrote files, is searched as the text the line wrote (it may be
// one of them under another name: cp to a directory, cd, ln, dd).
//
// What it expands, as bash does: quotes, backslashes (in a command's
// words and an assignment's value alike: S=we\b is web), $'...' and $"...",
// brace expansion, arithmetic (when each operand is a number, or names
// one: X=1+1; $((X)) is a word it cannot know, as bash evaluates the value
// as arithmetic in turn), and variables and positional parameters the
// line itself sets (in the shell, a subshell, a function with its local
// variables, sh -c's arguments, exported ones into a new shell), joined
// across branches: a variable two branches set apart is one it cannot
// know. What a word's expansion assigns as it runs (arithmetic's N=2 or
// N++, in (( )), let's words, $((...)), [[ X -eq Y ]] or an array's
// index; ${N:=W}), and what is assigned to a variable declared -i
// (arithmetic), it makes unknown before the words after it are expanded.
// Arithmetic evaluates the text it expands to and the values of the
// variables it reads as arithmetic in turn (X='N=2'; (( X )) assigns N):
// a value it cannot know makes every variable unknown, unless it is known
// to be a number (arithmetic assigned it, or each branch left it one), so
// (( i++ )) in a loop forgets only i, but (( X )) or (( $X )) with X from
// outside the line, or read from input, forgets all. A nameref (declare,
// local or typeset -n, or options it cannot read) is unknown, and
// assigning or unsetting it makes what it refers to unknown (every
// variable when it cannot tell what). A declaration, unset or read whose
// word it cannot read (declare "$X", unset $V), and code it cannot read
// (eval "$X", source of a file it does not have), may assign or unset any
// variable: all become unknown, and after such code any variable may be a
// nameref or an integer, so each assignment after it forgets all the
// others too. A function's local N is unknown (unset, or the caller's
// value with localvar_inherit). A word that needs what it cannot know (a
// variable from outside, a command's output, a glob) stays as written
// and is marked not literal.
//
// What it marks: Unread for a part it cannot read, with the Reason:
// Hidden when that part may run any command (eval "$CMD", curl ... | bash,
// a script the line wrote with output guard cannot tell, an unquoted $CMD
// as a program); Opaque for code in another language (python -c, awk, sed
// with e, make's recipes, an interpreter's code from stdin, with its
// arguments), which its caller searches, and among those Lang for a
// program's own language (vim -c, psql -c), which its caller reads for
// commands it spells; Limit for a part over
// one of the limits (MaxLength, MaxNesting, MaxDepth, a number of steps),
// which it has not read at all; and a line that does not parse from its
// failing line on (bash has run the lines before it). MayRun for a program
// it does not know, whose words may hold a command (ArgCommand and
// ArgScript read them); one known to take its words as data (echo, grep,
// git commit, ...) is not marked.
//
// What it cannot see: scripts, makefiles and crontabs on disk the line
// did not write; what a program takes from its own configuration (a
// .gitconfig alias, ~/.ssh/config); variables exported before the line;
// options it does not know of programs that run their value; what a
// program builds at run time. A panic in the reader becomes an Unread part
// marked Failed. It is not safe for concurrent use within one Read, and
// each Read is independent.
package bash
