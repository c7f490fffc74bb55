package guardrun

import (
	"errors"
	"fmt"
	"math"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"guard/config"
	"guard/internal/circuit"
)

// A Call is what guard run is asked to run: a shell string (-c) or a
// command, an optional key (--name), and overrides of the config for this
// run (nil where not given).
type Call struct {
	Command    string // -c STRING
	HasCommand bool
	Shell      string   // --shell: the shell that runs Command; "" is the system's (SystemShell)
	Args       []string // the command to run
	Name       string

	Timeout, Cooldown                                   *time.Duration
	FailureThreshold, SuccessThreshold, CooldownSeconds *int
	OnSkip                                              *string // --on-skip allow|block
	Fallback                                            *string // --fallback CMD
	// HookTimeout is --hook-timeout: how long the caller (Claude Code)
	// gives the command before it kills it (see supervise.HookBudget).
	HookTimeout *time.Duration

	shellMissing bool // --shell named a shell that is nowhere: the system's runs Command
}

// Target works out what to run, under which key, and which key the
// config's rules see: the command itself, without the project a
// $CLAUDE_PROJECT_DIR command is kept for (see circuit.ProjectKey).
func (l *Call) Target(projectDir string) (argv []string, key, ruleKey string, err error) {
	argv, key, err = l.commandLine()
	if err != nil {
		return nil, "", "", err
	}
	if l.Name != "" {
		return argv, circuit.ValidKey(l.Name), circuit.ValidKey(l.Name), nil
	}
	key = circuit.ValidKey(key)
	return argv, circuit.ProjectKey(key, projectDir), key, nil
}

// commandLine works out what to run and its key from the command.
func (l *Call) commandLine() (argv []string, key string, err error) {
	switch {
	case l.HasCommand && len(l.Args) > 0:
		return nil, "", errors.New("give -c 'STRING' or -- CMD, not both")
	case l.HasCommand:
		sh, found := FindShell(l.Shell)
		l.shellMissing = !found
		argv, key = []string{sh, "-c", l.Command}, l.Command
	case len(l.Args) > 0:
		argv = l.Args
		key = circuit.CommandKey(argv)
	default:
		return nil, "", errors.New("nothing to run (usage: guard run [FLAGS] -- CMD [ARG...] or guard run [FLAGS] -c 'STRING')")
	}
	return argv, key, nil
}

// Settings returns the settings for key with the command line's flags
// applied on top.
func (l *Call) Settings(cfg *config.Config, key string) (config.Breaker, error) {
	b := cfg.For(key)
	for _, f := range []struct {
		name string
		val  *int
		dst  *int
	}{{"failure-threshold", l.FailureThreshold, &b.FailureThreshold}, {"success-threshold", l.SuccessThreshold, &b.SuccessThreshold}} {
		if f.val != nil {
			if *f.val < 1 {
				return b, fmt.Errorf("--%s must be at least 1, got %d", f.name, *f.val)
			}
			*f.dst = *f.val
		}
	}
	if l.Cooldown != nil && l.CooldownSeconds != nil {
		return b, errors.New("give --cooldown or --cooldown-seconds, not both")
	}
	if l.Timeout != nil && *l.Timeout < 0 {
		return b, errors.New("--timeout must not be negative")
	}
	if l.Cooldown != nil && *l.Cooldown < 0 {
		return b, errors.New("--cooldown must not be negative")
	}
	if l.Cooldown != nil {
		b.Cooldown = *l.Cooldown
	}
	if l.CooldownSeconds != nil {
		if *l.CooldownSeconds < 0 {
			return b, errors.New("--cooldown-seconds must not be negative")
		}
		b.Cooldown = time.Duration(*l.CooldownSeconds) * time.Second
	}
	if l.Timeout != nil {
		b.Timeout = *l.Timeout
	}
	if l.Fallback != nil {
		b.Fallback = strings.TrimSpace(*l.Fallback)
	}
	if l.OnSkip != nil {
		if *l.OnSkip != "allow" && *l.OnSkip != "block" {
			return b, fmt.Errorf("--on-skip must be allow or block, got %q", *l.OnSkip)
		}
		b.OnSkip = *l.OnSkip
	}
	return b, nil
}

// ParseHookTimeout reads --hook-timeout's value: a number of seconds as
// Claude Code's settings.json writes a hook's timeout (600, 1.5), or a Go
// duration (10m, 1.5s). It must be more than zero.
func ParseHookTimeout(s string) (time.Duration, error) {
	d, err := time.ParseDuration(s)
	if seconds(s) {
		var f float64
		if f, err = strconv.ParseFloat(s, 64); err == nil {
			if f > float64(math.MaxInt64)/float64(time.Second) {
				return 0, fmt.Errorf("--hook-timeout %s: too long", s)
			}
			d = time.Duration(f * float64(time.Second))
		}
	}
	if err != nil {
		return 0, fmt.Errorf("--hook-timeout %q: want seconds (600, 1.5) or a duration (10m, 1.5s)", s)
	}
	if d <= 0 {
		return 0, fmt.Errorf("--hook-timeout %s: must be more than zero", s)
	}
	return d, nil
}

// seconds reports whether s is a plain decimal number: digits, and at
// most one point among them.
func seconds(s string) bool {
	digits, points := 0, 0
	for _, c := range s {
		switch {
		case c >= '0' && c <= '9':
			digits++
		case c == '.':
			points++
		default:
			return false
		}
	}
	return digits > 0 && points <= 1
}

// salvageHookTimeout finds a well-formed --hook-timeout in a guard run
// command line (args, from the program name on) whose flags did not parse;
// 0 if there is none.
func salvageHookTimeout(args []string) time.Duration {
	for i, a := range args {
		if a == "--" {
			break
		}
		v, ok := "", false
		switch {
		case (a == "--hook-timeout" || a == "-hook-timeout") && i+1 < len(args):
			v, ok = args[i+1], true
		case strings.HasPrefix(a, "--hook-timeout="), strings.HasPrefix(a, "-hook-timeout="):
			_, v, ok = strings.Cut(a, "=")
		}
		if d, err := ParseHookTimeout(v); ok && err == nil {
			return d
		}
	}
	return 0
}

// ShellPath returns the program that runs a -c string for --shell name:
// the system's shell (SystemShell: /bin/sh, or Git Bash's sh on Windows)
// for "", sh or /bin/sh; else name, found on PATH if it has no slash, then
// in shellDirs (/bin and /usr/bin, which a hook's PATH may leave out), and
// the system's shell if it is not there: guard then runs the hook with sh
// rather than not at all, and FindShell tells the caller, who warns.
func ShellPath(name string) string {
	p, _ := FindShell(name)
	return p
}

// FindShell is ShellPath, and reports false when it fell back to the
// system's shell for a shell it could not find.
func FindShell(name string) (string, bool) {
	if name == "" || name == "sh" || name == "/bin/sh" {
		return SystemShell(), true
	}
	if strings.ContainsRune(name, '/') {
		return name, true
	}
	if p, err := exec.LookPath(name); err == nil {
		return p, true
	}
	for _, dir := range shellDirs() {
		if p := filepath.Join(dir, exeName(name)); isExecutable(p) {
			return p, true
		}
	}
	return SystemShell(), false
}

// shellPlaces says where FindShell looks for a shell that is not a path:
// "on PATH, in /bin or in /usr/bin".
func shellPlaces() string {
	s, sep := "on PATH", ", in "
	for _, dir := range shellDirs() {
		s += sep + dir
		sep = " or in "
	}
	return s
}

// Salvage finds the command in a guard run command line (args, from the
// program name on) whose flags did not parse, so that guard can still run
// it; nil if there is none.
func Salvage(args []string) []string {
	sh := ""
	for i, a := range args {
		switch {
		case a == "--" && i+1 < len(args):
			return args[i+1:]
		case (a == "--shell" || a == "-shell") && i+1 < len(args):
			sh = args[i+1]
		case strings.HasPrefix(a, "--shell="):
			sh = strings.TrimPrefix(a, "--shell=")
		case (a == "-c" || a == "--command" || a == "-command") && i+1 < len(args):
			return []string{ShellPath(sh), "-c", args[i+1]}
		}
	}
	return nil
}
