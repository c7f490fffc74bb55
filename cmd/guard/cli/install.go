package cli

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v2"

	"guard/config"
	"guard/internal/circuit"
	"guard/internal/claude"
	"guard/internal/store"
	"guard/internal/view"
)

func settingsFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "settings", Usage: "the settings `FILE` (default: ~/.claude/settings.json)"},
		&cli.BoolFlag{Name: "project", Usage: "the project's .claude/settings.json"},
		&cli.BoolFlag{Name: "local", Usage: "the project's .claude/settings.local.json"},
		&cli.BoolFlag{Name: "dry-run", Usage: "print the change as a unified diff and write nothing"},
	}
}

func (e *env) installCommand() *cli.Command {
	return &cli.Command{
		Name:  "install",
		Usage: "wrap every command hook in a Claude Code settings.json with guard",
		Description: `Rewrites each command hook X in the settings file to run behind guard:
"guard run -c 'X'" (quoted so that sh -c, as Claude runs hooks, hands guard
exactly X), and an exec-form hook {"args": [A, ...]} to
["guard", "run", "--", A, ...]. Hooks that already call guard (behind
VAR=value or env too), hooks with two "command" members, and hooks that match
--exclude (a substring, or a glob over the whole command) are left alone, and
listed with the reason, so a second install changes nothing. Programs that
only start with "guard" (guardctl, guard-secrets.sh) are wrapped like any.

Only the hook commands change: key order, indentation and the final newline
are kept. The file is backed up to <file>.bak-<UTC time> first and replaced
atomically. --dry-run prints a unified diff and writes nothing. 'guard
uninstall' gives back the very same bytes.

The hooks call guard by the absolute path of the guard running install
(refused for a temporary go run build, which goes away), unless --binary
names another: an absolute path to a file called guard, or the bare name
guard, found through PATH when the hook runs (what a committed
.claude/settings.json wants). Hooks wrapped with another guard are
re-pointed at it. The file keeps its mode, owner and group.

Examples:
   guard install --dry-run
   guard install
   guard install --project --binary guard --exclude 'security-check'
   guard install --binary /usr/local/bin/guard --settings ./settings.json`,
		Flags: append(settingsFlags(),
			&cli.StringSliceFlag{Name: "exclude", Usage: "leave hooks matching `PATTERN` alone (repeatable)"},
			&cli.StringFlag{Name: "binary", Usage: "call guard as `PATH` (default: this guard's absolute path)"},
		),
		Action: e.install,
	}
}

func (e *env) uninstallCommand() *cli.Command {
	return &cli.Command{
		Name:  "uninstall",
		Usage: "unwrap the hooks that guard install wrapped",
		Description: `Gives each hook that 'guard install' wrapped back its original command,
byte for byte. Hooks that guard did not wrap are left alone. The file is
backed up first and replaced atomically.

Examples:
   guard uninstall --dry-run
   guard uninstall --project`,
		Flags:  settingsFlags(),
		Action: e.uninstall,
	}
}

// settingsPath works out which settings file the flags name.
func (e *env) settingsPath(c *cli.Context) (string, error) {
	n := 0
	for _, f := range []string{"settings", "project", "local"} {
		if c.IsSet(f) {
			n++
		}
	}
	if n > 1 {
		return "", usagef("give one of --settings, --project and --local")
	}
	switch {
	case c.String("settings") != "":
		return c.String("settings"), nil
	case c.Bool("project"):
		return filepath.Join(".claude", "settings.json"), nil
	case c.Bool("local"):
		return filepath.Join(".claude", "settings.local.json"), nil
	}
	home, err := os.UserHomeDir()
	if h := e.getenv("HOME"); h != "" {
		home, err = h, nil
	}
	if err != nil {
		return "", err
	}
	return filepath.Join(home, ".claude", "settings.json"), nil
}

func (e *env) install(c *cli.Context) error {
	if c.NArg() > 0 {
		return usagef("install takes no arguments")
	}
	path, err := e.settingsPath(c)
	if err != nil {
		return err
	}
	bin, warnings, err := claude.Binary(c.String("binary"))
	var be *claude.BinaryError
	if errors.As(err, &be) {
		return &usageError{err: err}
	}
	if err != nil {
		return err
	}
	for _, w := range warnings {
		e.warnf("%s", w)
	}
	if c.Bool("project") && bin != "guard" {
		fmt.Fprintf(e.stderr, "guard: note: %s is usually committed, and %s is where guard is on this machine only; --binary guard calls guard through each user's PATH instead\n", path, bin)
	}
	patterns := c.StringSlice("exclude")
	skip := func(cmd string) bool {
		for _, p := range patterns {
			if config.MatchPattern(p, cmd) {
				return true
			}
		}
		return false
	}
	f, err := e.rewriteSettings(c, path, "install", func(doc []byte) (claude.Result, error) {
		return claude.Install(doc, claude.Options{Binary: bin, Skip: skip})
	})
	if err != nil || f.Backup == "" {
		return err
	}
	return e.moveStateFromPython(c, f.Changes)
}

// moveStateFromPython gives the hooks install moved off the Python wrapper
// the state the wrapper kept for them, under guard's keys: the wrapper
// keyed a command by its script's name (lint for uv run lint.py), guard
// keys it by the command. A Python key that two moved hooks share cannot
// be told apart and stays where it is, as does one whose command refers to
// $CLAUDE_PROJECT_DIR (guard keys it by project, unknown here).
func (e *env) moveStateFromPython(c *cli.Context, changes []claude.Change) error {
	var moved []*claude.Moved
	shared := map[string]int{}
	for _, ch := range changes {
		if ch.Moved != nil {
			moved = append(moved, ch.Moved)
			shared[ch.Moved.PythonKey]++
		}
	}
	if len(moved) == 0 {
		return nil
	}
	h, err := e.openHooksOf(c)
	if err != nil {
		e.warnf("the Python wrapper's state was not moved: %v", view.ErrorLine(err))
		return nil
	}
	var lines []string
	err = h.Circuits.Update(e.now(), func(tx store.CircuitTx) (bool, error) {
		lines = lines[:0]
		changed := false
		for _, m := range moved {
			switch {
			case strings.Contains(m.Command, circuit.ProjectVar):
				if tx.Has(m.PythonKey) {
					lines = append(lines, fmt.Sprintf("%q stays: guard keeps %s one circuit per project", m.PythonKey, view.Printable(m.Command)))
				}
				continue
			case shared[m.PythonKey] > 1:
				if tx.Has(m.PythonKey) {
					lines = append(lines, fmt.Sprintf("%q stays: %d moved hooks share it in the wrapper's keys", m.PythonKey, shared[m.PythonKey]))
				}
				continue
			}
			for _, from := range []string{m.PythonKey, m.PythonJoin} {
				ok, err := tx.Rename(from, m.Command)
				if err != nil {
					return false, err
				}
				if ok {
					changed = true
					lines = append(lines, fmt.Sprintf("%q -> %s", from, view.Printable(m.Command)))
					break
				}
				if tx.Has(from) && tx.Has(m.Command) {
					lines = append(lines, fmt.Sprintf("%q stays: %s has state of its own", from, view.Printable(m.Command)))
					break
				}
			}
		}
		return changed, nil
	})
	if err != nil {
		e.warnf("the Python wrapper's state was not moved: %v", view.ErrorLine(err))
		return nil
	}
	if len(lines) > 0 {
		fmt.Fprintf(e.stdout, "state of the Python wrapper's hooks, in %s:\n", h.Where)
		for _, l := range lines {
			fmt.Fprintf(e.stdout, "  %s\n", l)
		}
	}
	return nil
}

func (e *env) uninstall(c *cli.Context) error {
	if c.NArg() > 0 {
		return usagef("uninstall takes no arguments")
	}
	path, err := e.settingsPath(c)
	if err != nil {
		return err
	}
	_, err = e.rewriteSettings(c, path, "uninstall", claude.Uninstall)
	return err
}

// rewriteSettings applies rewrite to the settings file at path and says
// what it did: the diff with --dry-run, else what changed, where the backup
// is, and which hooks were left alone and why.
func (e *env) rewriteSettings(c *cli.Context, path, verb string, rewrite func([]byte) (claude.Result, error)) (claude.File, error) {
	f, err := claude.RewriteFile(path, verb, e.now(), c.Bool("dry-run"), rewrite)
	if err != nil {
		return f, err
	}
	switch {
	case len(f.Changes) == 0:
		fmt.Fprintf(e.stdout, "%s: nothing to %s\n", f.Path, verb)
	case f.Backup == "":
		claude.Diff(e.stdout, f.Path, f.Path+" ("+verb+")", f.Old, f.Edits)
		return f, nil
	default:
		done := map[string]string{"install": "wrapped", "uninstall": "unwrapped"}[verb]
		fmt.Fprintf(e.stdout, "%s %d hooks in %s (backup: %s)\n", done, len(f.Changes), f.Path, f.Backup)
		for _, ch := range f.Changes {
			cmd := ch.Before // the hook's own command, not guard's wrapping
			if verb == "uninstall" {
				cmd = ch.After
			}
			switch {
			case ch.Moved != nil:
				cmd = ch.Moved.Command
			case ch.Why != "":
				cmd = ch.After
			}
			why := ""
			if ch.Why != "" {
				why = " (" + ch.Why + ")"
			}
			fmt.Fprintf(e.stdout, "  %s: %s%s\n", hookPlace(ch), hookText(cmd), why)
		}
	}
	if len(f.Left) > 0 {
		fmt.Fprintf(e.stdout, "left %d hooks alone:\n", len(f.Left))
		for _, ch := range f.Left {
			fmt.Fprintf(e.stdout, "  %s: %s (%s)\n", hookPlace(ch), hookText(ch.Before), ch.Why)
		}
	}
	return f, nil
}

// hookPlace says where a hook is: its event and matcher.
func hookPlace(ch claude.Change) string {
	if ch.Matcher != "" {
		return ch.Event + "[" + view.Printable(ch.Matcher) + "]"
	}
	return ch.Event
}

// hookText shows a hook's command on one short line.
func hookText(cmd string) string {
	return view.Truncate(view.Printable(cmd), 100)
}
