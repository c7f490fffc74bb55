package main

import (
	"fmt"
	"os"

	"github.com/urfave/cli/v2"

	"guard/cooldownstate"
	"guard/eventlog"
	"guard/hookstate"
	"guard/statefile"
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
   guard state import checkpoint.json`,
		Subcommands: []*cli.Command{
			{
				Name:      "export",
				Usage:     "write a consistent snapshot of the state, taken under the lock",
				ArgsUsage: "[FILE]",
				Description: `Writes the hook state file (or with --cooldown, the cooldown file) as it is,
read under the lock so that no update is half seen, to FILE (atomically, mode
0600) or to stdout. A state that does not exist yet exports as an empty one.

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
FILE atomically. Nothing is changed if FILE does not check out.

Example:
   guard state import checkpoint.json`,
				Flags:  flags(),
				Action: e.stateImport,
			},
		},
	}
}

// checkpointTarget is the state file a state command works on.
type checkpointTarget struct {
	file     *statefile.File
	log      *eventlog.Log
	validate func([]byte) error
	empty    any // the document to export when there is none
}

func (e *env) checkpointTarget(c *cli.Context) (*checkpointTarget, error) {
	cfg, err := e.loadConfig(c)
	if err != nil {
		return nil, err
	}
	if c.Bool("cooldown") {
		path := cfg.Cooldown.StateFile
		if s := c.String("state"); s != "" {
			path = s
		}
		cd, err := e.openCooldownAt(cfg, path)
		if err != nil {
			return nil, err
		}
		return &checkpointTarget{
			file: cd.store.File(), log: cd.store.Log(),
			validate: func(b []byte) error { return cooldownstate.Validate(b, cd.actions) },
			empty:    &cooldownstate.Document{},
		}, nil
	}
	store, err := e.openStore(cfg)
	if err != nil {
		return nil, err
	}
	return &checkpointTarget{
		file: store.File(), log: store.Log(), validate: hookstate.Validate,
		empty: &hookstate.Document{Version: hookstate.Version},
	}, nil
}

func (e *env) stateExport(c *cli.Context) error {
	if c.NArg() > 1 {
		return usagef("export takes at most one FILE")
	}
	t, err := e.checkpointTarget(c)
	if err != nil {
		return err
	}
	data, err := t.file.ReadLocked()
	if err != nil {
		return err
	}
	if data == nil {
		if data, err = statefile.Marshal(t.empty); err != nil {
			return err
		}
	}
	if c.NArg() == 0 {
		_, err = e.stdout.Write(data)
		return err
	}
	out := c.Args().First()
	if err := statefile.WriteFile(out, data, 0o600, nil); err != nil {
		return fmt.Errorf("cannot write checkpoint: %w", err)
	}
	fmt.Fprintf(e.stderr, "guard: exported %s to %s\n", t.file.Path(), out)
	return nil
}

func (e *env) stateImport(c *cli.Context) error {
	if c.NArg() != 1 {
		return usagef("import takes one FILE")
	}
	in := c.Args().First()
	data, err := os.ReadFile(in)
	if err != nil {
		return fmt.Errorf("cannot read checkpoint: %w", err)
	}
	t, err := e.checkpointTarget(c)
	if err != nil {
		return err
	}
	if err := t.validate(data); err != nil {
		return fmt.Errorf("%s is not a state guard can import: %v; nothing changed", in, err)
	}
	now := e.now()
	backup := ""
	err = t.file.Swap(func(old []byte) ([]byte, error) {
		if old != nil {
			backup = freePath(fmt.Sprintf("%s.bak-%s", t.file.Path(), now.UTC().Format("20060102T150405Z")))
			if err := statefile.WriteFile(backup, old, 0o600, t.info()); err != nil {
				return nil, fmt.Errorf("cannot keep a backup: %w", err)
			}
		}
		reason := "no earlier state"
		if backup != "" {
			reason = "earlier state backed up to " + backup
		}
		if err := t.log.Append(eventlog.Event{Time: now, Event: eventlog.Import, File: in, Reason: reason}); err != nil {
			e.logFailed(err)
		}
		return data, nil
	})
	if err != nil {
		return err
	}
	if backup != "" {
		fmt.Fprintf(e.stdout, "imported %s into %s; the previous state is in %s\n", in, t.file.Path(), backup)
	} else {
		fmt.Fprintf(e.stdout, "imported %s into %s\n", in, t.file.Path())
	}
	return nil
}

// info describes the state file, for a backup to take its owner from; nil
// if it cannot be read.
func (t *checkpointTarget) info() os.FileInfo {
	fi, err := os.Stat(t.file.Path())
	if err != nil {
		return nil
	}
	return fi
}
