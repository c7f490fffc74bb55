package cli

import (
	_ "embed"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"guard/internal/view"
)

func (e *env) completionCommand() *cli.Command {
	return &cli.Command{
		Name:      "completion",
		Usage:     "print a shell completion script for bash, zsh or fish",
		ArgsUsage: "bash|zsh|fish",
		Description: `Prints a script that completes guard's commands, flags, and the keys and
services in your state files. Install it once:

   bash:  guard completion bash > ~/.local/share/bash-completion/completions/guard
          (or add 'source <(guard completion bash)' to ~/.bashrc)
   zsh:   guard completion zsh > "${fpath[1]}/_guard"
          (or add 'source <(guard completion zsh)' to ~/.zshrc, after compinit)
   fish:  guard completion fish > ~/.config/fish/completions/guard.fish

On Windows, use the bash script in Git Bash (which Claude Code runs hooks
with): add 'source <(guard completion bash)' to ~/.bashrc there (it is
not tried on Windows in CI, which runs Linux only). PowerShell and cmd get
no completion: guard has no script for them (urfave/cli, which guard's
completion is built on, offers none that completes a command's words).

Completing never runs or records anything. After "--", and from the command
of 'guard run' or 'guard cooldown run' on, the shell completes file names.
Keys with control characters are not offered (type them with $'...').

Example:
   source <(guard completion bash)`,
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return usagef("which shell? bash, zsh or fish")
			}
			switch c.Args().First() {
			case "bash":
				io.WriteString(e.Stdout, bashCompletion)
			case "zsh":
				io.WriteString(e.Stdout, zshCompletion)
			case "fish":
				io.WriteString(e.Stdout, fishCompletion)
			default:
				return usagef("no completion for %q; guard has bash, zsh and fish", c.Args().First())
			}
			return nil
		},
		BashComplete: func(c *cli.Context) {
			if c.NArg() == 0 {
				fmt.Fprint(e.Stdout, "bash\nzsh\nfish\n")
			}
		},
	}
}

// complete answers a completion request (args ends in guardrun.CompletionFlag). It
// never runs a command's action: a request is answered from the command
// line and the state, read only. It prints nothing where the word belongs
// to a command guard runs (see completesChild), so that the shell
// completes file names there.
func (e *env) complete(args []string) int {
	app := e.app()
	if completesChild(app, args[1:len(args)-1]) {
		return 0
	}
	disarm(app)
	_ = app.Run(args) // what cannot be completed is not, silently
	return 0
}

// disarm makes every action of app do nothing: urfave/cli answers a
// completion request instead of running the command, and this holds
// whatever it makes of the line.
func disarm(app *cli.App) {
	none := func(*cli.Context) error { return nil }
	app.Action, app.Before, app.After = none, nil, nil
	var walk func([]*cli.Command)
	walk = func(cmds []*cli.Command) {
		for _, c := range cmds {
			c.Action, c.Before, c.After, c.OnUsageError = none, nil, nil, nil
			walk(c.Subcommands)
		}
	}
	walk(app.Commands)
}

// childAt is, for the commands that run a command of the user's, how many
// arguments come before it: guard run CMD, guard cooldown run SERVICE
// ACTION CMD.
var childAt = map[string]int{"run": 0, "cooldown run": 2}

// completesChild reports whether the word being completed after words (the
// command line from the command's name on) is not guard's: it follows
// "--", or it is (or follows) the command guard run or guard cooldown run
// would run, or the value of a flag. words ends with the word being
// completed when that starts with "-" (the scripts pass it then).
func completesChild(app *cli.App, words []string) bool {
	if slices.Contains(words, "--") {
		return true
	}
	cmds := app.Commands
	var cmd *cli.Command
	var path []string
	i := 0
	for ; i < len(words); i++ {
		next := findCommand(cmds, words[i])
		if next == nil {
			break
		}
		cmd, cmds = next, next.Subcommands
		path = append(path, next.Name)
	}
	need, ok := childAt[strings.Join(path, " ")]
	if !ok {
		return false
	}
	takesValue := flagsWithValues(cmd)
	args := 0
	for j := i; j < len(words); j++ {
		w := words[j]
		if len(w) < 2 || w[0] != '-' {
			args++
			if args > need {
				return true
			}
			continue
		}
		name, _, hasValue := strings.Cut(strings.TrimLeft(w, "-"), "=")
		if takesValue[name] && !hasValue {
			if j+1 == len(words) {
				return true // the word is this flag's value
			}
			j++
		}
	}
	last := ""
	if i < len(words) {
		last = words[len(words)-1]
	}
	// With all the arguments before the command given, the word is the
	// command, unless it is a flag being typed.
	return args == need && !strings.HasPrefix(last, "-")
}

// flagsWithValues are the names of cmd's flags that take a value.
func flagsWithValues(cmd *cli.Command) map[string]bool {
	m := map[string]bool{}
	for _, f := range cmd.Flags {
		_, isBool := f.(*cli.BoolFlag)
		for _, n := range f.Names() {
			m[n] = !isBool
		}
	}
	return m
}

// offer prints a completion candidate taken from a state file (a key, a
// service, an action), unless it holds a character a terminal acts on: one
// candidate per line is the protocol, and the shells would print it raw.
func (e *env) offer(candidate string) {
	if candidate != "" && view.Printable(candidate) == candidate && !strings.ContainsAny(candidate, "\n\r") {
		fmt.Fprintln(e.Stdout, candidate)
	}
}

// completeKeys prints the keys in the hook state file, for completing
// commands that take a KEY.
func (e *env) completeKeys(c *cli.Context) {
	if e.completeFlags(c) {
		return
	}
	_, _, doc, err := e.snapshot(c)
	if err != nil {
		return
	}
	for _, k := range doc.Keys() {
		e.offer(k)
	}
}

// completeServices prints the services in the cooldown file for a first
// argument, and the configured actions for a second (of the commands that
// take SERVICE ACTION).
func (e *env) completeServices(c *cli.Context) {
	if e.completeFlags(c) {
		return
	}
	takesAction := strings.HasPrefix(c.Command.ArgsUsage, "SERVICE ACTION")
	if c.NArg() > 1 || c.NArg() == 1 && !takesAction {
		return
	}
	cd, err := e.openCooldown(c)
	if err != nil {
		return
	}
	if c.NArg() == 1 {
		for _, a := range cd.Actions {
			e.offer(a.Name)
		}
		return
	}
	doc, err := cd.Budgets.Snapshot()
	if err != nil {
		return
	}
	for _, s := range doc.ServiceNames() {
		e.offer(s)
	}
}

// completeFlags prints the command's flags when the word being completed
// (the one before --generate-bash-completion) is one, and reports whether
// it did.
func (e *env) completeFlags(c *cli.Context) bool {
	if n := len(e.Args); n < 2 || !strings.HasPrefix(e.Args[n-2], "-") {
		return false
	}
	for _, f := range c.Command.Flags {
		for _, n := range f.Names() {
			if len(n) > 1 {
				fmt.Fprintf(c.App.Writer, "--%s\n", n)
			}
		}
	}
	return true
}

// The completion scripts: each asks guard what comes next
// (--generate-bash-completion, urfave/cli's protocol), so that keys and
// services come from the state files.
var (
	//go:embed completion/guard.bash
	bashCompletion string
	//go:embed completion/_guard
	zshCompletion string
	//go:embed completion/guard.fish
	fishCompletion string
)
