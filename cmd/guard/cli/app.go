package cli

import (
	"guard/cmd/guard/guardrun"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"
)

func (e *env) app() *cli.App {
	cli.VersionPrinter = printVersion
	app := &cli.App{
		Name:      "guard",
		Usage:     "keep runaway automation in check",
		UsageText: "guard COMMAND [FLAGS] [ARGS]",
		Description: `guard wraps a command, such as a Claude Code hook, in a circuit breaker whose
memory lives in a shared state file. After failure_threshold failures (3) the
circuit opens and the command is skipped (guard exits 0, so the agent carries
on) until its cooldown (5m, doubling on each failed probe) has passed; then one
call probes, and success_threshold successful probes (2) close it again.

Examples:
   guard run -- python3 lint.py             wrap a command
   guard run -c 'npx prettier --check .'    wrap a shell string, as Claude runs hooks
   guard run --timeout 30s -- make test     stop it if it hangs
   guard status                             what is open, and why
   guard reset "python3 lint.py"            let a key run again now

State lives in ~/.claude/hook_state.json (GUARD_STATE or --state to move it,
or a postgres:// URL to share it across hosts); settings in
~/.claude/guardrails.yaml (GUARD_CONFIG or --config). The global options
--config, --state and --cooldown-state may come before the command or after
it, for every command that reads state (all but install, uninstall and
completion). A usage error exits 64: guard never exits 2, a Claude hook's
"block", on its own account.`,
		Version:         "-",  // printed by printVersion
		HideHelpCommand: true, // helpCommandEntry instead, worded as guard's
		// The state-reading commands' flags, which may come before the
		// command too (hoistGlobalFlags moves them after it): listed
		// here so that guard --help shows them (newcomer #8).
		Flags:                stateFlags(),
		Reader:               e.Stdin,
		Writer:               e.Stdout,
		ErrWriter:            e.Stderr,
		EnableBashCompletion: true,
		// guard decides exit statuses in one place, env.main.
		ExitErrHandler: func(*cli.Context, error) {},
		Commands: []*cli.Command{
			e.runCommand(),
			e.statusCommand(),
			e.reportCommand(),
			e.serveCommand(),
			e.resetCommand(),
			e.tripCommand(),
			e.probeCommand(),
			e.recordCommand(),
			e.disableCommand(),
			e.enableCommand(),
			e.notifyCommand(),
			e.configCommand(),
			e.logCommand(),
			e.stateCommand(),
			e.installCommand(),
			e.uninstallCommand(),
			e.doctorCommand(),
			e.completionCommand(),
			e.cooldownCommand(),
		},
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return usagef("unknown command %q", c.Args().First())
			}
			return missingCommand(c, "guard", cli.ShowAppHelp)
		},
	}
	// guard --version prints the version; the help has no VERSION section
	// (urfave/cli would show Version, a placeholder here).
	app.CustomAppHelpTemplate = strings.Replace(cli.AppHelpTemplate, helpVersionSection, "", 1)
	app.CustomAppHelpTemplate = strings.Replace(app.CustomAppHelpTemplate, helpCommandsSection, helpCommandsSection+helpHelpLine, 1)
	onUsage := func(c *cli.Context, err error, _ bool) error { return &guardrun.UsageError{Err: err} }
	app.OnUsageError = onUsage
	var walk func(string, []*cli.Command)
	walk = func(prefix string, cmds []*cli.Command) {
		for _, c := range cmds {
			if c.OnUsageError == nil {
				c.OnUsageError = onUsage
			}
			if len(c.Subcommands) > 0 && c.Action == nil {
				// Without an Action urfave/cli answers "guard config
				// show" with "No help topic" and exit 1.
				c.Action = groupAction(prefix + c.Name)
			}
			if len(c.Subcommands) == 0 {
				// A command's arguments are its own: "guard run help"
				// runs help, "guard reset help" resets the key help.
				c.HideHelpCommand = true
			}
			walk(prefix+c.Name+" ", c.Subcommands)
		}
	}
	walk("", app.Commands)
	return app
}

// helpVersionSection is the part of urfave/cli's help template that shows
// the app's Version.
const helpVersionSection = `{{if .Version}}{{if not .HideVersion}}

VERSION:
   {{.Version}}{{end}}{{end}}`

// helpCommandsSection is the list of commands in urfave/cli's help
// template, and helpHelpLine the line guard adds to it for "guard help
// [COMMAND]" (newcomer #8), aligned with the others. (A command named help
// would cost guard --help: urfave/cli adds the flag only to an app without
// one; main reads "guard help X" as "guard X --help" anyway.)
const (
	helpCommandsSection = `COMMANDS:{{template "visibleCommandCategoryTemplate" .}}`
	helpHelpLine        = `{{ $cv := offsetCommands .VisibleCommands 5}}
   help{{ indent (subtract $cv (offset "help" 3)) ""}}show the help of guard, or of a command: guard help run is guard run --help`
)

// groupAction is what a command made only of subcommands (guard config,
// guard state, guard cooldown) does on its own: with no subcommand, print
// its help to stderr as a usage error; refuse a subcommand it does not have
// as one too. (--help prints the help to stdout and exits 0.)
func groupAction(name string) cli.ActionFunc {
	return func(c *cli.Context) error {
		if c.NArg() > 0 {
			return usagef("unknown command \"%s %s\"", name, c.Args().First())
		}
		return missingCommand(c, "guard "+name, cli.ShowSubcommandHelp)
	}
}

// missingCommand answers a command line that stops where a (sub)command
// must come: the help, on stderr, and a usage error.
func missingCommand(c *cli.Context, name string, help func(*cli.Context) error) error {
	w := c.App.Writer
	c.App.Writer = c.App.ErrWriter
	defer func() { c.App.Writer = w }()
	if err := help(c); err != nil {
		return err
	}
	return usagef("%s needs a command", name)
}

// stateFlags are the flags every command that reads state takes.
func stateFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "config", Usage: "the config `FILE` (default: $GUARD_CONFIG, then ~/.claude/guardrails.yaml)"},
		&cli.StringFlag{Name: "state", Usage: "the hook state `FILE` or postgres:// URL (default: $GUARD_STATE, then state_file from the config)"},
		&cli.StringFlag{Name: "cooldown-state", Usage: "the cooldown state `FILE` or postgres:// URL (default: $GUARD_COOLDOWN_STATE, then cooldown.state_file)"},
	}
}

// reorderFlags moves a command's flags in front of its arguments, so that
// 'guard trip KEY --for 10m' works as the usage shows it; urfave/cli stops
// parsing flags at the first argument. guard run is left alone: everything
// after its command belongs to the child.
func reorderFlags(app *cli.App, args []string) []string {
	if len(args) < 2 {
		return args
	}
	cmds, i := app.Commands, 1
	var path []string
	var cmd *cli.Command
	for i < len(args) {
		next := findCommand(cmds, args[i])
		if next == nil {
			break
		}
		cmd, cmds = next, next.Subcommands
		path = append(path, next.Name)
		i++
	}
	switch {
	case cmd == nil || cmd.SkipFlagParsing:
		return args
	case cmd.Name == "run" && (len(path) == 1 || !slices.Contains(args[i:], "--")):
		// What follows the command to run is the command's own; only
		// flags before an explicit "--" are guard's.
		return args
	}
	takesValue := map[string]bool{}
	for _, f := range cmd.Flags {
		_, isBool := f.(*cli.BoolFlag)
		for _, n := range f.Names() {
			takesValue[n] = !isBool
		}
	}
	var flags, rest []string
	for j := i; j < len(args); j++ {
		a := args[j]
		if a == "--" {
			rest = append(rest, args[j:]...)
			break
		}
		name := strings.TrimLeft(a, "-")
		if !strings.HasPrefix(a, "-") || a == "-" {
			rest = append(rest, a)
			continue
		}
		flags = append(flags, a)
		name, _, hasValue := strings.Cut(name, "=")
		if takesValue[name] && !hasValue {
			if j+1 == len(args) {
				// Its value is missing: the line is left as it is (and
				// refused for its arguments), rather than the flag
				// taking the KEY before it for its value.
				return args
			}
			j++
			flags = append(flags, args[j])
		}
	}
	out := append([]string{}, args[:i]...)
	out = append(out, flags...)
	return append(out, rest...)
}

func findCommand(cmds []*cli.Command, name string) *cli.Command {
	for _, c := range cmds {
		if c.HasName(name) {
			return c
		}
	}
	return nil
}

// globalFlags may also be given before the command, as in
// 'guard --state X run -- cmd'.
var globalFlags = []string{"config", "state", "cooldown-state"}

// hoistGlobalFlags moves global flags given before the command to just
// after the command's name (and its subcommand's, for the commands that
// have them), where the command declares them.
func hoistGlobalFlags(args []string) []string {
	var moved []string
	i := 1
	for ; i < len(args); i++ {
		a := args[i]
		name, _, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if !strings.HasPrefix(a, "-") || a == "-" || a == "--" || !slices.Contains(globalFlags, name) {
			break
		}
		moved = append(moved, a)
		if !hasValue && i+1 < len(args) {
			i++
			moved = append(moved, args[i])
		}
	}
	if len(moved) == 0 || i >= len(args) {
		return args
	}
	j := i + 1
	switch args[i] {
	case "cooldown", "state", "config":
		if j < len(args) && !strings.HasPrefix(args[j], "-") {
			j++
		}
	}
	out := append([]string{args[0]}, args[i:j]...)
	out = append(out, moved...)
	return append(out, args[j:]...)
}
