package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/urfave/cli/v2"

	"guard/internal/atomicfile"
	"guard/internal/circuit"
	"guard/internal/claude"
	"guard/internal/safeopen"
	"guard/internal/shell"
	"guard/internal/shell/sh"
)

// pluginSource is where the plugins of the user and of the project are
// found: Claude Code's user directory, and the project (Claude Code's
// working directory: $CLAUDE_PROJECT_DIR under Claude Code, else the
// current directory).
func (e *env) pluginSource() claude.PluginSource {
	project := e.Getenv(circuit.ProjectVar)
	if project == "" {
		project, _ = os.Getwd()
	}
	return claude.PluginSource{ClaudeDir: e.claudeDir(), ProjectDir: project, ReadFile: safeopen.ReadFile, Stat: os.Stat}
}

// execSince is the first Claude Code that runs hooks in exec form
// ("args"), in which install writes a plugin's hooks.
var execSince = [3]int{2, 1, 139}

// runsExec is claudeCodeRunsExec, asked once, its note printed.
func (e *env) runsExec() bool {
	if e.execKnown == nil {
		ok, note := e.claudeCodeRunsExec()
		if note != "" {
			fmt.Fprintf(e.Stderr, "guard: note: %s\n", note)
		}
		e.execKnown = &ok
	}
	return *e.execKnown
}

// claudeCodeRunsExec says whether the Claude Code that runs the hooks
// runs the exec form, and, when it cannot tell, why it assumes so. Under
// Claude Code (a hook), its version is in $AI_AGENT
// (claude-code_2-1-328_...); otherwise it asks the claude on PATH.
func (e *env) claudeCodeRunsExec() (bool, string) {
	v, ok := agentVersion(e.Getenv("AI_AGENT"))
	if !ok {
		path, err := exec.LookPath("claude")
		if err != nil {
			return true, "there is no claude on PATH to ask its version; guard assumes a Claude Code of 2.1.139 or later, which runs hooks in exec form"
		}
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		out, err := exec.CommandContext(ctx, path, "--version").Output()
		if v, ok = parseVersion(strings.Fields(string(out) + " x")[0]); err != nil || !ok {
			return true, "claude --version did not say its version; guard assumes 2.1.139 or later, which runs hooks in exec form"
		}
	}
	return !older(v, execSince), ""
}

// older reports whether version v is older than w.
func older(v, w [3]int) bool {
	for i := range v {
		if v[i] != w[i] {
			return v[i] < w[i]
		}
	}
	return false
}

var agentRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^claude-code_(\d+)-(\d+)-(\d+)`) })

// agentVersion reads Claude Code's version from $AI_AGENT, which it sets
// for hooks: claude-code_2-1-328_harness.
func agentVersion(s string) ([3]int, bool) {
	m := agentRE().FindStringSubmatch(s)
	if m == nil {
		return [3]int{}, false
	}
	return parseVersion(m[1] + "." + m[2] + "." + m[3])
}

// parseVersion reads "2.1.328".
func parseVersion(s string) ([3]int, bool) {
	var v [3]int
	parts := strings.Split(s, ".")
	if len(parts) != 3 {
		return v, false
	}
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil {
			return v, false
		}
		v[i] = n
	}
	return v, true
}

// installPlugins is guard install --plugins: it wraps the command hooks
// of every enabled plugin in place, in exec form (issue 31). With
// --session-start (what the SessionStart hook --auto adds runs) it does so
// silently, and only where something changed, and never fails the
// session.
func (e *env) installPlugins(c *cli.Context) error {
	quiet := c.Bool("session-start")
	for _, f := range []string{"settings", "project", "local"} {
		if c.IsSet(f) {
			return usagef("--plugins wraps the hooks of the plugins Claude Code loads here; give --%s on its own", f)
		}
	}
	err := e.wrapPlugins(c, quiet)
	if quiet {
		if err != nil {
			e.Warnf("plugin hooks not wrapped: %v", err)
		}
		return nil // never the reason a session does not start
	}
	return err
}

func (e *env) wrapPlugins(c *cli.Context, quiet bool) error {
	bin, err := e.binary(c)
	if err != nil {
		return err
	}
	src := e.pluginSource()
	plugins, err := claude.Plugins(src)
	if err != nil {
		return err
	}
	opts := e.installOptions(c, bin)
	opts.Exec = true
	for _, p := range plugins {
		if !p.Enabled || p.Unloaded != "" || len(p.HookFiles) == 0 {
			continue
		}
		// Some plugin has hooks: ask which Claude Code runs them.
		runsExec := true
		if !quiet {
			runsExec = e.runsExec()
		} else if v, ok := agentVersion(e.Getenv("AI_AGENT")); ok {
			// At a session's start: the Claude Code that runs it says
			// its version; nothing is started to ask (install --plugins
			// asked when it wrapped them first).
			runsExec = !older(v, execSince)
		}
		if !runsExec {
			return errors.New("the claude on PATH is older than 2.1.139, which runs hooks in exec form (\"args\"), the form guard wraps a plugin's hooks in (a plugin's path may hold what breaks a shell's quoting): update Claude Code first")
		}
		break
	}
	denv := e.doctorEnv()
	wrapped, files := 0, 0
	var failed []error
	for _, p := range plugins {
		if !p.Enabled || p.Unloaded != "" {
			continue
		}
		popts := opts
		popts.Plugin = p.ID
		rewrite := func(doc []byte) (claude.Result, error) { return claude.Install(doc, popts) }
		for _, file := range p.HookFiles {
			f, err := e.rewriteSettings(c, settingsTarget{path: file, backupDir: e.backupDir()}, "plugin "+p.ID+": ", "install", rewrite)
			if err != nil {
				// One plugin's broken file (Claude Code skips its hooks
				// too) must not leave every other plugin's bare.
				failed = append(failed, err)
				e.Warnf("plugin %s: not wrapped: %v", p.ID, err)
				continue
			}
			files++
			wrapped += len(f.Changes)
			if !quiet {
				penv := denv
				penv.PluginRoot, penv.PluginData, penv.Plugin = p.Root, p.Data, p.ID
				e.warnPolicies(c, f.Changes, penv)
			}
		}
		for _, nc := range p.NotCovered {
			if !quiet {
				e.Warnf("plugin %s: %s", p.ID, nc)
			}
		}
	}
	if quiet {
		return nil // each failure was a warning
	}
	if files == 0 && len(failed) == 0 {
		fmt.Fprintf(e.Stdout, "no enabled plugin has hooks (plugins are read from %s and the settings' enabledPlugins)\n", filepath.Join(src.ClaudeDir, "plugins"))
	}
	for _, p := range plugins {
		switch {
		case !p.Enabled:
		case p.Unloaded != "":
			fmt.Fprintf(e.Stdout, "plugin %s left alone: Claude Code does not load it: %s\n", p.ID, p.Unloaded)
		}
	}
	if c.Bool("auto") {
		if err := e.addAutoHook(c, bin); err != nil {
			return err
		}
	} else if wrapped > 0 && !c.Bool("dry-run") {
		fmt.Fprintf(e.Stdout, "a plugin update puts its hooks back as they were: guard doctor says so; guard install --plugins --auto wraps them again at the start of each session\n")
	}
	return notAll("wrapped", failed)
}

// notAll is the error of install or uninstall --plugins when the files of
// some plugins could not be rewritten (each told as a warning already),
// or nil.
func notAll(done string, failed []error) error {
	if len(failed) == 0 {
		return nil
	}
	return fmt.Errorf("%d plugin hooks files could not be %s (see the warnings above); the others were", len(failed), done)
}

// uninstallPlugins is guard uninstall --plugins: it unwraps the hooks of
// every plugin Claude Code has installed (enabled or not), and takes away
// the SessionStart hook install --plugins --auto added.
func (e *env) uninstallPlugins(c *cli.Context) error {
	for _, f := range []string{"settings", "project", "local"} {
		if c.IsSet(f) {
			return usagef("--plugins unwraps the hooks of the plugins Claude Code has installed; give --%s on its own", f)
		}
	}
	src := e.pluginSource()
	plugins, err := claude.Plugins(src)
	if err != nil {
		return err
	}
	done := map[string]bool{}
	var failed []error
	unwrap := func(p claude.Plugin, file, label string) {
		if _, err := e.rewriteSettings(c, settingsTarget{path: file, backupDir: e.backupDir()}, label, "uninstall", claude.Uninstall); err != nil {
			// One plugin's broken file must not leave the others wrapped.
			failed = append(failed, err)
			e.Warnf("plugin %s: not unwrapped: %v", p.ID, err)
		}
	}
	for _, p := range plugins {
		if p.Unloaded != "" {
			continue
		}
		for _, file := range p.HookFiles {
			done[file] = true
			unwrap(p, file, "plugin "+p.ID+": ")
		}
	}
	// The copies Claude Code does not load here that install may have
	// wrapped too: a plugin of another project's scope, a version an
	// update left in the cache. Only those with something to give back
	// are named.
	copies, err := claude.PluginCopies(src)
	if err != nil {
		return err
	}
	for _, p := range copies {
		for _, file := range p.HookFiles {
			if done[file] {
				continue
			}
			done[file] = true
			doc, err := src.ReadFile(file)
			if err != nil {
				continue
			}
			if r, err := claude.Uninstall(doc); err != nil || len(r.Changes) == 0 {
				continue
			}
			unwrap(p, file, "plugin "+p.ID+" ("+p.Root+"): ")
		}
	}
	if err := e.removeAutoHook(c); err != nil {
		return err
	}
	return notAll("unwrapped", failed)
}

// An autoHook is the SessionStart hook install --plugins --auto adds to
// the user's settings.
type autoHook struct {
	Type    string `json:"type"`
	Command string `json:"command"`
	Timeout int    `json:"timeout"`
}

// autoCommand is the command of the SessionStart hook for the guard bin,
// which it also gives the hooks it wraps (a bare guard included).
func autoCommand(bin string) string {
	return shell.Quote(bin) + " install --plugins --session-start --binary " + shell.Quote(bin)
}

// isAutoHook reports whether a hook object (its JSON) is the SessionStart
// hook install --plugins --auto adds, for any guard.
func isAutoHook(hook []byte) bool {
	h, err := claude.List([]byte(`{"hooks": {"SessionStart": [{"hooks": [` + string(hook) + `]}]}}`))
	if err != nil || len(h) != 1 || h[0].Exec {
		return false
	}
	cs, err := sh.Commands(h[0].Command)
	if err != nil || len(cs) != 1 || len(cs[0].Assigns) > 0 {
		return false
	}
	words := cs[0].Words
	if len(words) < 4 || !claude.IsGuardPath(words[0]) || strings.Join(words[1:4], " ") != "install --plugins --session-start" {
		return false
	}
	return len(words) == 4 || len(words) == 6 && words[4] == "--binary"
}

// addAutoHook adds the SessionStart hook to the user's settings, unless
// one is there.
func (e *env) addAutoHook(c *cli.Context, bin string) error {
	path := filepath.Join(e.claudeDir(), "settings.json")
	t := settingsTarget{path: path}
	rewrite := func(doc []byte) (claude.Result, error) {
		if has, err := claude.HasHook(doc, "SessionStart", isAutoHook); err != nil || has {
			return claude.Result{Doc: doc}, err
		}
		out, err := claude.AddHook(doc, "SessionStart", autoHook{Type: "command", Command: autoCommand(bin), Timeout: 30})
		if err != nil {
			return claude.Result{}, err
		}
		return claude.Result{Doc: out, Changes: []claude.Change{{Event: "SessionStart", After: autoCommand(bin), Hook: claude.Hook{Command: autoCommand(bin)}}}}, nil
	}
	f, err := claude.RewriteFile(path, t.backupDir, "add the SessionStart hook to", e.Now(), c.Bool("dry-run"), rewrite)
	var ns *claude.NoSettingsError
	if errors.As(err, &ns) {
		// No settings file yet: one that holds the hook alone.
		doc, err := claude.AddHook([]byte("{}\n"), "SessionStart", autoHook{Type: "command", Command: autoCommand(bin), Timeout: 30})
		if err != nil {
			return err
		}
		if c.Bool("dry-run") {
			fmt.Fprintf(e.Stdout, "would make %s, with a SessionStart hook: %s\n", path, autoCommand(bin))
			return nil
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			return err
		}
		if err := atomicfile.WriteFile(path, doc, 0o600, nil); err != nil {
			return err
		}
		fmt.Fprintf(e.Stdout, "made %s with a SessionStart hook that wraps the hooks of an updated plugin again, silently: %s\n", path, autoCommand(bin))
		return nil
	}
	if err != nil {
		return err
	}
	switch {
	case len(f.Changes) == 0:
		fmt.Fprintf(e.Stdout, "%s already has the SessionStart hook that wraps plugins' hooks again after an update\n", f.Path)
	case c.Bool("dry-run"):
		fmt.Fprintf(e.Stdout, "would add to %s a SessionStart hook: %s\n", f.Path, autoCommand(bin))
	default:
		fmt.Fprintf(e.Stdout, "added to %s (backup: %s) a SessionStart hook that wraps the hooks of an updated plugin again, silently: %s\n", f.Path, f.Backup, autoCommand(bin))
		fmt.Fprintf(e.Stdout, "  a plugin updated during a session runs bare until the next one starts; guard uninstall --plugins takes the hook away\n")
	}
	return nil
}

// removeAutoHook takes the SessionStart hook away from the user's
// settings, if it is there.
func (e *env) removeAutoHook(c *cli.Context) error {
	path := filepath.Join(e.claudeDir(), "settings.json")
	rewrite := func(doc []byte) (claude.Result, error) {
		out, removed, err := claude.RemoveHook(doc, "SessionStart", isAutoHook)
		if err != nil || !removed {
			return claude.Result{Doc: doc}, err
		}
		return claude.Result{Doc: out, Changes: []claude.Change{{Event: "SessionStart"}}}, nil
	}
	f, err := claude.RewriteFile(path, "", "remove the SessionStart hook from", e.Now(), c.Bool("dry-run"), rewrite)
	var ns *claude.NoSettingsError
	if errors.As(err, &ns) {
		return nil
	}
	if err != nil || len(f.Changes) == 0 {
		return err
	}
	if c.Bool("dry-run") {
		fmt.Fprintf(e.Stdout, "would remove from %s the SessionStart hook of guard install --plugins --auto\n", f.Path)
		return nil
	}
	fmt.Fprintf(e.Stdout, "removed from %s (backup: %s) the SessionStart hook of guard install --plugins --auto\n", f.Path, f.Backup)
	return nil
}
