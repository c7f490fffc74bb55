package cli

import (
	_ "embed"
	"fmt"
	"io"
	"strings"

	"github.com/urfave/cli/v2"
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

Example:
   source <(guard completion bash)`,
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return usagef("which shell? bash, zsh or fish")
			}
			switch c.Args().First() {
			case "bash":
				io.WriteString(e.stdout, bashCompletion)
			case "zsh":
				io.WriteString(e.stdout, zshCompletion)
			case "fish":
				script, err := c.App.ToFishCompletion()
				if err != nil {
					return err
				}
				io.WriteString(e.stdout, script+fishKeys)
			default:
				return usagef("no completion for %q; guard has bash, zsh and fish", c.Args().First())
			}
			return nil
		},
	}
}

// Both scripts ask guard itself what can come next: urfave/cli answers a
// command line that ends in --generate-bash-completion with one candidate
// per line (commands, flags, or keys from the state file).

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
		fmt.Fprintln(e.stdout, k)
	}
}

// completeServices prints the services in the cooldown file for a first
// argument, and the configured actions for a second.
func (e *env) completeServices(c *cli.Context) {
	if e.completeFlags(c) {
		return
	}
	cd, err := e.openCooldown(c)
	if err != nil {
		return
	}
	if c.NArg() == 1 {
		for _, a := range cd.Actions {
			fmt.Fprintln(e.stdout, a.Name)
		}
		return
	}
	doc, err := cd.Budgets.Snapshot()
	if err != nil {
		return
	}
	for _, s := range doc.ServiceNames() {
		fmt.Fprintln(e.stdout, s)
	}
}

// completeFlags prints the command's flags when the word being completed
// (the one before --generate-bash-completion) is one, and reports whether
// it did.
func (e *env) completeFlags(c *cli.Context) bool {
	if n := len(e.args); n < 2 || !strings.HasPrefix(e.args[n-2], "-") {
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
	//go:embed completion/keys.fish
	fishKeys string
)
