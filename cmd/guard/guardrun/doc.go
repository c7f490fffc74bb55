// Package guardrun is guard run, the hook runner: what the guard binary
// does on every hook call, with nothing linked that such a call does not
// use. It reads the command line with its own parser (ParseRunLine), the
// config with config's fast parser and decoder, and a hook's sh -c line
// with package shell's plain reader; it links no command-line parser, no
// YAML library and no shell parser, whose package initialisation would
// cost every call (cmd/guard/deps_test.go holds it to that).
//
// Main hands every other command line over to guard-cli (package cli,
// whose env embeds this package's Env), installed beside guard: a command
// that is not guard run, a guard run line its parser does not take, and a
// guard run whose config needs the full YAML reader (HandOver), before
// anything is read or run. A state in PostgreSQL goes to guard-pg
// (Handoff). Without its companion, guard run still runs its command,
// unguarded, with a warning that says how to install it: guard is never
// the reason a hook breaks.
//
// The package also holds what every command shares, guard-cli's included:
// the process's streams and environment (Env), the one map from errors to
// exit statuses (ExitStatus: never 2 on guard's own account), warnings and
// errors as guard prints them, and opening the config and the state.
package guardrun
