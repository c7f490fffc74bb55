// Command guard-web is guard with its dashboard linked in: the same
// commands, with 'guard report --format html' and 'guard serve', which
// guard and guard-pg hand over to it (installed beside them), so that no
// other guard call pays for a web server's packages. It has the
// PostgreSQL driver too: a dashboard of a shared state is one of its uses.
package main

import (
	"os"

	"guard/cmd/guard/cli"
	_ "guard/internal/store/postgres" // registers the PostgreSQL driver
	"guard/internal/view/web"
)

func main() {
	cli.SetWeb(web.Dashboard{})
	os.Exit(cli.Main())
}
