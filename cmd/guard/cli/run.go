package cli

import (
	"github.com/urfave/cli/v2"
)

// fromConfig is the default shown for flags that override the config.
const fromConfig = "from the config"

func (e *env) runCommand() *cli.Command {
	return &cli.Command{
		Name:      "run",
		Usage:     "run a command behind its circuit breaker",
		ArgsUsage: "-- CMD [ARG...]  |  -c 'SHELL STRING'",
		Description: `Runs CMD directly (or /bin/sh -c STRING with -c, Git Bash's sh on Windows; --shell bash -c STRING
runs it with bash, as Claude Code runs hook commands) and records the outcome in
the state file under the command's key. While the circuit is open the command
is skipped: guard prints a one-line notice and exits with open_exit_code (0).
Otherwise guard exits with the command's own status (128+n if signal n killed
it, 127 if it was not found, 126 if it could not be executed, 124 on timeout).
stdin, stdout and stderr pass through unchanged.

A hook that must fail closed (a policy hook, "onFailure": "block") takes
--on-skip block (or on_skip: block in guardrails.yaml): every call guard
does not run (open circuit, probe running, max_concurrent reached,
failure_mode: closed) then exits 2, Claude Code's block, with one line on
stderr that says guard skipped it, why, and how to retry. That exit 2 is
guard's deliberate, configured block; guard never exits 2 otherwise, except
to pass on the command's own 2.

--hook-timeout N tells guard that its caller (Claude Code) kills the command
after N seconds: guard then stops the command's processes a margin before
that (a tenth of N plus 0.4s, at most 5s and at most half of N: SIGTERM, then
SIGKILL after half the margin or kill_grace if shorter), exits 124 and records
a timeout failure, so that a hook that hangs on every call trips and is then
skipped at once. A shorter --timeout or timeout: setting still applies. A
signal that arrives before that is a cancellation, not a failure.

With a fallback (--fallback CMD, or fallback: in guardrails.yaml), a call
guard skips runs CMD instead, with the call's stdin: its stdout and exit
status are the call's (on_skip: block wins over it).

Exit statuses in success_exit_codes ([0]) are successes, those in
ignore_exit_codes ([2], a Claude hook's "block") count as neither, and all
else is a failure; ignore_output and failure_output judge by what the
command printed too, and retries try a failed run again before its failure
counts (docs/rules.md). If guard itself fails (unreadable state, lock timeout,
bad config), it warns and runs the command anyway.

The key is --name if given, else the -c string, else the arguments joined by
spaces with shell quoting where needed. A command that refers to
$CLAUDE_PROJECT_DIR has one circuit per project: "COMMAND @ PROJECT".

Examples:
   guard run -- python3 lint.py
   guard run -c 'npx prettier --check . && npx eslint .'
   guard run --shell bash -c '[[ -f package.json ]] && npx eslint .'
   guard run --name lint --timeout 30s -- make lint
   guard run --hook-timeout 600 --shell bash -c '"$CLAUDE_PROJECT_DIR"/.claude/hooks/check.sh'
   guard run --failure-threshold 5 --cooldown 1m -- ./flaky-check.sh
   guard run --on-skip block -c "$CLAUDE_PROJECT_DIR/.claude/hooks/deny-rm.sh"
   guard run --fallback 'echo "{}"' -c "$CLAUDE_PROJECT_DIR/.claude/hooks/context.sh"`,
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "command", Aliases: []string{"c"}, Usage: "run `STRING` with the shell (/bin/sh -c, or --shell's)"},
			&cli.StringFlag{Name: "shell", Usage: "run -c's STRING with `SHELL` (a name looked up on PATH, or a path) instead of /bin/sh; guard install writes --shell bash, as Claude Code runs a hook's command with bash"},
			&cli.StringFlag{Name: "name", Usage: "keep state under `KEY` instead of the command line"},
			&cli.DurationFlag{Name: "timeout", Usage: "stop the command after `DURATION`: SIGTERM, then SIGKILL after kill_grace; exit 124", DefaultText: fromConfig},
			&cli.GenericFlag{Name: "hook-timeout", Value: &hookTimeoutValue{}, Usage: "the caller's own timeout for the command, in `SECONDS` (600, 1.5) or a duration (10m): guard stops the command a margin before it and records a timeout failure, so that a hook that hangs trips (guard install writes each hook's timeout here)", DefaultText: "none"},
			&cli.IntFlag{Name: "failure-threshold", Usage: "open the circuit after `N` failures", DefaultText: fromConfig},
			&cli.IntFlag{Name: "success-threshold", Usage: "close it after `N` successful probes", DefaultText: fromConfig},
			&cli.DurationFlag{Name: "cooldown", Usage: "keep it open for `DURATION` before probing", DefaultText: fromConfig},
			&cli.IntFlag{Name: "cooldown-seconds", Usage: "the same, in `SECONDS`, as the Python wrapper spells it", DefaultText: fromConfig},
			&cli.StringFlag{Name: "on-skip", Usage: "do `ACTION` with a call guard skips: allow exits open_exit_code, block exits 2 (a hook that must fail closed)", DefaultText: fromConfig},
			&cli.StringFlag{Name: "fallback", Usage: "run `SHELL STRING` in place of a call guard skips, with the call's stdin: its stdout and exit status are the call's (not with --on-skip block, whose block wins)", DefaultText: fromConfig},
			// Written by guard install into hooks it moved off the Python
			// wrapper, for guard uninstall to give them back; guard run
			// ignores it.
			&cli.StringFlag{Name: "from-python", Hidden: true},
		}, stateFlags()...),
		Action:       e.run,
		OnUsageError: e.runUsageError,
	}
}

// runUsageError handles a guard run command line that does not parse:
// see guardrun.RunUnparsed.
func (e *env) runUsageError(c *cli.Context, err error, _ bool) error { return e.RunUnparsed(err) }

func (e *env) run(c *cli.Context) error { return e.Run(lineFromContext(c)) }
