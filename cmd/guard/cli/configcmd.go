package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/urfave/cli/v2"

	"guard/config"
	"guard/internal/circuit"
	"guard/internal/store"
	"guard/internal/view"
)

func (e *env) configCommand() *cli.Command {
	return &cli.Command{
		Name:  "config",
		Usage: "check guardrails.yaml",
		Description: `guardrails.example.yaml lists every setting with its default.

Example:
   guard config check ~/.claude/guardrails.yaml`,
		Subcommands: []*cli.Command{{
			Name:      "check",
			Usage:     "print the effective configuration, or what is wrong with it",
			ArgsUsage: "[FILE]",
			Description: `Loads FILE (default: --config, $GUARD_CONFIG, then ~/.claude/guardrails.yaml;
- reads standard input) with the GUARDRAILS_* and GUARD_* environment variables applied, and prints
the effective configuration with every setting spelled out. An invalid file
prints the problem with its file and line, and exits 1.

With --key, prints the circuit breaker settings that apply to that key after
the hooks rules.

Examples:
   guard config check
   guard config check ./guardrails.yaml
   printf 'lock_timeout: 1s\n' | guard config check -
   guard config check --key "python3 lint.py"`,
			Flags: append([]cli.Flag{
				&cli.StringFlag{Name: "key", Usage: "show the settings for `KEY`"},
			}, stateFlags()...),
			Action: e.configCheck,
		}},
	}
}

func (e *env) configCheck(c *cli.Context) error {
	if c.NArg() > 1 {
		return usagef("config check takes at most one FILE")
	}
	if c.NArg() == 1 {
		if err := c.Set("config", c.Args().First()); err != nil {
			return err
		}
	}
	cfg, err := e.LoadConfigReading(c.String("config"), c.String("state"), e.Stdin)
	if err == nil && c.String("cooldown-state") != "" {
		cfg.Cooldown.StateFile = c.String("cooldown-state")
	}
	if err != nil {
		return err
	}
	for _, where := range []string{cfg.StateFile, cfg.Cooldown.StateFile} {
		if config.IsDatabaseURL(where) && !store.HasBackend(store.KindPostgres) {
			// guard-pg can say whether the database can be reached.
			e.Handoff(&store.NeedsDriverError{URL: where})
			break
		}
	}
	if key := circuit.ValidKey(c.String("key")); key != "" {
		b := cfg.For(key)
		out, err := b.YAML()
		if err != nil {
			return err
		}
		fmt.Fprintf(e.Stdout, "# settings for %q, from %s (excluded: %v)\n", key, view.Printable(cfg.Source), b.Excluded(key))
		for _, line := range b.RulesInForce() {
			fmt.Fprintf(e.Stdout, "# %s\n", view.Printable(line))
		}
		io.WriteString(e.Stdout, printableLines(string(out)))
		return nil
	}
	shown := *cfg // with no password in sight
	shown.StateFile, shown.Cooldown.StateFile = config.Redact(cfg.StateFile), config.Redact(cfg.Cooldown.StateFile)
	out, err := shown.YAML()
	if err != nil {
		return err
	}
	fmt.Fprintf(e.Stdout, "# effective configuration, from %s\n", view.Printable(cfg.Source))
	fmt.Fprintf(e.Stdout, "# hook state: %s\n", e.describe(cfg, cfg.StateFile))
	fmt.Fprintf(e.Stdout, "# cooldown state: %s\n%s", e.describe(cfg, cfg.Cooldown.StateFile), printableLines(string(out)))
	return nil
}

// describe says which backend holds the state at where and whether it can
// be reached: "PostgreSQL at postgres://...: reachable" or "JSON file
// /path: ...".
func (e *env) describe(cfg *config.Config, where string) string {
	switch {
	case where == "":
		return "none: " + config.ErrNoHome.Error()
	case store.Kind(where) == store.KindPostgres && !store.HasBackend(store.KindPostgres):
		return fmt.Sprintf("PostgreSQL at %s: this guard has no PostgreSQL driver; guard-pg, installed beside it, runs such states", config.Redact(where))
	case store.Kind(where) == store.KindPostgres:
		if err := store.Ping(cfg, where); errors.Is(err, store.ErrDenied) {
			return fmt.Sprintf("PostgreSQL at %s: reachable, but %s", config.Redact(where), view.ErrorLine(err))
		} else if err != nil {
			return fmt.Sprintf("PostgreSQL at %s: not reachable: %s", config.Redact(where), view.ErrorLine(err))
		}
		return fmt.Sprintf("PostgreSQL at %s: reachable", config.Redact(where))
	}
	if _, err := os.Stat(where); err != nil {
		return fmt.Sprintf("JSON file %s: not there yet (the first run creates it)", view.Printable(config.Redact(where)))
	}
	return fmt.Sprintf("JSON file %s: present", view.Printable(config.Redact(where)))
}

// printableLines escapes, line by line, what a terminal would act on in
// the configuration as YAML prints it: YAML leaves format characters such
// as U+202E in a pattern as they are.
func printableLines(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = view.Printable(l)
	}
	return strings.Join(lines, "\n")
}
