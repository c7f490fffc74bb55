// Command guard runs hooks behind their circuit breakers: guard run, whose
// memory survives across processes. Every other command (status, install,
// cooldown, ...) is guard-cli's, which guard hands the command line over to
// (exec), installed beside it: so that no hook call pays for the start-up
// of the command-line parser, the YAML library and the shell parser those
// commands use.
//
// Run 'guard --help' for the commands, and see README.md. guard run itself
// is package guardrun.
package main

import (
	"os"

	"guard/cmd/guard/guardrun"
)

func main() { os.Exit(guardrun.Main()) }
