package main

import (
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

const bashCompletion = `# bash completion for guard: source <(guard completion bash)
_guard_complete() {
  local cur=${COMP_WORDS[COMP_CWORD]} candidates c prefix=
  local -a args=("${COMP_WORDS[@]:1:COMP_CWORD-1}")
  if [[ -n $COMP_LINE ]]; then
    # bash splits words at ':' too (COMP_WORDBREAKS); keys such as
    # svc:lint are one word to guard, so take the word from the line.
    local line=${COMP_LINE:0:COMP_POINT}
    cur=${line##*[[:space:]]}
    read -ra args <<<"${line%"$cur"}"
    args=("${args[@]:1}")
    [[ $cur == *:* ]] && prefix=${cur%"${cur##*:}"}
  fi
  if [[ $cur == -* ]]; then
    candidates=$("${COMP_WORDS[0]}" "${args[@]}" "$cur" --generate-bash-completion 2>/dev/null)
  else
    candidates=$("${COMP_WORDS[0]}" "${args[@]}" --generate-bash-completion 2>/dev/null)
  fi
  COMPREPLY=()
  while IFS= read -r c; do
    # bash replaces only what follows the last ':' of the word.
    [[ -n $c && $c == "$cur"* ]] && COMPREPLY+=("$(printf '%q' "${c#"$prefix"}")")
  done <<<"$candidates"
}
complete -o default -F _guard_complete guard
`

const zshCompletion = `#compdef guard
# zsh completion for guard: source <(guard completion zsh)
_guard() {
  local cur=${words[CURRENT]}
  local -a args candidates
  args=("${(Q)words[2,CURRENT-1][@]}")
  if [[ $cur == -* ]]; then
    candidates=("${(@f)$(${words[1]} "${args[@]}" "$cur" --generate-bash-completion 2>/dev/null)}")
  else
    candidates=("${(@f)$(${words[1]} "${args[@]}" --generate-bash-completion 2>/dev/null)}")
  fi
  if [[ -n ${candidates[1]} ]]; then
    compadd -- "${candidates[@]}"
  else
    _files
  fi
}
if [[ $funcstack[1] == _guard ]]; then
  _guard "$@"
else
  compdef _guard guard
fi
`

// fishKeys adds the keys and services in the state files to the fish
// script that urfave/cli writes, which knows only commands and flags.
const fishKeys = `
# Keys and services, from the state files.
complete -c guard -n '__fish_seen_subcommand_from reset trip probe' -f -a '(guard reset --generate-bash-completion 2>/dev/null)'
complete -c guard -n '__fish_seen_subcommand_from healthy unhealthy' -f -a '(guard cooldown healthy --generate-bash-completion 2>/dev/null)'
`

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
