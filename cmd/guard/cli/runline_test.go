package cli

import (
	"fmt"
	"guard/cmd/guard/guardrun"
	"io"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"
)

// urfaveRunLine parses a guard run line the slow way, as urfave/cli does
// when the fast parser gives up.
func urfaveRunLine(t *testing.T, args []string) (guardrun.RunLine, bool) {
	t.Helper()
	e := &env{Env: guardrun.Env{Stdout: io.Discard, Stderr: io.Discard}}
	app := e.app()
	var got guardrun.RunLine
	parsed := false
	for _, c := range app.Commands {
		if c.Name == "run" {
			c.Action = func(c *cli.Context) error {
				got, parsed = lineFromContext(c), true
				return nil
			}
			c.OnUsageError = func(*cli.Context, error, bool) error { return nil }
		}
	}
	_ = app.Run(append([]string{"guard", "run"}, args...))
	return got, parsed
}

// lineString describes a parsed guard run line, for a failure message.
func lineString(l guardrun.RunLine) string {
	s := fmt.Sprintf("command=%q/%v args=%q name=%q shell=%q config=%q state=%q", l.Command, l.HasCommand, l.Args, l.Name, l.Shell, l.Config, l.State)
	for name, p := range map[string]any{"timeout": l.Timeout, "cooldown": l.Cooldown, "failure": l.FailureThreshold, "success": l.SuccessThreshold, "seconds": l.CooldownSeconds, "on-skip": l.OnSkip, "fallback": l.Fallback, "hook-timeout": l.HookTimeout} {
		if v := reflect.ValueOf(p); !v.IsNil() {
			s += fmt.Sprintf(" %s=%v", name, v.Elem())
		}
	}
	return s
}

// TestParseRunLineAgreesWithUrfave holds guard run's fast parser to what
// urfave/cli makes of the same line: where the fast one takes a line, it
// must read it the same way.
func TestParseRunLineAgreesWithUrfave(t *testing.T) {
	lines := []string{
		"-- true",
		"-- ls -l --color",
		"true",
		"ls -l",
		"-c echo",
		"-c=echo",
		"--command echo",
		"--command=echo",
		"-command echo",
		"-c", // missing value
		"-c echo -- true",
		"--name lint -- make lint",
		"--name=lint -- make lint",
		"-name lint make lint",
		"--name -- true",
		"--timeout 30s -- sleep 1",
		"--timeout=1m30s -- sleep 1",
		"--timeout 30 -- sleep 1",
		"--timeout -1s -- sleep 1",
		"--cooldown 5m --failure-threshold 5 -- x",
		"--failure-threshold 0x10 -- x",
		"--failure-threshold 010 -- x",
		"--failure-threshold=-3 -- x",
		"--failure-threshold five -- x",
		"--success-threshold 2 --cooldown-seconds 30 -- x",
		"--cooldown 1m --cooldown-seconds 30 -- x",
		"--config /etc/g.yaml --state /tmp/s.json -- x",
		"--on-skip block -- x",
		"--fallback 'echo {}' -- x",
		"--fallback=true -c x",
		"--fallback a --fallback b -- x",
		"--fallback",
		"--shell bash -c x",
		"--shell=/bin/zsh -c x",
		"--shell bash --on-skip block -c x",
		"--on-skip=allow -c x",
		"--on-skip deny -- x",
		"--on-skip -- x",
		"--on-skip block --on-skip allow -- x",
		"--state= -- x",
		"--name a --name b -- x",
		"-c a --command b",
		"--nope -- x",
		"-h",
		"--help",
		"--help -- x",
		"-- x --help",
		"---name x -- y",
		"- x",
		"--",
		"",
		"--name k",
		"-- x --generate-bash-completion",
		"--generate-bash-completion",
		"--timeout 1h2m3s4ms5us6ns -- x",
		"--hook-timeout 600 -- x",
		"--hook-timeout=1.5 -c x",
		"--hook-timeout 10m --timeout 30s -- x",
		"--hook-timeout 0.25s -- x",
		"--hook-timeout 0 -- x",
		"--hook-timeout -3 -- x",
		"--hook-timeout 1e3 -- x",
		"--hook-timeout .5 -- x",
		"--hook-timeout 5. -- x",
		"--hook-timeout 1.2.3 -- x",
		"--hook-timeout ten -- x",
		"--hook-timeout 600 --hook-timeout 30 -- x",
		"-c 'a b' --name=k=v -- ",
		// The command is the child's even when urfave/cli has a meaning
		// for it.
		"help",
		"h -x",
		"--name k help",
	}
	for _, line := range lines {
		args := strings.Fields(line)
		fast, ok := guardrun.ParseRunLine(args)
		if !ok {
			continue
		}
		slow, parsed := urfaveRunLine(t, args)
		if !parsed {
			t.Errorf("%q: the fast parser took a line urfave/cli rejects: %v", line, lineString(fast))
			continue
		}
		if !reflect.DeepEqual(fast, slow) {
			t.Errorf("%q:\nfast   %v\nurfave %v", line, lineString(fast), lineString(slow))
		}
	}
}

// TestParseRunLineRandomLines does the same for lines made at random from
// guard run's flags, values good and bad, and commands.
func TestParseRunLineRandomLines(t *testing.T) {
	words := []string{
		"--", "-c", "--command", "--name", "-name", "--timeout", "--cooldown", "--cooldown-seconds",
		"--failure-threshold", "-success-threshold", "--config", "--state", "--timeout=5s", "-c=x",
		"5s", "-5s", "7", "0x7", "-1", "x", "ls", "-l", "--nope", "-", "--help", "a=b", "",
		"--on-skip", "block", "--on-skip=allow", "--hook-timeout", "600", "1.5", "0",
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 1500 {
		args := make([]string, r.IntN(7))
		for i := range args {
			args[i] = words[r.IntN(len(words))]
		}
		fast, ok := guardrun.ParseRunLine(args)
		if !ok {
			continue
		}
		slow, parsed := urfaveRunLine(t, args)
		if !parsed || !reflect.DeepEqual(fast, slow) {
			t.Errorf("%q:\nfast   %v\nurfave %v (parsed %v)", args, lineString(fast), lineString(slow), parsed)
		}
	}
}
