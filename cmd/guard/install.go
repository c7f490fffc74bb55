package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v2"

	"guard/atomicfile"
	"guard/config"
	"guard/settings"
	"guard/view"
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
["guard", "run", "--", A, ...]. Hooks already behind guard, and hooks that
match --exclude (a substring, or a glob over the whole command), are left
alone, so a second install changes nothing.

Only the hook commands change: key order, indentation and the final newline
are kept. The file is backed up to <file>.bak-<UTC time> first and replaced
atomically. --dry-run prints a unified diff and writes nothing. 'guard
uninstall' gives back the very same bytes.

The hooks call guard by the absolute path of the guard running install,
unless --binary names another.

Examples:
   guard install --dry-run
   guard install
   guard install --project --exclude 'security-check'
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

// guardBinary returns the path hooks should call guard by: --binary (an
// absolute path, or the bare name guard, found through PATH when the hook
// runs), else the absolute path of this guard. It must name a file called
// guard, which is how uninstall tells guard's hooks from others, and not a
// temporary build that goes away.
func (e *env) guardBinary(c *cli.Context) (string, error) {
	if b := c.String("binary"); b != "" {
		switch {
		case b == "guard":
			if _, err := exec.LookPath("guard"); err != nil {
				e.warnf("there is no guard on your PATH; hooks that call a bare guard will fail until there is")
			}
			return b, nil
		case !filepath.IsAbs(b):
			return "", usagef("--binary %q must be an absolute path, or the bare name guard (found through PATH): hooks run from any directory", b)
		case filepath.Base(b) != "guard":
			return "", usagef("--binary %q must name a file called guard, so that uninstall can tell guard's hooks from others", b)
		}
		if _, err := os.Stat(b); err != nil {
			e.warnf("%s does not exist yet; the hooks will fail until it does", b)
		}
		return b, nil
	}
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("cannot tell where this guard is; pass --binary: %w", err)
	}
	if real, err := filepath.EvalSymlinks(exe); err == nil {
		exe = real
	}
	if temporaryBuild(exe) {
		return "", fmt.Errorf("this guard is a temporary build (go run) at %s, which goes away when it exits; install guard (go install ./cmd/guard) and run that, or pass --binary with where guard is installed (or --binary guard to find it through PATH); nothing changed", exe)
	}
	if filepath.Base(exe) != "guard" {
		return "", fmt.Errorf("this guard is called %s; hooks must call a file named guard, so that uninstall can tell guard's hooks from others: rename it, or pass --binary; nothing changed", filepath.Base(exe))
	}
	return exe, nil
}

// temporaryBuild reports whether exe is a binary go run built, in the go
// build cache's temporary directory.
func temporaryBuild(exe string) bool {
	sep := string(filepath.Separator)
	return strings.Contains(exe, sep+"go-build") && strings.Contains(exe, sep+"exe"+sep)
}

func (e *env) install(c *cli.Context) error {
	if c.NArg() > 0 {
		return usagef("install takes no arguments")
	}
	path, err := e.settingsPath(c)
	if err != nil {
		return err
	}
	bin, err := e.guardBinary(c)
	if err != nil {
		return err
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
	return e.rewriteSettings(c, path, "install", func(doc []byte) (settings.Result, error) {
		return settings.Install(doc, settings.Options{Binary: bin, Skip: skip})
	})
}

func (e *env) uninstall(c *cli.Context) error {
	if c.NArg() > 0 {
		return usagef("uninstall takes no arguments")
	}
	path, err := e.settingsPath(c)
	if err != nil {
		return err
	}
	return e.rewriteSettings(c, path, "uninstall", settings.Uninstall)
}

// rewriteSettings applies rewrite to the settings file at path: it shows
// the diff (--dry-run), or backs the file up and replaces it, keeping its
// mode, owner and group.
func (e *env) rewriteSettings(c *cli.Context, path, verb string, rewrite func([]byte) (settings.Result, error)) error {
	if real, err := filepath.EvalSymlinks(path); err == nil {
		path = real // replace the file, not the link to it
	}
	info, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("there is no settings file at %s; nothing to %s", path, verb)
	}
	if err != nil {
		return err
	}
	doc, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	r, err := rewrite(doc)
	var se *settings.SyntaxError
	switch {
	case errors.As(err, &se):
		return fmt.Errorf("%s:%d:%d: not valid JSON (%s); nothing changed", path, se.Line, se.Column, se.Msg)
	case err != nil:
		return fmt.Errorf("%s: %v; nothing changed", path, err)
	}
	left := func() {
		if len(r.Left) == 0 {
			return
		}
		fmt.Fprintf(e.stdout, "left %d hooks alone:\n", len(r.Left))
		for _, ch := range r.Left {
			fmt.Fprintf(e.stdout, "  %s: %s (%s)\n", hookPlace(ch), hookText(ch.Before), ch.Why)
		}
	}
	if len(r.Changes) == 0 {
		fmt.Fprintf(e.stdout, "%s: nothing to %s\n", path, verb)
		left()
		return nil
	}
	if c.Bool("dry-run") {
		settings.Diff(e.stdout, path, path+" ("+verb+")", doc, r.Edits)
		return nil
	}
	now := e.now()
	backup := freePath(fmt.Sprintf("%s.bak-%s", path, now.UTC().Format("20060102T150405Z")))
	if err := atomicfile.WriteFile(backup, doc, 0o600, info); err != nil {
		return fmt.Errorf("cannot back up %s, so nothing changed: %w", path, err)
	}
	if err := atomicfile.WriteFile(path, r.Doc, info.Mode().Perm(), nil); err != nil {
		return fmt.Errorf("cannot write %s: %w (it is unchanged; the backup is %s)", path, err, backup)
	}
	done := "wrapped"
	if verb == "uninstall" {
		done = "unwrapped"
	}
	fmt.Fprintf(e.stdout, "%s %d hooks in %s (backup: %s)\n", done, len(r.Changes), path, backup)
	for _, ch := range r.Changes {
		cmd := ch.Before // the hook's own command, not guard's wrapping
		if verb == "uninstall" {
			cmd = ch.After
		}
		if ch.Why != "" {
			cmd = ch.After + " (" + ch.Why + ")"
		}
		fmt.Fprintf(e.stdout, "  %s: %s\n", hookPlace(ch), hookText(cmd))
	}
	left()
	return nil
}

// hookPlace says where a hook is: its event and matcher.
func hookPlace(ch settings.Change) string {
	if ch.Matcher != "" {
		return ch.Event + "[" + view.Printable(ch.Matcher) + "]"
	}
	return ch.Event
}

// hookText shows a hook's command on one short line.
func hookText(cmd string) string {
	return view.Truncate(view.Printable(cmd), 100)
}

// freePath returns path, or path-2, path-3, ... whichever does not exist
// yet, so that a backup never overwrites an earlier one.
func freePath(path string) string {
	p := path
	for i := 2; ; i++ {
		if _, err := os.Lstat(p); errors.Is(err, fs.ErrNotExist) {
			return p
		}
		p = fmt.Sprintf("%s-%d", path, i)
	}
}
