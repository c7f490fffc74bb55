// Command guard wraps commands in a circuit breaker whose memory survives
// across processes, and keeps action budgets for services.
//
// Run 'guard --help' for the commands, and see README.md. The command line
// itself is package cli.
package main

import (
	"os"

	"guard/cmd/guard/cli"
)

func main() { os.Exit(cli.Main()) }
