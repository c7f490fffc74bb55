package cli

import (
	"bytes"
	"guard/cmd/guard/guardrun"
	"regexp"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/urfave/cli/v2"
)

func TestReorderFlags(t *testing.T) {
	app := (&env{}).app()
	tests := []struct{ in, want string }{
		{"guard trip KEY --for 10m --reason why", "guard trip --for 10m --reason why KEY"},
		{"guard trip KEY --for=10m", "guard trip --for=10m KEY"},
		{"guard status a --json b", "guard status --json a b"},
		{"guard reset --all", "guard reset --all"},
		{"guard reset -- --weird-key", "guard reset -- --weird-key"},
		{"guard config check f.yaml --key k", "guard config check --key k f.yaml"},
		// run is left alone: what follows the command is the child's.
		{"guard run -- ls --color", "guard run -- ls --color"},
		{"guard run ls --color", "guard run ls --color"},
		{"guard", "guard"},
		{"guard cooldown run nginx restart --timeout 5s -- docker restart -t 3 nginx", "guard cooldown run --timeout 5s nginx restart -- docker restart -t 3 nginx"},
		{"guard cooldown run nginx restart docker restart -t 3 nginx", "guard cooldown run nginx restart docker restart -t 3 nginx"},
		{"guard cooldown due daily --every 24h --mark", "guard cooldown due --every 24h --mark daily"},
		{"guard trip KEY --reason", "guard trip KEY --reason"}, // its value is missing
	}
	for _, tc := range tests {
		got := strings.Join(reorderFlags(app, strings.Fields(tc.in)), " ")
		if got != tc.want {
			t.Errorf("reorderFlags(%s) = %s; want %s", tc.in, got, tc.want)
		}
	}
}

func TestHoistGlobalFlags(t *testing.T) {
	tests := []struct{ in, want string }{
		{"guard --state X run -- echo ran", "guard run --state X -- echo ran"},
		{"guard --config=C --state X run -c true", "guard run --config=C --state X -c true"},
		{"guard -state X status --json", "guard status -state X --json"},
		{"guard --state X cooldown check web restart", "guard cooldown check --state X web restart"},
		{"guard --config C config check", "guard config check --config C"},
		{"guard run --state X -- ls", "guard run --state X -- ls"},
		{"guard --state X", "guard --state X"},
		{"guard --version", "guard --version"},
	}
	for _, tc := range tests {
		got := strings.Join(hoistGlobalFlags(strings.Fields(tc.in)), " ")
		if got != tc.want {
			t.Errorf("hoistGlobalFlags(%s) = %s; want %s", tc.in, got, tc.want)
		}
	}
}

func TestExitStatusesOfGuardItself(t *testing.T) {
	tests := []struct {
		args []string
		code int
		err  string
	}{
		{[]string{"guard", "nosuch"}, guardrun.ExitUsage, `guard: error: unknown command "nosuch"`},
		{[]string{"guard", "runn", "-c", "true"}, guardrun.ExitUsage, `unknown command "runn"`},
		{[]string{"guard", "config", "show"}, guardrun.ExitUsage, `guard: error: unknown command "config show"`},
		{[]string{"guard", "state", "bogus"}, guardrun.ExitUsage, `unknown command "state bogus"`},
		{[]string{"guard", "cooldown", "chek", "x"}, guardrun.ExitUsage, `unknown command "cooldown chek"`},
		{[]string{"guard", "config"}, guardrun.ExitUsage, "guard config needs a command"},
		{[]string{"guard", "state"}, guardrun.ExitUsage, "guard state needs a command"},
		{[]string{"guard", "cooldown"}, guardrun.ExitUsage, "USAGE:"},
		{[]string{"guard"}, guardrun.ExitUsage, "guard needs a command"},
		{[]string{"guard", "config", "--help"}, 0, ""},
		{[]string{"guard", "cooldown", "-h"}, 0, ""},
		{[]string{"guard", "report", "lint"}, guardrun.ExitUsage, "report takes no arguments"},
		{[]string{"guard", "status", "--nope"}, guardrun.ExitUsage, "flag provided but not defined: -nope"},
		{[]string{"guard", "report", "--format", "xml"}, guardrun.ExitUsage, "--format must be text, json, markdown, prometheus or html"},
		{[]string{"guard", "cooldown", "hook", "--recrod"}, 0, "cooldown hook: flag provided but not defined: -recrod; allowing"},
		{[]string{"guard", "run"}, guardrun.ExitUsage, "nothing to run"},
		{[]string{"guard", "run", "--nope"}, guardrun.ExitUsage, "flag provided but not defined"},
		{[]string{"guard", "--version"}, 0, ""},
		// h13 m30: guard help [COMMAND] is the help, as guard cooldown help is.
		{[]string{"guard", "help"}, 0, ""},
		{[]string{"guard", "help", "run"}, 0, ""},
		{[]string{"guard", "help", "cooldown", "check"}, 0, ""},
		{[]string{"guard", "help", "help"}, 0, ""},
		{[]string{"guard", "help", "nosuch"}, guardrun.ExitUsage, `unknown command "nosuch"`},
		{[]string{"guard", "--state", "X", "help", "status"}, 0, ""},
		{[]string{"guard", "help", "--config=C", "cooldown"}, 0, ""},
	}
	for _, tc := range tests {
		var stdout, stderr bytes.Buffer
		e := &env{Env: guardrun.Env{Stdout: &stdout, Stderr: &stderr, Stdin: strings.NewReader(""),
			Getenv: func(string) string { return "" }, Environ: func() []string { return nil }, Now: time.Now},
		}
		if code := e.main(tc.args); code != tc.code {
			t.Errorf("%q: exit %d; want %d (stderr %q)", tc.args, code, tc.code, stderr.String())
		}
		if !strings.Contains(stderr.String(), tc.err) {
			t.Errorf("%q: stderr %q; want it to contain %q", tc.args, stderr.String(), tc.err)
		}
	}
}

// TestEveryCommandHasAnExample keeps --help useful: every command and
// subcommand shows at least one example.
func TestEveryCommandHasAnExample(t *testing.T) {
	var walk func(prefix string, cmds []*cli.Command)
	walk = func(prefix string, cmds []*cli.Command) {
		for _, c := range cmds {
			name := prefix + " " + c.Name
			if !strings.Contains(c.Description, "Example") {
				t.Errorf("%s --help has no example", name)
			}
			walk(name, c.Subcommands)
		}
	}
	app := (&env{}).app()
	if !strings.Contains(app.Description, "Examples") {
		t.Error("guard --help has no examples")
	}
	walk("guard", app.Commands)
}

func TestVersionFromBuildInfo(t *testing.T) {
	info := &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{
		{Key: "vcs.revision", Value: "65d6d82c1a2b3c4d5e6f"}, {Key: "vcs.time", Value: "2026-11-23T05:00:00Z"}, {Key: "vcs.modified", Value: "true"},
	}}
	for _, c := range []struct {
		stamped string
		info    *debug.BuildInfo
		want    string
	}{
		{"", info, "(devel), revision 65d6d82c1a2b+dirty (2026-11-23T05:00:00Z), go1.26.8"},
		{"", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v1.4.0"}}, "v1.4.0, go1.26.8"},
		{"", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v0.0.0-20261123050000-65d6d82c1a2b"}, Settings: info.Settings[:1]}, "v0.0.0-20261123050000-65d6d82c1a2b, go1.26.8"},
		{"v2.0.0", info, "v2.0.0"},
	} {
		version = c.stamped
		if got := versionString(c.info, true); got != c.want {
			t.Errorf("stamped %q: %q; want %q", c.stamped, got, c.want)
		}
	}
	version = ""
}

// TestRunUsageErrorsExit64 covers hostile-user-2 m7: a guard run line that
// is a usage error, with no command to run unguarded, exits 64 and runs
// nothing, whichever parser reads it: the fast one when it takes the line,
// and urfave/cli always.
func TestRunUsageErrorsExit64(t *testing.T) {
	for _, line := range []string{
		"",
		"--",
		"-c",
		"--command",
		"--bogus",
		"--name",
		"--name k",
		"--name k --",
		"--timeout 5s",
		"--timeout",
		"-c true extra",
		"-c true -- extra",
		"--command=true extra",
		"--failure-threshold 2.5",
		"--state s.json --config",
	} {
		args := strings.Fields(line)
		run := func(parse func(e *env) int) (int, string) {
			var stdout, stderr bytes.Buffer
			e := testEnv(t.TempDir(), &stdout, &stderr)
			code := parse(e)
			if stdout.Len() > 0 {
				t.Errorf("guard run %s: printed %q", line, stdout.String())
			}
			return code, stderr.String()
		}
		code, stderr := run(func(e *env) int { return e.main(append([]string{"guard", "run"}, args...)) })
		if code != guardrun.ExitUsage || !strings.Contains(stderr, "guard: error:") {
			t.Errorf("guard run %s: exit %d, stderr %q; want %d and an error", line, code, stderr, guardrun.ExitUsage)
		}
		code, stderr = run(func(e *env) int {
			full := append([]string{"guard", "run"}, args...)
			e.Args = full
			return e.ExitStatus(e.app().Run(full))
		})
		if code != guardrun.ExitUsage {
			t.Errorf("guard run %s through urfave/cli: exit %d, stderr %q; want %d", line, code, stderr, guardrun.ExitUsage)
		}
	}
}

// TestHelpHasNoPlaceholderVersion covers hostile-user-2 m30.
func TestHelpHasNoPlaceholderVersion(t *testing.T) {
	var stdout, stderr bytes.Buffer
	e := testEnv(t.TempDir(), &stdout, &stderr)
	if code := e.main([]string{"guard", "--help"}); code != 0 {
		t.Fatalf("guard --help: exit %d", code)
	}
	if out := stdout.String(); strings.Contains(out, "VERSION") || !strings.Contains(out, "COMMANDS:") {
		t.Errorf("guard --help:\n%s", out)
	}
}

// TestHelpListsGlobalOptions covers newcomer-and-mission #8: guard --help
// lists the global options docs/commands.md describes (given before the
// command or after it) and the help command, which guard answers.
func TestHelpListsGlobalOptions(t *testing.T) {
	var stdout, stderr bytes.Buffer
	e := &env{Env: guardrun.Env{Stdout: &stdout, Stderr: &stderr, Stdin: strings.NewReader(""),
		Getenv: func(string) string { return "" }, Environ: func() []string { return nil }, Now: time.Now},
	}
	if code := e.main([]string{"guard", "--help"}); code != 0 {
		t.Fatalf("guard --help: exit %d: %s", code, stderr.String())
	}
	help := stdout.String()
	_, global, _ := strings.Cut(help, "GLOBAL OPTIONS:")
	for _, flag := range []string{"--config FILE", "--state FILE", "--cooldown-state FILE"} {
		if !strings.Contains(global, flag) {
			t.Errorf("guard --help lists no %s under GLOBAL OPTIONS:\n%s", flag, help)
		}
	}
	_, commands, _ := strings.Cut(help, "COMMANDS:")
	if !regexp.MustCompile(`(?m)^   help +show the help`).MatchString(commands) {
		t.Errorf("guard --help lists no help command:\n%s", help)
	}
}

// TestStateInitRefusesGrantToPublic covers hostile-user-3 m3: --grant
// public would give every role of the server guard's tables; it is a
// usage error, before anything is asked of the database.
func TestStateInitRefusesGrantToPublic(t *testing.T) {
	for _, role := range []string{"public", "PUBLIC", "Public"} {
		var stdout, stderr bytes.Buffer
		e := &env{Env: guardrun.Env{Stdout: &stdout, Stderr: &stderr, Stdin: strings.NewReader(""),
			Getenv: func(string) string { return "" }, Environ: func() []string { return nil }, Now: time.Now},
		}
		code := e.main([]string{"guard", "state", "init", "--grant", role, "--state", "postgres://admin@db.invalid/guard"})
		if code != guardrun.ExitUsage || !strings.Contains(stderr.String(), "refusing --grant "+role+": PUBLIC is every role") {
			t.Errorf("state init --grant %s: exit %d, stderr %q; want a usage error that says why", role, code, stderr.String())
		}
	}
}
