package doctor

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"guard/internal/claude"
	"guard/internal/safeopen"
	"guard/internal/shell"
)

// A Finding is one problem, where it is, and what to do about it. A
// warning is something to look at that may be meant so (a policy hook
// that does not fail closed): guard doctor lists it apart, and does not
// fail for it. A note is no problem at all, only worth knowing (a key in
// observe mode whose circuit would skip its calls, which run): doctor
// lists it with the notes.
type Finding struct {
	Where   string `json:"where"`
	Problem string `json:"problem"`
	Fix     string `json:"fix"`
	Warning bool   `json:"-"`
	Note    bool   `json:"-"`
	// Key is the circuit key a finding is about, if it is about one: the
	// text report writes it so that two keys never show the same (Where
	// keeps it as it is, for JSON).
	Key string `json:"-"`
}

// A Checked is one thing that was checked, with what was found.
type Checked struct {
	What   string `json:"what"`
	Detail string `json:"detail"`
}

// Env is what the checks read from the machine.
type Env struct {
	Home string // ~
	// ProjectDir is the project the hooks run in: their working directory,
	// against which relative paths resolve, and their $CLAUDE_PROJECT_DIR.
	ProjectDir string
	// Path is the PATH hooks get: the one guard doctor runs with, unless a
	// settings file sets env.PATH (Check works that out, into PathFrom).
	Path     string
	PathFrom string // the settings file whose env.PATH Path is; "" for doctor's own
	Stat     func(string) (fs.FileInfo, error)
	ReadFile func(string) ([]byte, error)
	// PluginRoot and PluginData are ${CLAUDE_PLUGIN_ROOT} and
	// ${CLAUDE_PLUGIN_DATA}, for a plugin's hooks: where Claude Code runs
	// them from, and the plugin's data directory. "" for a settings file's.
	PluginRoot, PluginData string
	// Plugin is the plugin's ID (NAME@MARKET), for a plugin's hooks.
	Plugin string
	// IsGuard, if set, reports whether a program a hook runs (a path, or
	// a name on PATH) is guard under another name.
	IsGuard func(program string) bool
	// OnSkipBlock, if set, reports whether guard's config gives the
	// command a wrapped hook runs on_skip: block (a hooks: rule).
	OnSkipBlock func(h claude.Hook) bool
}

// SettingsFiles are the settings files Claude Code reads, user's first:
// claudeDir/settings.json (claudeDir is ~/.claude, or $CLAUDE_CONFIG_DIR),
// then the project's .claude/settings.json and .claude/settings.local.json.
// Later files override earlier ones' settings (env included); hooks of all
// of them run.
func SettingsFiles(claudeDir, projectDir string) []string {
	var out []string
	if claudeDir != "" {
		out = append(out, filepath.Join(claudeDir, "settings.json"))
	}
	if projectDir != "" {
		out = append(out, filepath.Join(projectDir, ".claude", "settings.json"), filepath.Join(projectDir, ".claude", "settings.local.json"))
	}
	seen := map[string]bool{}
	kept := out[:0]
	for _, p := range out {
		abs, err := filepath.Abs(p)
		if err != nil {
			abs = p
		}
		if !seen[abs] { // the project is the home directory
			seen[abs] = true
			kept = append(kept, p)
		}
	}
	return kept
}

// EnvPath returns the env.PATH a settings document sets, if it sets one.
func EnvPath(doc []byte) (string, bool) {
	var v struct {
		Env map[string]any `json:"env"`
	}
	if json.Unmarshal(trimBOM(doc), &v) != nil {
		return "", false
	}
	p, ok := v.Env["PATH"].(string)
	return p, ok
}

func trimBOM(doc []byte) []byte {
	if len(doc) >= 3 && string(doc[:3]) == "\xef\xbb\xbf" {
		return doc[3:]
	}
	return doc
}

// HookPath returns env with the PATH hooks get from the settings files
// (in the order Claude Code reads them): the env.PATH of the last one that
// sets it, else env's own.
func HookPath(files []string, env Env) Env {
	for _, path := range files {
		if doc, err := env.ReadFile(path); err == nil {
			if p, ok := EnvPath(doc); ok {
				env.Path, env.PathFrom = p, path
			}
		}
	}
	return env
}

// Check checks the settings files (in the order Claude Code reads them)
// and their hooks, and hooks defined in several of them that no longer
// match.
func Check(files []string, env Env) ([]Checked, []Finding) {
	docs := map[string][]byte{}
	var errs = map[string]error{}
	for _, path := range files {
		doc, err := env.ReadFile(path)
		if err != nil {
			errs[path] = err
			continue
		}
		docs[path] = doc
		if p, ok := EnvPath(doc); ok {
			env.Path, env.PathFrom = p, path // a later file overrides an earlier one
		}
	}
	var checked []Checked
	var findings []Finding
	var copies []claude.Copy
	for _, path := range files {
		c := Checked{What: "settings " + path}
		if err := errs[path]; err != nil {
			if os.IsNotExist(err) {
				c.Detail = "not there"
			} else {
				findings = append(findings, unreadable(path, err))
			}
			checked = append(checked, c)
			continue
		}
		c, fs, hooks := settings(path, docs[path], env)
		checked, findings = append(checked, c), append(findings, fs...)
		for _, h := range hooks {
			copies = append(copies, claude.Copy{File: path, Hook: h})
		}
	}
	for _, g := range claude.Differing(copies) {
		findings = append(findings, Differing(g, ""))
	}
	return checked, findings
}

// Settings checks one settings file's hooks, and says what it found.
func Settings(path string, env Env) (Checked, []Finding) {
	doc, err := env.ReadFile(path)
	if err != nil {
		if os.IsNotExist(err) {
			return Checked{What: "settings " + path, Detail: "not there"}, nil
		}
		return Checked{What: "settings " + path}, []Finding{unreadable(path, err)}
	}
	c, fs, _ := settings(path, doc, env)
	return c, fs
}

func settings(path string, doc []byte, env Env) (Checked, []Finding, []claude.Hook) {
	c := Checked{What: "settings " + path}
	invalid, err := claude.Validate(doc)
	if err != nil {
		c.Detail = "invalid"
		return c, []Finding{{Where: path, Problem: "is not valid settings JSON: " + err.Error(), Fix: "fix the JSON (Claude Code ignores a settings file it cannot parse, hooks and all)"}}, nil
	}
	var findings []Finding
	for _, v := range invalid {
		findings = append(findings, Finding{Where: path + ", " + v.Path, Problem: v.Problem + ": Claude Code does not accept it",
			Fix: "fix it as the hooks reference describes; until then Claude Code reports the settings file as invalid and does not run the hook"})
	}
	hooks, _ := claude.List(doc)
	guarded := 0
	for _, h := range hooks {
		if h.Guard != "" && !h.Broken {
			guarded++
		}
		place := path + ", " + h.Event
		if h.Matcher != "" {
			place += "[" + h.Matcher + "]"
		}
		for _, f := range Hook(h, env) {
			f.Where = place
			findings = append(findings, f)
		}
		if f, ok := env.openPolicy(h); ok {
			f.Where = place
			findings = append(findings, f)
		}
	}
	c.Detail = fmt.Sprintf("%d command hooks, %d behind guard", len(hooks), guarded)
	return c, findings, hooks
}

// Differing says what is wrong with a handler defined in several settings
// files whose copies differ (claude.Differing), and how to make them
// match with guard install --binary bin ("" for where guard is).
func Differing(g []claude.Copy, bin string) Finding {
	var files, wrapped, bare, forms []string
	filesOf := map[string][]string{} // by the command each file's copy is
	seen := map[string]bool{}
	// Claude Code merges copies defined the same way: it runs each
	// different one once.
	runs := map[string]bool{}
	for _, c := range g {
		form := strings.Join(append([]string{c.Hook.Command}, c.Hook.Args...), "\x00")
		runs[form] = true
		if seen[c.File] {
			continue
		}
		seen[c.File] = true
		files = append(files, c.File)
		if c.Hook.Guard != "" {
			wrapped = append(wrapped, c.File)
			if filesOf[form] == nil {
				forms = append(forms, form)
			}
			filesOf[form] = append(filesOf[form], c.File)
		} else {
			bare = append(bare, c.File)
		}
	}
	h := g[0].Hook
	where := strings.Join(files, " and ") + ", " + h.Event
	how := "behind guard in " + strings.Join(wrapped, " and ") + ", bare in " + strings.Join(bare, " and ")
	if len(bare) == 0 {
		// Behind guard in each, written differently: say which files
		// agree.
		var groups []string
		for i, f := range forms {
			way := "one way"
			if i > 0 {
				way = "another"
			}
			groups = append(groups, way+" in "+strings.Join(filesOf[f], " and "))
		}
		how = "behind guard in each but written " + strings.Join(groups, ", ")
	}
	binFlag := ""
	if bin != "" {
		binFlag = " --binary " + bin
	}
	var fixes []string
	for _, f := range bare {
		fixes = append(fixes, "guard install --settings "+f+binFlag)
	}
	if len(bare) == 0 {
		for _, f := range files {
			fixes = append(fixes, "guard install --settings "+f+binFlag)
		}
	}
	return Finding{
		Where: where,
		Problem: fmt.Sprintf("%s is in %d settings files, %s: Claude Code runs a hook that several settings files define the same way once, but each different copy once, so it runs %d times per event",
			own(h), len(files), how, len(runs)),
		Fix: "make the copies the same: " + strings.Join(fixes, "; ") + " (with the same --binary for each), or remove all but one",
	}
}

// openPolicy warns about a hook behind guard that looks like a policy
// (Policy) and does not fail closed: with neither --on-skip block (which
// install writes for "onFailure": "block") nor on_skip: block in a
// hooks: rule, guard skipping it (its circuit open) lets through what it
// would have stopped.
func (env Env) openPolicy(h claude.Hook) (Finding, bool) {
	if h.Guard == "" || h.Broken || h.OnSkip || env.OnSkipBlock != nil && env.OnSkipBlock(h) {
		return Finding{}, false
	}
	why := env.Policy(h)
	if why == "" {
		return Finding{}, false
	}
	f := Finding{Warning: true,
		Problem: "looks like a policy (" + why + "), and is behind guard without on_skip: block: while guard skips it (its circuit open), Claude Code allows what it would have stopped",
		Fix: `to keep it fail-closed, give it "onFailure": "block" and run guard install again, or on_skip: block in a hooks: rule of guardrails.yaml; ` +
			"or leave it unguarded: guard uninstall, then guard install --exclude PATTERN (a part of its command)"}
	if env.Plugin != "" {
		// A plugin's files are its author's, and an update replaces them.
		f.Fix = "to keep it fail-closed, add to guardrails.yaml the hooks: rule " + PluginRule(env.Plugin) +
			", which a plugin update leaves alone; or leave it unguarded: guard uninstall --plugins, then guard install --plugins --exclude PATTERN (a part of its command)"
	}
	if h.FailClosed {
		f.Fix = `it is marked "onFailure": "block", but its guard run has no --on-skip block: run guard install again, which adds it`
	}
	return f, true
}

// PluginRule is the hooks: rule of guardrails.yaml, on one line, that
// keeps every hook of the plugin id fail-closed: its keys are "plugin
// ID: COMMAND" (see claude.PluginKey).
func PluginRule(id string) string {
	var b strings.Builder
	for _, r := range id {
		if strings.ContainsRune(`*?[\`, r) {
			b.WriteByte('\\') // not a glob's
		}
		b.WriteRune(r)
	}
	return "{match: " + strconv.Quote("plugin "+b.String()+": *") + ", on_skip: block}"
}

// own is a hook's own command, for a message.
func own(h claude.Hook) string {
	s := h.Own()
	if len(s) > 80 {
		s = s[:77] + "..."
	}
	return s
}

// Hook checks one hook.
func Hook(h claude.Hook, env Env) []Finding {
	var out []Finding
	add := func(problem, fix string) { out = append(out, Finding{Problem: problem, Fix: fix}) }
	if !h.Exec && h.Command == "" && h.Args != nil {
		return nil // {"args": [...]} alone: Validate says Claude Code does not run it
	}
	if h.Broken {
		add(`is in exec form ("args"), so Claude Code starts its "command" as a program, and an older guard install made that a guard run -c line: Claude Code cannot start it, and the hook never runs`,
			"guard install (of this guard) repairs it; guard uninstall gives the hook back as it was")
		return out
	}
	exec := h.Exec
	run, argv := h.Command, append([]string{h.Command}, h.Args...) // what the hook runs in the end
	if h.Shell != "" && h.Shell != "bash" && !h.Exec {
		// Another shell runs the command: its words are that shell's,
		// not sh's. Check the shell is there, not what it runs.
		if h.Shell == "powershell" {
			_, pwsh := env.lookPath("pwsh")
			_, ps := env.lookPath("powershell")
			if !pwsh && !ps {
				where := "on PATH"
				if env.PathFrom != "" {
					where = "on the PATH that " + env.PathFrom + " gives hooks"
				}
				add(`runs in PowerShell ("shell": "powershell"), and neither pwsh nor powershell is `+where,
					"install PowerShell (pwsh), or make the hook a bash command: until then it fails on every call")
			}
		}
		run = "" // Validate reports a "shell" Claude Code does not know
	}
	switch {
	case h.Guard != "":
		run, argv = h.Inner, h.InnerArgv
		exec = h.InnerArgv != nil
		if msg := env.executable(h.Guard); msg != "" {
			add(fmt.Sprintf("calls guard at %s, which %s", h.Guard, msg),
				"install guard there (make install), or run guard install again to point the hooks at the guard you have")
		}
		inner := run
		if exec {
			inner = shell.Join(argv) // read as the shell form is: bash -c 'guard run ...' included
		}
		if claude.RunsGuardWith(inner, env.IsGuard) {
			add("runs behind guard twice", "edit it to one guard run -c '...' around the hook's own command")
		}
		if claude.MentionsPythonWrapper(inner) {
			add("runs behind both guard and the Python wrapper ("+claude.PythonWrapper+"): two breakers count its failures",
				"make the hook the wrapped command alone, then run guard install")
		}
	case h.Python != "":
		run = h.Python
		add("runs behind the Python wrapper ("+claude.PythonWrapper+")",
			"guard install moves it to guard, with its state (guard uninstall gives it back)")
		out = append(out, env.pythonWrapper(h)...)
	case h.PythonManual != "":
		add("runs behind the Python wrapper ("+claude.PythonWrapper+"), in a form guard install cannot move exactly: "+h.PythonManual,
			"make the hook the wrapped command alone by hand, then run guard install")
		if !h.Exec {
			out = append(out, env.pythonWrapper(h)...)
		}
		run = "" // what the wrapper runs is not known for sure
	}
	var probs []problem
	switch {
	case exec && len(argv) > 0:
		probs = env.argvProblems(argv, env.expandExec)
	case !exec && run != "":
		probs = env.launchProblems(run)
	}
	for _, p := range probs {
		fix := "fix the path, or install what is missing: until then the hook fails on every call"
		if p.exits2 != "" && blocks(h) {
			fix += " (" + p.exits2 + " exits 2 when it cannot open its script, which Claude Code takes for a block)"
		}
		add(p.msg, fix)
	}
	if f, ok := hookTimeout(h); ok {
		out = append(out, f)
	}
	if h.HasTimeout && h.Timeout >= 1000 {
		d := time.Duration(h.Timeout * float64(time.Second))
		add(fmt.Sprintf("has timeout %v, which Claude Code reads as seconds: %s", h.Timeout, d),
			fmt.Sprintf("if you meant milliseconds, write %v", max(1, h.Timeout/1000)))
	}
	return out
}

// hookTimeout checks the --hook-timeout of a hook behind guard against
// the timeout Claude Code gives it (its "timeout", or the default for its
// event): one that differs (the timeout changed since install) is a
// problem, since guard would stop the hook at the wrong time, before the
// timeout its author asked for if it was raised; a hook with none (an
// older install) gets a warning: Claude Code kills it at its timeout
// before guard records anything, so a hook that hangs never trips.
func hookTimeout(h claude.Hook) (Finding, bool) {
	if h.Guard == "" || h.Broken {
		return Finding{}, false
	}
	var own float64
	if h.HasTimeout && h.Timeout > 0 {
		own = h.Timeout
	}
	want := claude.HookLimit(h.Event, own)
	if want > claude.MaxHookTimeout && h.HookTimeout == "" {
		return Finding{}, false // no limit to hand on
	}
	if h.HookTimeout == "" {
		return Finding{Warning: true,
			Problem: fmt.Sprintf("runs behind guard without --hook-timeout: at its timeout (%ss) Claude Code kills guard and the hook before guard records anything, so a hook that hangs never trips", claude.Seconds(want)),
			Fix:     "guard install again: it gives each hook guard run --hook-timeout, its timeout"}, true
	}
	got, err := strconv.ParseFloat(h.HookTimeout, 64)
	if err == nil && got == want {
		return Finding{}, false
	}
	return Finding{
		Problem: fmt.Sprintf("runs behind guard with --hook-timeout %s, but Claude Code gives it %ss: guard stops it at the wrong time", h.HookTimeout, claude.Seconds(want)),
		Fix:     "guard install again: it sets --hook-timeout to the hook's timeout"}, true
}

// blocks reports whether an exit 2 of the hook blocks something: on an
// event where a block stops what Claude Code is about to do
// (PolicyEvents), for a hook not behind guard (guard exits 1, not 2, for
// a hook whose program or script never started).
func blocks(h claude.Hook) bool {
	return h.Guard == "" && PolicyEvents[h.Event]
}

// unreadable is the finding for a settings file that cannot be read: not
// a regular file (a FIFO would hang whatever reads it, Claude Code
// included), or not readable.
func unreadable(path string, err error) Finding {
	fix := "check its permissions: Claude Code cannot read it either"
	if errors.Is(err, safeopen.ErrNotRegular) {
		fix = "replace it with a regular file (or remove it): Claude Code cannot use it either"
	}
	return Finding{Where: path, Problem: "cannot be read: " + err.Error(), Fix: fix}
}
