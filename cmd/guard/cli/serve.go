package cli

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/urfave/cli/v2"

	"guard/internal/view/dashboard"
)

// defaultListen is where guard serve listens unless --listen says: the
// loopback interface only.
const defaultListen = "127.0.0.1:8642"

func (e *env) serveCommand() *cli.Command {
	return &cli.Command{
		Name:  "serve",
		Usage: "serve the dashboard live on a local web page",
		Description: `Serves the page of 'guard report --format html' and keeps it up to date:
the page fetches what changed as the state changes (a circuit that opens,
a run, a budget spent), without a reload, and each look at the state reads
only what was appended to the event log since the last. It also serves
/metrics (the Prometheus report of 'guard report --format prometheus') and
/api/status (the document of 'guard status --json').

It is read-only: it changes no state and answers only GET and HEAD. It
listens on 127.0.0.1:8642 unless --listen says otherwise (port 0 picks a
free one); the URL it serves is printed on stdout. It answers only to
localhost, 127.0.0.1 and [::1] there, so that no web page can reach it
through a host name of its own. Any other address must be given with
--listen, and guard warns that anyone who can reach it sees every command
line guard runs and its errors: there is no authentication. Database
passwords are masked, as everywhere. It stops cleanly on SIGINT (Ctrl-C)
and SIGTERM, and works for a state file and for PostgreSQL.

The dashboard is guard-web, which guard hands the command over to (see
docs/dashboard.md).

Examples:
   guard serve                                 then open http://127.0.0.1:8642/
   guard serve --listen 127.0.0.1:0            any free port (the URL is printed)
   guard serve --state postgres://guard@db/guard
   ssh -L 8642:127.0.0.1:8642 host guard serve   see another host's dashboard
   curl -s http://127.0.0.1:8642/api/status | jq '.[] | select(.state != "closed")'`,
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "listen", Value: defaultListen, Usage: "serve at `HOST:PORT`; an address other than loopback is seen by anyone who can reach it"},
			&cli.DurationFlag{Name: "interval", Value: time.Second, Usage: "how often to look at the state for changes"},
		}, stateFlags()...),
		Action: e.serve,
	}
}

func (e *env) serve(c *cli.Context) error {
	if c.NArg() > 0 {
		return usagef("serve takes no arguments")
	}
	interval := c.Duration("interval")
	if interval < 100*time.Millisecond {
		return usagef("--interval must be at least 100ms, got %s", interval)
	}
	if web == nil {
		return e.handoffWeb("guard serve")
	}
	src, err := e.webSource(c)
	if err != nil {
		return err
	}
	ctx := context.Background()
	if e.Exits {
		var stop context.CancelFunc
		ctx, stop = signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
		defer stop()
	}
	// Each warning once, not at every look; run times followed, not read
	// whole, for /api/status and /metrics.
	e.Warned = map[string]bool{}
	e.watching = &watchEvents{}
	return web.Serve(ctx, src, dashboard.ServeOptions{
		Listen:   c.String("listen"),
		Interval: interval,
		Now:      e.Now,
		Ready: func(url string) {
			fmt.Fprintf(e.Stdout, "guard: serving the dashboard of %s at %s (Ctrl-C to stop)\n", src.Hooks.Where, url)
		},
		Warn: e.Warnf,
	})
}
