package cli

import (
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"guard/config"
	"guard/internal/store"
	"guard/internal/view"
)

func (e *env) stateCommand() *cli.Command {
	flags := func() []cli.Flag {
		return append([]cli.Flag{
			&cli.BoolFlag{Name: "cooldown", Usage: "the cooldown state file instead of the hook state file"},
		}, stateFlags()...)
	}
	return &cli.Command{
		Name:  "state",
		Usage: "export and import checkpoints of the state",
		Description: `Examples:
   guard state export checkpoint.json
   guard state import checkpoint.json
   guard state init --grant guard_hooks`,
		Subcommands: []*cli.Command{
			{
				Name:  "init",
				Usage: "create the state's tables in PostgreSQL, as an administrator, for hooks that run without CREATE",
				Description: `For a state in PostgreSQL (a postgres:// state_file or cooldown state):
creates guard's tables, or brings them to this guard's version, which a
hook's first call does too when its role may create tables. Run it once as
a role that may (the database's owner, say); with --grant ROLE it also
grants ROLE what hooks need on the tables, and nothing more (no CREATE), so
that hooks can run as ROLE (PUBLIC, every role, is refused). It is
idempotent: run it again after an upgrade.
A state in a file needs nothing: it is created on first use.

Examples:
   GUARD_STATE=postgres://admin@db.internal/guard?sslmode=verify-full guard state init --grant guard_hooks`,
				Flags: append([]cli.Flag{
					&cli.StringFlag{Name: "grant", Usage: "grant `ROLE` the rights hooks need on guard's tables"},
				}, stateFlags()...),
				Action: e.stateInit,
			},
			{
				Name:      "export",
				Usage:     "write a consistent snapshot of the state, taken under the lock",
				ArgsUsage: "[FILE]",
				Description: `Writes the hook state file (or with --cooldown, the cooldown file) as it is,
read under the lock so that no update is half seen, to FILE (atomically, mode
0600) or to stdout (no FILE, or -). A state that does not exist yet exports
as an empty one.

Examples:
   guard state export > checkpoint.json
   guard state export --cooldown /backups/cooldown-$(date +%F).json`,
				Flags:  flags(),
				Action: e.stateExport,
			},
			{
				Name:      "import",
				Usage:     "replace the state with a checkpoint, keeping a backup of the current one",
				ArgsUsage: "FILE",
				Description: `Checks that FILE is a state guard can use (a JSON object, known states, no
negative counts; with --cooldown, readable action arrays), then, under the
lock, copies the current state to <state>.bak-<UTC time> and replaces it with
FILE atomically. Nothing is changed if FILE does not check out. FILE - reads
stdin.

Examples:
   guard state import checkpoint.json
   ssh other-host guard state export | guard state import -`,
				Flags:  flags(),
				Action: e.stateImport,
			},
		},
	}
}

// checkpointTarget is the state a state command works on: the hook state,
// or with --cooldown the cooldown state.
type checkpointTarget struct {
	store.Checkpoint
	where string
}

func (e *env) checkpointTarget(c *cli.Context, cooldown bool) (*checkpointTarget, error) {
	cfg, err := e.loadConfig(c)
	if err != nil {
		return nil, err
	}
	if cooldown {
		cd, err := e.openCooldownAt(cfg, c.String("state"))
		if err != nil {
			return nil, err
		}
		return &checkpointTarget{cd.state.Checkpoint, cd.state.Where}, nil
	}
	hooks, err := e.OpenHooks(cfg)
	if err != nil {
		return nil, err
	}
	return &checkpointTarget{hooks.Checkpoint, hooks.Where}, nil
}

func (e *env) stateInit(c *cli.Context) error {
	if c.NArg() > 0 {
		return usagef("init takes no arguments")
	}
	if g := c.String("grant"); strings.EqualFold(g, "public") {
		// PUBLIC is every role of the server, not a role: the grant would
		// let any of them read and change guard's state (hostile-user-3 m3).
		return usagef("refusing --grant %s: PUBLIC is every role of the server, which could then read and change guard's state; name the role hooks run as (guard state init --grant guard_hooks)", g)
	}
	cfg, err := e.loadConfig(c)
	if err != nil {
		return err
	}
	done := map[string]bool{}
	for _, where := range []string{cfg.StateFile, cfg.Cooldown.StateFile} {
		if where == "" || done[where] {
			continue
		}
		done[where] = true
		made, err := store.Init(cfg, where, c.String("grant"))
		if err = e.Handoff(err); err != nil {
			return err
		}
		switch {
		case !made:
			fmt.Fprintf(e.Stdout, "%s: a file, created on first use\n", where)
		case c.String("grant") != "":
			fmt.Fprintf(e.Stdout, "%s: guard's tables are ready, and %s may use them\n", config.Redact(where), c.String("grant"))
		default:
			fmt.Fprintf(e.Stdout, "%s: guard's tables are ready\n", config.Redact(where))
		}
	}
	return nil
}

func (e *env) stateExport(c *cli.Context) error { return e.export(c, c.Bool("cooldown")) }

func (e *env) export(c *cli.Context, cooldown bool) error {
	if c.NArg() > 1 {
		return usagef("export takes at most one FILE")
	}
	t, err := e.checkpointTarget(c, cooldown)
	if err != nil {
		return err
	}
	data, err := t.Export()
	if err != nil {
		return err
	}
	out := c.Args().First()
	if out == "" {
		out = stdio
	}
	if err := e.writeOutput(out, data, 0o600, "checkpoint.json"); err != nil {
		return fmt.Errorf("cannot write checkpoint: %w", err)
	}
	if out != stdio {
		fmt.Fprintf(e.Stderr, "guard: exported %s to %s\n", t.where, view.Printable(out))
	}
	return nil
}

func (e *env) stateImport(c *cli.Context) error { return e.importState(c, c.Bool("cooldown")) }

func (e *env) importState(c *cli.Context, cooldown bool) error {
	if c.NArg() != 1 {
		return usagef("import takes one FILE")
	}
	in := c.Args().First()
	var data []byte
	var err error
	if in != stdio {
		// A missing file is reported before the state is opened.
		if data, err = e.readInput(in); err != nil {
			return err
		}
	}
	t, err := e.checkpointTarget(c, cooldown)
	if err != nil {
		return err
	}
	if in == stdio {
		// Read only now: opening the state may hand this command line
		// over to guard-pg, which must find stdin unread.
		if data, err = e.readInput(in); err != nil {
			return fmt.Errorf("cannot read checkpoint from stdin: %w", err)
		}
		in = "stdin"
	}
	if err := t.Check(data); err != nil {
		return fmt.Errorf("%s is not a state guard can import: %v; nothing changed", in, err)
	}
	backup, err := t.Import(data, e.Now(), in)
	if err != nil {
		return err
	}
	if backup != "" {
		fmt.Fprintf(e.Stdout, "imported %s into %s; the previous state is in %s\n", view.Printable(in), t.where, view.Printable(config.Redact(backup)))
	} else {
		fmt.Fprintf(e.Stdout, "imported %s into %s\n", view.Printable(in), t.where)
	}
	return nil
}

// cooldownCheckpointCommands are guard cooldown export and import: guard
// state export and import of the cooldown state.
func (e *env) cooldownCheckpointCommands() []*cli.Command {
	return []*cli.Command{
		{
			Name:      "export",
			Usage:     "write a consistent snapshot of the cooldown state (as guard state export --cooldown)",
			ArgsUsage: "[FILE]",
			Description: `Writes the cooldown state, in cooldown.json's format, to FILE or stdout (no
FILE, or -): from a file or from PostgreSQL alike.

Example:
   guard cooldown export > cooldown-backup.json`,
			Flags:  cooldownFlags(),
			Action: func(c *cli.Context) error { return e.export(c, true) },
		},
		{
			Name:      "import",
			Usage:     "replace the cooldown state with a checkpoint (as guard state import --cooldown)",
			ArgsUsage: "FILE",
			Description: `Loads FILE, a cooldown.json (- reads stdin), into the cooldown state (a file,
or PostgreSQL), keeping a backup of the state it replaces.

Example:
   GUARD_COOLDOWN_STATE=postgres://guard@db/guard guard cooldown import ~/.claude/cooldown.json`,
			Flags:  cooldownFlags(),
			Action: func(c *cli.Context) error { return e.importState(c, true) },
		},
	}
}
