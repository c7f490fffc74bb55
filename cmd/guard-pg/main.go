// Command guard-pg is guard with its PostgreSQL driver linked in: the
// same commands, for states kept in a database (a postgres:// state). guard
// itself hands such states over to guard-pg, installed beside it, so that
// the driver never weighs on a call whose state is a file.
package main

import (
	"os"

	"guard/cmd/guard/cli"
	_ "guard/internal/store/postgres" // registers the PostgreSQL driver
)

func main() { os.Exit(cli.Main()) }
