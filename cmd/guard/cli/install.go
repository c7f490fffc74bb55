package cli

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/rogpeppe/go-internal/diff"
	"github.com/urfave/cli/v2"

	"guard/cmd/guard/guardrun"
	"guard/config"
	"guard/internal/circuit"
	"guard/internal/claude"
	"guard/internal/claude/doctor"
	"guard/internal/safeopen"
	"guard/internal/shell"
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
"guard run --hook-timeout N --shell bash -c 'X'" (quoted so that the shell
Claude runs hooks with hands guard exactly X), and a hook in Claude Code's
exec form, {"command": PROGRAM, "args": [A, ...]}, to {"command":
"/path/to/guard", "args": ["run", "--hook-timeout", "N", "--", PROGRAM, A,
...]} (placeholders such as ${CLAUDE_PROJECT_DIR} kept as written). N is the
hook's "timeout", or Claude Code's default for its event (600 seconds, 30 on
UserPromptSubmit, 1.5 on SessionEnd): guard stops a hook that hangs just
before Claude Code would, and counts it as a failure, so that it trips. A
hook with "onFailure": "block" gets guard run --on-skip block, so that guard
skipping it (its circuit open) blocks too. A "shell": "powershell" hook is
written in exec form, run by pwsh (powershell on Windows), where the Claude
Code on PATH runs that form (2.1.139 and later). Other members ("timeout",
"async", "if", "matcher", ...) are kept.

--plugins wraps, in place, the command hooks of every plugin Claude Code
loads (enabledPlugins in the user's, project's and local settings; Claude
Code's records in ~/.claude/plugins), each in exec form, whose args Claude
Code passes on without a shell, so that no path of the plugin's breaks it,
and keyed "plugin NAME@MARKET: COMMAND", which a plugin update keeps. An
update puts the plugin's hooks back as they were: --auto also adds a
SessionStart hook to ~/.claude/settings.json that wraps them again,
silently, at the start of each session ('guard uninstall --plugins' takes
it away).

Left alone, and listed with the reason, so a second install changes nothing:
hooks that already call guard (guard-pg, guard-web, ${GUARD:-guard}, a copy
of guard under another name, a quoted "$HOME/.../guard", behind VAR=value or
env, inside bash -c '...' too, in the exec form as in the shell form), hooks
run by another shell, http, prompt, agent and mcp_tool hooks, hooks with
two "command" members, hooks Claude Code does not run ("args" with no
"command"), hooks that name the Python wrapper's script in a form install
cannot move exactly (poetry run python .../circuit_breaker_wrapper.py, uvx,
python3 -m circuit_breaker_wrapper, a list of commands; moved otherwise,
with their state), and hooks that match --exclude (a substring, or a glob
over the whole command; for the exec form, the program and args joined as a
shell would read them). Programs that only start with "guard" (guardctl,
guard-secrets.sh) are wrapped like any.

It warns about hooks it wraps that look like policies (on PreToolUse,
PermissionRequest, UserPromptSubmit, Stop and other events where a block
stops something, a command or script that exits 2 or answers
"permissionDecision": "deny", "decision": "block" or "behavior": "deny",
or a script that names permissionDecision and writes 'deny' anywhere; a
plugin's script behind ${CLAUDE_PLUGIN_ROOT} included):
while guard skips one, Claude Code allows what it would have stopped. Keep
one fail-closed with "onFailure": "block" (then install again), or on_skip:
block in a hooks: rule of guardrails.yaml, or leave it out with --exclude.
It also warns when a hook it wrapped is defined the same way in another
settings file Claude Code reads (~/.claude/settings.json, the project's
.claude/settings.json and .claude/settings.local.json): Claude Code runs
identical copies once, but each copy once they differ; install that file
too, with the same --binary.

Only the hook commands change: key order, indentation, a byte order mark
and the final newline are kept. The file is backed up first and replaced
atomically: a user's file to <file>.bak-<UTC time>; a project's
.claude/settings.json or settings.local.json (teams commit .claude/) and a
plugin's files to ~/.claude/guard-backups/, where the last 5 of each file
are kept. --dry-run prints a unified diff and writes nothing. 'guard
uninstall' gives back the very same bytes.

The hooks call guard by the absolute path of the guard running install
(refused for a temporary go run build, which goes away), unless --binary
names another: an absolute path to a file called guard, or the bare name
guard, found through PATH when the hook runs (what a committed
.claude/settings.json wants: where guard is not installed, such a hook runs
as it did before install, so that a policy still blocks there). Hooks
wrapped with another guard are re-pointed at it. The file keeps its mode,
owner and group. ~/.claude is $CLAUDE_CONFIG_DIR when that is set.

Examples:
   guard install --dry-run
   guard install
   guard install --project --binary guard --exclude 'security-check'
   guard install --plugins --auto
   guard install --binary /usr/local/bin/guard --settings ./settings.json`,
		Flags: append(settingsFlags(),
			&cli.StringSliceFlag{Name: "exclude", Usage: "leave hooks matching `PATTERN` alone (repeatable)"},
			&cli.StringFlag{Name: "binary", Usage: "call guard as `PATH` (default: this guard's absolute path)"},
			&cli.BoolFlag{Name: "plugins", Usage: "wrap the hooks of the plugins Claude Code loads (enabledPlugins), in place"},
			&cli.BoolFlag{Name: "auto", Usage: "with --plugins: add a SessionStart hook that wraps them again after a plugin update"},
			&cli.BoolFlag{Name: "session-start", Hidden: true, Usage: "what the SessionStart hook of --auto runs: --plugins, silently"},
		),
		Action: e.install,
	}
}

func (e *env) uninstallCommand() *cli.Command {
	return &cli.Command{
		Name:  "uninstall",
		Usage: "unwrap the hooks that guard install wrapped",
		Description: `Gives each hook that 'guard install' wrapped back its original command,
byte for byte (what older guards wrote included). Hooks that guard did not
wrap are left alone. The file is backed up first and replaced atomically.
The state of hooks given back to the Python wrapper moves back to the
wrapper's keys, so that an open circuit stays open. --plugins does it for
the hooks of every plugin Claude Code has installed (for any project, and
the versions an update left in its cache), and takes away the SessionStart
hook of 'guard install --plugins --auto'.

Examples:
   guard uninstall --dry-run
   guard uninstall --project
   guard uninstall --plugins`,
		Flags: append(settingsFlags(),
			&cli.BoolFlag{Name: "plugins", Usage: "unwrap the hooks of the plugins Claude Code has installed, and remove the SessionStart hook of install --plugins --auto"},
		),
		Action: e.uninstall,
	}
}

// A settingsTarget is the settings file install or uninstall rewrites.
type settingsTarget struct {
	path string
	// backupDir is where its backups go: "" for beside it, guard's backup
	// directory for a file of a project's .claude/, which teams commit.
	backupDir string
	// flag is the flag that named it: "project", "local", "settings", or
	// "" for the user's.
	flag string
}

// homeDir is the user's home directory, as Claude Code finds it: $HOME,
// but on Windows the profile directory (%USERPROFILE%), whatever HOME
// Git Bash sets.
func (e *env) homeDir() string {
	if h := e.Getenv("HOME"); h != "" && runtime.GOOS != "windows" {
		return h
	}
	h, _ := os.UserHomeDir()
	return h
}

// claudeDir is Claude Code's user directory: $CLAUDE_CONFIG_DIR, else
// ~/.claude. Its settings.json is the user's settings, its plugins/ the
// plugins' records.
func (e *env) claudeDir() string {
	if d := e.Getenv("CLAUDE_CONFIG_DIR"); d != "" {
		return d
	}
	return filepath.Join(e.homeDir(), ".claude")
}

// backupDir is where install keeps the backups of the files it must not
// leave backups beside: a project's (its .claude/ is committed) and a
// plugin's (Claude Code's).
func (e *env) backupDir() string { return filepath.Join(e.claudeDir(), "guard-backups") }

// settingsPath works out which settings file the flags name.
func (e *env) settingsPath(c *cli.Context) (settingsTarget, error) {
	n := 0
	for _, f := range []string{"settings", "project", "local"} {
		if c.IsSet(f) {
			n++
		}
	}
	if n > 1 {
		return settingsTarget{}, usagef("give one of --settings, --project and --local")
	}
	switch {
	case c.String("settings") != "":
		t := settingsTarget{path: c.String("settings"), flag: "settings"}
		// A settings file of a project's .claude/ (not the user's).
		if abs, err := filepath.Abs(t.path); err == nil && filepath.Base(filepath.Dir(abs)) == ".claude" {
			if user, _ := filepath.Abs(e.claudeDir()); filepath.Dir(abs) != user {
				t.backupDir = e.backupDir()
			}
		}
		return t, nil
	case c.Bool("project"):
		return settingsTarget{path: filepath.Join(".claude", "settings.json"), backupDir: e.backupDir(), flag: "project"}, nil
	case c.Bool("local"):
		return settingsTarget{path: filepath.Join(".claude", "settings.local.json"), backupDir: e.backupDir(), flag: "local"}, nil
	}
	return settingsTarget{path: filepath.Join(e.claudeDir(), "settings.json")}, nil
}

// noSettings adds to the error of a settings file that is not there the
// files that are, and how to name them (newcomer-and-mission #7): the
// project's, for a user's file that is not there; for a project's, the
// nearest one above, which Claude Code reads only when started there.
func (e *env) noSettings(err error, t settingsTarget, verb string) error {
	var ns *claude.NoSettingsError
	if !errors.As(err, &ns) {
		return err
	}
	var hints []string
	if t.flag == "" {
		for _, f := range []struct{ name, flag string }{{"settings.json", "--project"}, {"settings.local.json", "--local"}} {
			if p := filepath.Join(".claude", f.name); isFile(p) {
				hints = append(hints, fmt.Sprintf("this directory has %s: guard %s %s", p, verb, f.flag))
			}
		}
	}
	if t.flag == "project" || t.flag == "local" {
		if dir, file := nearestProject(filepath.Base(t.path)); dir != "" {
			hints = append(hints, fmt.Sprintf("%s is there, and Claude Code reads it when started in %s (not in a directory below it): cd %s, then guard %s --%s",
				file, dir, shell.Quote(dir), verb, t.flag))
		}
	}
	if len(hints) == 0 {
		return err
	}
	return &guardrun.HintedError{Err: err, Hints: hints}
}

// pluginFile reports whether path is a plugin's hooks file: its
// hooks/hooks.json, or its .claude-plugin/plugin.json, beside the
// plugin's .claude-plugin/.
func pluginFile(path string) bool {
	abs, err := filepath.Abs(path)
	if err != nil {
		return false
	}
	dir := filepath.Dir(abs)
	switch {
	case filepath.Base(dir) == ".claude-plugin" && filepath.Base(abs) == "plugin.json":
		return true
	case filepath.Base(dir) == "hooks":
		fi, err := os.Stat(filepath.Join(filepath.Dir(dir), ".claude-plugin"))
		return err == nil && fi.IsDir()
	}
	return false
}

// nearestProject finds the nearest directory above the current one whose
// .claude/ holds the settings file name, and returns it and the file.
func nearestProject(name string) (dir, file string) {
	wd, err := os.Getwd()
	if err != nil {
		return "", ""
	}
	for d := filepath.Dir(wd); d != filepath.Dir(d); d = filepath.Dir(d) {
		if p := filepath.Join(d, ".claude", name); isFile(p) {
			return d, p
		}
	}
	return "", ""
}

func isFile(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular()
}

func (e *env) install(c *cli.Context) error {
	if c.NArg() > 0 {
		return usagef("install takes no arguments")
	}
	if c.Bool("plugins") || c.Bool("session-start") {
		return e.installPlugins(c)
	}
	if c.Bool("auto") {
		return usagef("--auto goes with --plugins: guard install --plugins --auto")
	}
	t, err := e.settingsPath(c)
	if err != nil {
		return err
	}
	if t.flag == "settings" && pluginFile(t.path) {
		// real-hooks-2 R4: the shell form breaks where a plugin's path
		// holds a quote, and an update replaces the file.
		return usagef("%s is a plugin's hooks file: guard install --plugins wraps it, in a form no path of the plugin can break and keyed by the plugin (guard uninstall --settings still unwraps what an older install did to it)", t.path)
	}
	bin, err := e.binary(c)
	if err != nil {
		return err
	}
	opts := e.installOptions(c, bin)
	rewrite := func(doc []byte) (claude.Result, error) {
		r, err := claude.Install(doc, opts)
		if err != nil || opts.Exec || !slices.ContainsFunc(r.Left, func(ch claude.Change) bool { return ch.Why == claude.WhyShell("powershell") }) {
			return r, err
		}
		// A PowerShell hook: wrapped in exec form, if the Claude Code
		// here runs it.
		if opts.Exec = e.runsExec(); !opts.Exec {
			return r, nil
		}
		return claude.Install(doc, opts)
	}
	state, stateErr := e.stateFor(c, t.path, rewrite)
	f, err := e.rewriteSettings(c, t, "", "install", rewrite)
	if err != nil {
		return e.noSettings(err, t, "install")
	}
	if c.Bool("project") && bin != "guard" {
		fmt.Fprintf(e.Stderr, "guard: note: %s is usually committed, and %s is where guard is on this machine only; --binary guard calls guard through each user's PATH instead\n", t.path, bin)
	}
	denv := e.doctorEnv()
	e.warnPolicies(c, f.Changes, denv)
	e.warnDiffering(f, bin)
	if bin == "guard" {
		e.warnExecWithoutGuard(f.Changes, denv)
		if denv = doctor.HookPath(doctor.SettingsFiles(e.claudeDir(), denv.ProjectDir), denv); denv.PathFrom != "" {
			if _, ok := denv.LookPath("guard"); !ok {
				e.Warnf("%s gives hooks PATH=%s (env.PATH), where there is no guard: the hooks that call a bare guard will fail until there is", denv.PathFrom, denv.Path)
			}
		}
	}
	if f.Backup == "" {
		return nil
	}
	e.moveState(state, stateErr, f.Changes, false)
	return nil
}

// binary is the guard that hooks call (--binary, else this guard), with
// what is worth a warning said.
func (e *env) binary(c *cli.Context) (string, error) {
	bin, warnings, err := claude.BinaryFor(c.String("binary"), e.HandedOverBy())
	var be *claude.BinaryError
	if errors.As(err, &be) {
		return "", &guardrun.UsageError{Err: err}
	}
	if err != nil {
		return "", err
	}
	if !c.Bool("session-start") {
		for _, w := range warnings {
			e.Warnf("%s", w)
		}
	}
	return bin, nil
}

// installOptions are the rewrite's options for hooks that call bin.
func (e *env) installOptions(c *cli.Context, bin string) claude.Options {
	patterns := c.StringSlice("exclude")
	skip := func(cmd string) bool {
		for _, p := range patterns {
			if config.MatchPattern(p, cmd) {
				return true
			}
		}
		return false
	}
	return claude.Options{Binary: bin, Skip: skip, IsGuard: guardCopy, Windows: runtime.GOOS == "windows", HookTimeout: true}
}

// warnExecWithoutGuard warns, for hooks install wrote in exec form with a
// bare guard, that look like policies or block when they fail: on a
// machine without guard, Claude Code cannot start them (the shell form
// falls back to running the hook itself; the exec form has no shell to do
// it), and lets through what they would stop, or, for "onFailure":
// "block", blocks every call (newcomer-and-mission #1).
func (e *env) warnExecWithoutGuard(changes []claude.Change, denv doctor.Env) {
	var lines []string
	for _, ch := range changes {
		if !ch.Exec || ch.Hook.Guard != "" {
			continue
		}
		switch {
		case ch.Hook.FailClosed:
			lines = append(lines, fmt.Sprintf("  %s: %s (it blocks every call there: \"onFailure\": \"block\")", hookPlace(ch), hookText(ch.Hook.Own())))
		case denv.Policy(ch.Hook) != "":
			lines = append(lines, fmt.Sprintf("  %s: %s (it lets everything through there: it looks like a policy)", hookPlace(ch), hookText(ch.Hook.Own())))
		}
	}
	if len(lines) > 0 {
		e.Warnf("%d hooks are in exec form (\"args\"), which cannot fall back to running without guard: on a machine without guard on PATH, Claude Code cannot start them:\n%s\n"+
			"  install guard on every machine that uses this file, or pass --binary with a path that is there",
			len(lines), strings.Join(lines, "\n"))
	}
}

// stateFor opens the hook state when rewrite (not a dry run) moves hooks
// off the Python wrapper or back, whose state moves with them. It does so
// before the settings file is rewritten: for a state in PostgreSQL,
// opening it hands this very command over to guard-pg, which must then
// find the file as it was and do the whole of it, once.
func (e *env) stateFor(c *cli.Context, path string, rewrite func([]byte) (claude.Result, error)) (*store.Hooks, error) {
	if c.Bool("dry-run") {
		return nil, nil
	}
	f, err := claude.RewriteFile(path, "", "", e.Now(), true, rewrite)
	if err != nil || !slices.ContainsFunc(f.Changes, func(ch claude.Change) bool { return ch.Moved != nil }) {
		return nil, nil
	}
	return e.openHooksOf(c)
}

// moveState moves the state of the hooks moved off the Python wrapper
// from the wrapper's keys to guard's, or, back (uninstall), from guard's
// keys to the wrapper's: the wrapper keyed a command by its script's name
// (lint for uv run lint.py), guard keys it by the command. A Python key
// that two moved hooks share cannot be told apart and stays where it is,
// as does one whose command refers to $CLAUDE_PROJECT_DIR (guard keys it
// by project, unknown here).
func (e *env) moveState(h *store.Hooks, openErr error, changes []claude.Change, back bool) {
	var moved []*claude.Moved
	shared := map[string]int{}
	for _, ch := range changes {
		if ch.Moved != nil {
			moved = append(moved, ch.Moved)
			shared[ch.Moved.PythonKey]++
		}
	}
	if len(moved) == 0 {
		return
	}
	if h == nil || openErr != nil {
		if openErr == nil {
			openErr = errors.New("the state was not opened")
		}
		e.Warnf("the Python wrapper's state was not moved: %v", view.ErrorLine(openErr))
		return
	}
	var lines []string
	err := h.Circuits.Update(e.Now(), func(tx store.CircuitTx) (bool, error) {
		lines = lines[:0]
		changed := false
		for _, m := range moved {
			switch {
			case strings.Contains(m.Command, circuit.ProjectVar):
				if tx.Has(m.PythonKey) || back && tx.Has(m.Command) {
					lines = append(lines, fmt.Sprintf("%q stays: guard keeps %s one circuit per project", m.PythonKey, view.Printable(m.Command)))
				}
				continue
			case shared[m.PythonKey] > 1:
				if tx.Has(m.PythonKey) || back && tx.Has(m.Command) {
					lines = append(lines, fmt.Sprintf("%q stays: %d moved hooks share it in the wrapper's keys", m.PythonKey, shared[m.PythonKey]))
				}
				continue
			}
			if back {
				ok, err := tx.Rename(m.Command, m.PythonKey)
				if err != nil {
					return false, err
				}
				switch {
				case ok:
					changed = true
					lines = append(lines, fmt.Sprintf("%s -> %q", view.Printable(m.Command), m.PythonKey))
				case tx.Has(m.Command) && tx.Has(m.PythonKey):
					lines = append(lines, fmt.Sprintf("%s stays: %q has state of its own", view.Printable(m.Command), m.PythonKey))
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
		e.Warnf("the Python wrapper's state was not moved: %v", view.ErrorLine(err))
		return
	}
	if len(lines) > 0 {
		fmt.Fprintf(e.Stdout, "state of the Python wrapper's hooks, in %s:\n", h.Where)
		for _, l := range lines {
			fmt.Fprintf(e.Stdout, "  %s\n", l)
		}
	}
}

func (e *env) uninstall(c *cli.Context) error {
	if c.NArg() > 0 {
		return usagef("uninstall takes no arguments")
	}
	if c.Bool("plugins") {
		return e.uninstallPlugins(c)
	}
	t, err := e.settingsPath(c)
	if err != nil {
		return err
	}
	state, stateErr := e.stateFor(c, t.path, claude.Uninstall)
	f, err := e.rewriteSettings(c, t, "", "uninstall", claude.Uninstall)
	if err != nil {
		return e.noSettings(err, t, "uninstall")
	}
	if f.Backup == "" {
		return nil
	}
	e.moveState(state, stateErr, f.Changes, true)
	return nil
}

// doctorEnv is what guard doctor's checks read, for install: the project
// is $CLAUDE_PROJECT_DIR, else the current directory.
func (e *env) doctorEnv() doctor.Env {
	project := e.Getenv(circuit.ProjectVar)
	if project == "" {
		project, _ = os.Getwd()
	}
	return doctor.Env{Home: e.homeDir(), ProjectDir: project, Path: e.Getenv("PATH"), Stat: os.Stat, ReadFile: safeopen.ReadFile, IsGuard: guardCopy}
}

// warnPolicies warns about the hooks install wrapped that look like
// policies (doctor.Env.Policy) and do not block when they fail: when guard
// skips one (its circuit open), Claude Code goes ahead with what the hook
// would have stopped. A hook a hooks: rule gives on_skip: block blocks.
func (e *env) warnPolicies(c *cli.Context, changes []claude.Change, denv doctor.Env) {
	cfg, _ := e.loadConfig(c)
	var lines []string
	for _, ch := range changes {
		if ch.Hook.Guard != "" && !ch.Hook.Broken || ch.Hook.FailClosed {
			continue // wrapped before, or blocks when skipped
		}
		key := ch.Hook.Own()
		if ch.Name != "" {
			key = ch.Name
		}
		if cfg != nil && cfg.For(circuit.ValidKey(key)).OnSkip == "block" {
			continue
		}
		if why := denv.Policy(ch.Hook); why != "" {
			lines = append(lines, fmt.Sprintf("  %s: %s (%s)", hookPlace(ch), hookText(ch.Hook.Own()), why))
		}
	}
	if len(lines) == 0 {
		return
	}
	if denv.Plugin != "" {
		// A plugin's files are its author's, and an update replaces them:
		// the user's guardrails.yaml is where a plugin hook stays closed.
		e.Warnf("%d of the hooks wrapped look like policies (they deny or block); while guard skips one (its circuit open), Claude Code allows what it would have stopped:\n%s\n"+
			"  to keep them fail-closed, add to guardrails.yaml the hooks: rule %s, which a plugin update leaves alone (guard then blocks when it skips one);\n"+
			"  or leave one unguarded: guard install --plugins --exclude PATTERN (a part of its command)",
			len(lines), strings.Join(lines, "\n"), doctor.PluginRule(denv.Plugin))
		return
	}
	e.Warnf("%d of the hooks wrapped look like policies (they deny or block); while guard skips one (its circuit open), Claude Code allows what it would have stopped:\n%s\n"+
		"  to keep one fail-closed, give it \"onFailure\": \"block\" in the settings file and run guard install again (guard then blocks when it skips it),\n"+
		"  or on_skip: block in a hooks: rule of guardrails.yaml; or leave it unguarded: guard install --exclude PATTERN (a part of its command)",
		len(lines), strings.Join(lines, "\n"))
}

// warnDiffering warns about hooks defined the same way in this settings
// file and another one Claude Code reads, whose copies the install made
// (or left) different: Claude Code runs such a hook once while its copies
// are the same, and each copy when they differ.
func (e *env) warnDiffering(f claude.File, bin string) {
	denv := e.doctorEnv()
	var copies []claude.Copy
	mine, _ := claude.List(f.Doc)
	if f.Doc == nil {
		mine, _ = claude.List(f.Old)
	}
	for _, h := range mine {
		copies = append(copies, claude.Copy{File: f.Path, Hook: h})
	}
	me, _ := filepath.Abs(f.Path)
	for _, other := range doctor.SettingsFiles(e.claudeDir(), denv.ProjectDir) {
		real, err := filepath.EvalSymlinks(other)
		if err != nil {
			continue
		}
		if real, _ = filepath.Abs(real); real == me {
			continue
		}
		doc, err := safeopen.ReadFile(other)
		if err != nil {
			continue
		}
		hs, _ := claude.List(doc)
		for _, h := range hs {
			copies = append(copies, claude.Copy{File: other, Hook: h})
		}
	}
	// One warning for each other file, listing its copies.
	var others []string
	lines := map[string][]string{}
	for _, g := range claude.Differing(copies) {
		var here *claude.Copy
		for i := range g {
			if g[i].File == f.Path {
				here = &g[i]
			}
		}
		if here == nil {
			continue // not this file's business: guard doctor reports it
		}
		for _, c := range g {
			if c.File == f.Path || asRunIn(here.Hook) == asRunIn(c.Hook) {
				continue
			}
			how := "bare"
			if c.Hook.Guard != "" {
				how = "behind the guard at " + c.Hook.Guard
			}
			if lines[c.File] == nil {
				others = append(others, c.File)
			}
			lines[c.File] = append(lines[c.File], fmt.Sprintf("  %s: %s (%s there)", hookPlace(claude.Change{Event: c.Hook.Event, Matcher: c.Hook.Matcher}), hookText(c.Hook.Own()), how))
		}
	}
	for _, other := range others {
		e.Warnf("%d hooks here are also in %s, but no longer the same: Claude Code runs a hook that several settings files define the same way once, but each copy when they differ, so these run twice per event:\n%s\n"+
			"  make them the same: guard install --settings %s --binary %s (or remove one copy)",
			len(lines[other]), other, strings.Join(lines[other], "\n"), shell.Quote(other), shell.Quote(bin))
	}
}

// asRunIn is a hook as Claude Code compares it with others.
func asRunIn(h claude.Hook) string {
	return strings.Join(append([]string{h.Command}, h.Args...), "\x00")
}

// rewriteSettings applies rewrite to the settings file at path and says
// what it did: the diff with --dry-run, else what changed, where the backup
// is, and which hooks were left alone and why.
func (e *env) rewriteSettings(c *cli.Context, t settingsTarget, label, verb string, rewrite func([]byte) (claude.Result, error)) (claude.File, error) {
	f, err := claude.RewriteFile(t.path, t.backupDir, verb, e.Now(), c.Bool("dry-run"), rewrite)
	if err != nil || c.Bool("session-start") {
		return f, err
	}
	switch {
	case len(f.Changes) == 0:
		fmt.Fprintf(e.Stdout, "%s%s: nothing to %s\n", label, f.Path, verb)
	case f.Backup == "":
		e.Stdout.Write(diff.Diff(f.Path, f.Old, f.Path+" ("+verb+")", f.Doc))
		return f, nil
	default:
		done := map[string]string{"install": "wrapped", "uninstall": "unwrapped"}[verb]
		fmt.Fprintf(e.Stdout, "%s%s %d hooks in %s (backup: %s)\n", label, done, len(f.Changes), f.Path, f.Backup)
		for _, ch := range f.Changes {
			cmd := ch.Before // the hook's own command, not guard's wrapping
			switch {
			case verb == "uninstall":
				cmd = ch.After
			case ch.Moved != nil:
				cmd = ch.Moved.Command
			default:
				cmd = ch.Hook.Own()
			}
			why := ""
			if ch.Why != "" {
				why = " (" + ch.Why + ")"
			}
			fmt.Fprintf(e.Stdout, "  %s: %s%s\n", hookPlace(ch), hookText(cmd), why)
		}
	}
	if len(f.Left) > 0 {
		fmt.Fprintf(e.Stdout, "left %d hooks alone:\n", len(f.Left))
		for _, ch := range f.Left {
			fmt.Fprintf(e.Stdout, "  %s: %s (%s)\n", hookPlace(ch), hookText(ch.Before), ch.Why)
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
