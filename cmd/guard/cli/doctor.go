package cli

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/urfave/cli/v2"

	"guard/breaker"
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

func (e *env) doctorCommand() *cli.Command {
	return &cli.Command{
		Name:  "doctor",
		Usage: "check the Claude Code setup end to end, and say what to do about each problem",
		Description: `Checks every settings file Claude Code reads (~/.claude/settings.json, and the
project's .claude/settings.json and .claude/settings.local.json) and each of
their hooks, as Claude Code runs them (in the project directory, on the PATH
the settings' env.PATH gives hooks, else doctor's own): that Claude Code
accepts them (known events, a "command" string, a number "timeout", ...);
the guard a wrapped hook calls exists and is executable; the program, script
and #! interpreter the hook runs exist (the exec form's program and args
too; for "shell": "powershell", that pwsh is there); no hook is wrapped twice, or still by the Python wrapper, whose script
must exist; no exec-form hook was broken by an older guard install; no hook
is behind guard in one settings file and bare in another (Claude Code then
runs it twice); no timeout looks like milliseconds (Claude Code reads
seconds: 2000 is 33 minutes), and each hook behind guard has the
--hook-timeout of its timeout. Then each enabled plugin's command hooks,
listed with the plugin as behind guard or not (a plugin update puts them
back bare: guard install --plugins), and hooks in the frontmatter of skills,
commands and agents, which guard does not wrap. Then guard's own config,
that the state can be read and written (its directory made), open circuits
and spent budgets. A run that found no settings file to check says so, as a
warning; Claude Code reads a project's settings only when started in its
directory, and doctor names them when they are above the current one.
Last, the platform: the filesystem the state is on (a network filesystem
or FAT is a warning: guard's promises hold less there), and, on macOS and
Windows, what that system cannot keep of guard's promises, as notes
(docs/platforms.md).

A hook behind guard that looks like a policy (it exits 2 or denies, as
install's warning reads it) and does not fail closed (neither --on-skip
block nor on_skip: block in a hooks: rule) is listed as a warning: while
guard skips it, Claude Code allows what it would have stopped.

Each problem comes with a fix. Exits 0 when all is well, 1 with problems
(warnings and notes do not count). --json prints {ok, checked: [{what,
detail}], problems: [{where, problem, fix}], warnings: [{where, problem,
fix}], notes: [{where, problem, fix}]}.

Examples:
   guard doctor
   guard doctor --project ~/src/app
   guard doctor --json | jq -r '.problems[].problem'`,
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "project", Usage: "the project `DIR` whose settings to check (default: $CLAUDE_PROJECT_DIR, else the current directory)"},
			&cli.BoolFlag{Name: "json", Usage: "print JSON"},
		}, stateFlags()...),
		Action: e.doctor,
	}
}

// A doctorReport is guard doctor --json.
type doctorReport struct {
	OK       bool             `json:"ok"`
	Checked  []doctor.Checked `json:"checked"`
	Problems []doctor.Finding `json:"problems"`
	Warnings []doctor.Finding `json:"warnings"`
	// Notes are not problems: what this platform cannot keep of guard's
	// promises, or keeps otherwise (doctor_platform.go), and the keys in
	// observe mode whose circuit would skip their calls, which run
	// (doctorCircuits).
	Notes []doctor.Finding `json:"notes"`
}

func (e *env) doctor(c *cli.Context) error {
	if c.NArg() > 0 {
		return usagef("doctor takes no arguments")
	}
	home := e.homeDir()
	project := c.String("project")
	if project == "" {
		project = e.Getenv(circuit.ProjectVar)
	}
	if project == "" {
		project, _ = os.Getwd()
	}
	if abs, err := filepath.Abs(project); err == nil {
		project = abs
	}
	denv := doctor.Env{Home: home, ProjectDir: project, Path: e.Getenv("PATH"), Stat: os.Stat, ReadFile: safeopen.ReadFile, IsGuard: guardCopy}
	if cfg, err := e.loadConfig(c); err == nil {
		denv.OnSkipBlock = func(h claude.Hook) bool { return cfg.For(ruleKey(h)).OnSkip == "block" }
	}
	r := doctorReport{Checked: []doctor.Checked{}, Problems: []doctor.Finding{}, Warnings: []doctor.Finding{}, Notes: []doctor.Finding{}}
	found := func(fs []doctor.Finding) {
		for _, f := range fs {
			switch {
			case f.Note:
				r.Notes = append(r.Notes, f)
			case f.Warning:
				r.Warnings = append(r.Warnings, f)
			default:
				r.Problems = append(r.Problems, f)
			}
		}
	}
	files := doctor.SettingsFiles(e.claudeDir(), project)
	checked, fs := doctor.Check(files, denv)
	r.Checked = append(r.Checked, checked...)
	found(fs)
	found(e.doctorNothingChecked(checked, files, project, c.IsSet("project")))

	// The plugins' hooks (issue 31), and those of skills, commands and
	// agents.
	src := e.pluginSource()
	src.ProjectDir = project
	plugins, err := claude.Plugins(src)
	if err != nil {
		found([]doctor.Finding{{Where: "plugins", Problem: view.ErrorLine(err), Fix: "Claude Code cannot read it either: reinstall the plugins (claude plugin install ...)"}})
	}
	checked, fs = doctor.Plugins(plugins, denv)
	r.Checked = append(r.Checked, checked...)
	found(fs)
	found(doctor.Frontmatter(doctor.FrontmatterFiles(e.claudeDir(), project, plugins), denv))

	e.doctorGuard(c, func(ch doctor.Checked, fs []doctor.Finding) {
		r.Checked = append(r.Checked, ch)
		found(fs)
	})
	platform, fs, notes := e.doctorPlatform(c)
	r.Checked = append(r.Checked, platform)
	found(fs)
	r.Notes = append(r.Notes, notes...)

	r.OK = len(r.Problems) == 0
	if c.Bool("json") {
		if err := view.WriteJSON(e.Stdout, r); err != nil {
			return err
		}
	} else {
		writeDoctor(e, r)
	}
	if !r.OK {
		return &guardrun.ExitError{Code: 1}
	}
	return nil
}

// doctorNothingChecked warns when no settings file was there to check
// (newcomer-and-mission #7): doctor then checked none of Claude Code's
// hooks, which is no "all is well". It names the project settings of
// the nearest directory above, which Claude Code reads only when started
// there.
func (e *env) doctorNothingChecked(checked []doctor.Checked, files []string, project string, projectGiven bool) []doctor.Finding {
	for _, ch := range checked {
		if ch.Detail != "not there" {
			return nil
		}
	}
	f := doctor.Finding{Warning: true, Where: "settings",
		Problem: "there is no settings file at " + strings.Join(files, ", ") + ": no hook was checked",
		Fix:     "run guard doctor in the project Claude Code starts in, or give it: guard doctor --project DIR"}
	for d := filepath.Dir(project); d != filepath.Dir(d); d = filepath.Dir(d) {
		for _, name := range []string{"settings.json", "settings.local.json"} {
			if p := filepath.Join(d, ".claude", name); isFile(p) && filepath.Dir(p) != e.claudeDir() {
				f.Fix = p + " is there, and Claude Code reads it when started in " + d + " (not in a directory below it): guard doctor --project " + shell.Quote(d)
				return []doctor.Finding{f}
			}
		}
	}
	return []doctor.Finding{f}
}

// ruleKey is the key guard run matches hooks: rules against for the
// command a wrapped hook runs.
func ruleKey(h claude.Hook) string {
	if h.Name != "" {
		return circuit.ValidKey(h.Name)
	}
	if h.InnerArgv != nil {
		return circuit.ValidKey(circuit.CommandKey(h.InnerArgv))
	}
	return circuit.ValidKey(h.Inner)
}

// doctorGuard checks guard's own config, state, circuits and budgets.
func (e *env) doctorGuard(c *cli.Context, check func(doctor.Checked, []doctor.Finding)) {
	cfg, err := e.loadConfig(c)
	if err != nil {
		check(doctor.Checked{What: "config", Detail: "invalid"}, []doctor.Finding{{Where: "config", Problem: view.ErrorLine(err),
			Fix: "guard config check shows the effective settings; guardrails.example.yaml lists every one (until it is fixed, guard runs hooks unguarded)"}})
		return
	}
	check(doctor.Checked{What: "config " + cfg.Source, Detail: "valid"}, nil)

	where := cfg.StateFile
	shown := config.Redact(where) // no password in the report people paste
	state := doctor.Checked{What: "state " + shown}
	hooks, err := e.OpenHooks(cfg)
	if err == nil {
		var probs []doctor.Finding
		if !config.IsDatabaseURL(where) {
			probs = writable(where)
		}
		v, serr := hooks.Circuits.Snapshot()
		if serr != nil && len(probs) == 0 {
			probs = append(probs, doctor.Finding{Where: shown, Problem: "cannot be read: " + view.ErrorLine(serr), Fix: "guard state import a good copy, or let the next guard run set it aside"})
		}
		state.Detail = "readable and writable"
		if len(probs) > 0 {
			state.Detail = "has problems"
		}
		check(state, probs)
		if serr == nil {
			e.doctorCircuits(cfg, v, check)
		}
	} else {
		state.Detail = "cannot be opened"
		probs := []doctor.Finding{{Where: shown, Problem: view.ErrorLine(err), Fix: "check the path (state_file, GUARD_STATE) and its permissions, or that the database is reachable (guard config check)"}}
		if !config.IsDatabaseURL(where) {
			if w := writable(where); len(w) > 0 {
				probs = w // says what is wrong with the path, and what to do
			}
		}
		check(state, probs)
	}

	if advice := store.Advice(where); len(advice) > 0 {
		var probs []doctor.Finding
		for _, a := range advice {
			probs = append(probs, doctor.Finding{Where: config.Redact(where), Problem: a,
				Fix: "for a database on another host use sslmode=verify-full and sslrootcert=FILE, the CA of the server's certificate (docs/postgres.md, TLS)"})
		}
		check(doctor.Checked{What: "connection", Detail: "not verified"}, probs)
	}

	budgets := doctor.Checked{What: "budgets"}
	cool, err := e.cooldownReport(cfg, e.Now())
	var probs []doctor.Finding
	if err != nil {
		probs = append(probs, doctor.Finding{Where: "cooldown state", Problem: view.ErrorLine(err), Fix: "check cooldown.state_file and its permissions"})
	}
	spent := 0
	for _, s := range slices.Sorted(maps.Keys(cool)) {
		for _, a := range slices.Sorted(maps.Keys(cool[s].Actions)) {
			st := cool[s].Actions[a]
			if !st.InCooldown {
				continue
			}
			spent++
			probs = append(probs, doctor.Finding{Where: "budget " + s + " " + a,
				Problem: fmt.Sprintf("spent: %d of %d in %s; next allowed at %s", st.Used, st.Limit, st.Window, st.NextAllowed.UTC().Format("2006-01-02T15:04:05Z")),
				Fix:     "needs human attention: find out why " + s + " keeps needing a " + a + "; guard cooldown healthy " + s + " (twice) clears it once it is well"})
		}
	}
	budgets.Detail = fmt.Sprintf("%d services, %d budgets spent", len(cool), spent)
	check(budgets, probs)
}

// doctorCircuits reports the open and half-open circuits in force as
// problems, and those of keys in observe mode as notes: such a key's
// calls all run (issue 33: observe is a state of its own, never one that
// skips), so doctor says what it would skip, which is nothing to fix.
func (e *env) doctorCircuits(cfg *config.Config, v store.CircuitView, check func(doctor.Checked, []doctor.Finding)) {
	now := e.Now()
	sts, err := view.Statuses(v, nil, nil, now, guardrun.Liveness(guardrun.Host(e.Getenv)).Alive)
	if err != nil {
		check(doctor.Checked{What: "circuits", Detail: "unreadable"}, []doctor.Finding{{Where: "state", Problem: view.ErrorLine(err), Fix: "the next guard run sets the entry aside"}})
		return
	}
	view.ApplyConfig(sts, cfg, now)
	var found []doctor.Finding
	skipping, observing := 0, 0
	for _, st := range sts {
		ks := st.KeyState()
		// A disabled key is not guarded: whatever its old circuit says is
		// in force nowhere, and is no problem. A closed circuit skips
		// nothing, in observe mode or not.
		if ks.Name == view.StateDisabled || ks.Circuit == breaker.Closed {
			continue
		}
		why := ""
		if st.OpenReason != nil {
			why += ": " + *st.OpenReason
		}
		if st.LastError != nil {
			why += "; last error: " + view.LastError(*st.LastError, 120)
		}
		reset := "guard reset " + circuit.KeyArg(st.Key)
		probes := ""
		if ks.Circuit == breaker.Open && !st.RetryAfter.IsZero() {
			probes = " (or it probes by itself at " + st.RetryAfter.UTC().Format("2006-01-02T15:04:05Z") + ")"
		}
		if ks.Name == view.StateObserve {
			observing++
			would := "its calls"
			if ks.Circuit == breaker.HalfOpen {
				would = "its calls but the probes"
			}
			found = append(found, doctor.Finding{Note: true, Where: "key " + st.Key, Key: st.Key,
				Problem: "circuit " + view.KeyState{Circuit: ks.Circuit}.Word() + " in observe mode" + why + "; guard would skip " + would + ", and runs them",
				Fix:     "nothing is skipped while it observes; " + reset + " closes it" + probes})
			continue
		}
		if ks.Skipping() {
			skipping++
		}
		found = append(found, doctor.Finding{Where: "key " + st.Key, Key: st.Key,
			Problem: "circuit " + ks.Word() + why, Fix: "fix the hook, then " + reset + probes})
	}
	detail := fmt.Sprintf("%d keys, %d not closed", len(sts), skipping)
	if observing > 0 {
		detail += fmt.Sprintf(", %d in observe mode that would skip (runs them: see the notes)", observing)
	}
	if n := countState(sts, view.StateDisabled); n > 0 {
		detail += fmt.Sprintf(", %d disabled (not guarded)", n)
	}
	check(doctor.Checked{What: "circuits", Detail: detail}, found)
}

// countState counts the statuses in state s.
func countState(sts []view.KeyStatus, s string) int {
	n := 0
	for _, st := range sts {
		if st.State == s {
			n++
		}
	}
	return n
}

// writable says what keeps guard from writing the state file at path: a
// directory in its place, a directory that cannot be created or written
// (guard replaces the file by renaming a new one into place), a file it
// cannot read and write.
func writable(path string) []doctor.Finding {
	unguarded := ": guard cannot record outcomes, so no circuit ever opens (each run warns)"
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return []doctor.Finding{{Where: path, Problem: "is a directory, where guard keeps its state file: every guard run refuses it and runs its hook unguarded",
			Fix: "move the directory out of the way (mv " + path + " " + path + ".old), or point state_file (GUARD_STATE) at a file"}}
	}
	dir := filepath.Dir(path)
	// The nearest directory that exists: guard makes the rest on first use.
	at := dir
	for {
		fi, err := os.Stat(at)
		if err == nil && !fi.IsDir() {
			return []doctor.Finding{{Where: path, Problem: at + " is a file, where the state's directory " + dir + " should be" + unguarded,
				Fix: "move it out of the way, or point state_file (GUARD_STATE) elsewhere"}}
		}
		if err == nil || !errors.Is(err, os.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR) || filepath.Dir(at) == at {
			break
		}
		at = filepath.Dir(at)
	}
	if err := canCreateIn(at); err != nil {
		if at != dir {
			return []doctor.Finding{{Where: path, Problem: "its directory " + dir + " does not exist and cannot be made: " + at + " is not writable (" + err.Error() + ")" + unguarded,
				Fix: "move the state somewhere guard can write (state_file, GUARD_STATE), or make " + dir + " and let guard write it"}}
		}
		return []doctor.Finding{{Where: path, Problem: "its directory " + dir + " is not writable: " + err.Error() + unguarded, Fix: "guard replaces the file by renaming a new one into place: make " + dir + " writable, or move the state (state_file, GUARD_STATE)"}}
	}
	if err := canReadWrite(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return []doctor.Finding{{Where: path, Problem: "is not readable and writable: " + err.Error(), Fix: readWriteFix(path)}}
	}
	// Permissions are not all: a full filesystem (or a spent quota) takes
	// every write, and every run would warn. Write as guard writes the
	// state: a file of a state's size in that directory, synced.
	if err := writeProbe(at); err != nil {
		fix := "free some space on the filesystem of " + at + ", or move the state (state_file, GUARD_STATE)"
		if !isNoSpace(err) {
			fix = "make " + at + " writable, or move the state (state_file, GUARD_STATE)"
		}
		return []doctor.Finding{{Where: path, Problem: fmt.Sprintf("a test write of %d KiB in %s failed: %v%s", probeSize>>10, at, err, unguarded), Fix: fix}}
	}
	return nil
}

// probeSize is how much doctor writes to see that the state's directory
// takes a write: a few KiB, the size of a small state file.
const probeSize = 8 << 10

// writeProbe writes probeSize bytes to a new temp file in dir, syncs it,
// and removes it.
func writeProbe(dir string) error {
	f, err := os.CreateTemp(dir, ".guard-doctor-*.tmp")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	_, err = f.Write(make([]byte, probeSize))
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// writeDoctor prints the report for people.
func writeDoctor(e *env, r doctorReport) {
	for _, ch := range r.Checked {
		fmt.Fprintf(e.Stdout, "checked  %s: %s\n", view.Printable(ch.What), ch.Detail)
	}
	var platform, keys []doctor.Finding
	for _, n := range r.Notes {
		if n.Key != "" {
			keys = append(keys, n)
		} else {
			platform = append(platform, n)
		}
	}
	if len(platform) > 0 {
		fmt.Fprintf(e.Stdout, "\nWhat %s does not keep (docs/platforms.md):\n", platform[0].Where)
		for _, n := range platform {
			fmt.Fprintf(e.Stdout, " -  %s\n    instead: %s\n", view.Printable(n.Problem), view.Printable(n.Fix))
		}
	}
	if len(keys) > 0 {
		fmt.Fprintf(e.Stdout, "\n%d %s in observe mode would skip calls (they run: not counted as problems):\n", len(keys), plural(len(keys), "key", "keys"))
		for i, n := range keys {
			fmt.Fprintf(e.Stdout, "%2d. key %s: %s\n    %s\n", i+1, view.KeyText(n.Key), view.Printable(n.Problem), view.Printable(n.Fix))
		}
	}
	if len(r.Warnings) > 0 {
		fmt.Fprintf(e.Stdout, "\n%d %s (not counted as problems):\n", len(r.Warnings), plural(len(r.Warnings), "warning", "warnings"))
		for i, p := range r.Warnings {
			fmt.Fprintf(e.Stdout, "%2d. %s: %s\n    fix: %s\n", i+1, view.Printable(p.Where), view.Printable(p.Problem), view.Printable(p.Fix))
		}
	}
	switch {
	case r.OK && len(r.Warnings) > 0:
		fmt.Fprintf(e.Stdout, "\nNo problems, but look at the %s above.\n", plural(len(r.Warnings), "warning", "warnings"))
		return
	case r.OK:
		fmt.Fprintf(e.Stdout, "\nAll is well.\n")
		return
	}
	fmt.Fprintf(e.Stdout, "\n%d %s:\n", len(r.Problems), plural(len(r.Problems), "problem", "problems"))
	for i, p := range r.Problems {
		where := view.Printable(p.Where)
		if p.Key != "" {
			where = "key " + view.KeyText(p.Key)
		}
		fmt.Fprintf(e.Stdout, "%2d. %s: %s\n    fix: %s\n", i+1, where, view.Printable(p.Problem), view.Printable(p.Fix))
	}
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
