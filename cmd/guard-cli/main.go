// Command guard-cli is guard's commands: status, install, cooldown, config,
// report and the rest, and guard run too, with the command-line parser
// (urfave/cli), the full YAML reader and the shell parser. guard, which
// runs hooks, hands every command line it does not run itself over to it
// (installed beside it), so that no hook call pays for their start-up;
// guard-pg and guard-web are guard-cli with the PostgreSQL driver and the
// dashboard linked in.
package main

import (
	"os"

	"guard/cmd/guard/cli"
)

func main() { os.Exit(cli.Main()) }
