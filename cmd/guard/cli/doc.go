// Package cli is guard's command line (urfave/cli/v2): every command but
// the guard run that the lean guard binary runs itself, with flag parsing
// and printing, over the packages that do the work (internal/circuit,
// internal/cooldown, internal/claude, internal/view, and the states
// internal/store opens). cmd/guard-cli is its main, and cmd/guard-pg and
// cmd/guard-web, which add the PostgreSQL driver and the dashboard; the
// guard binary (cmd/guard, package guardrun) hands every command line it
// does not run itself over to guard-cli. guard run is package guardrun's,
// which this package's env embeds: its errors, warnings and exit statuses
// are the one map of guardrun's ExitStatus.
package cli
