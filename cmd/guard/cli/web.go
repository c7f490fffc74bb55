package cli

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/urfave/cli/v2"

	"guard/cmd/guard/guardrun"
	"guard/internal/store"
	"guard/internal/view"
	"guard/internal/view/dashboard"
)

// A Web is the dashboard: the page of 'guard report --format html' and
// the server of 'guard serve'. guard-web links it in (SetWeb); guard and
// guard-pg do not, since net/http and html/template would cost every
// guard call their start-up: they hand those two commands over to
// guard-web.
type Web interface {
	WritePage(w io.Writer, src *dashboard.Source, now time.Time) error
	Serve(ctx context.Context, src *dashboard.Source, o dashboard.ServeOptions) error
}

var web Web

// SetWeb links the dashboard in; guard-web's main calls it before Main.
func SetWeb(w Web) { web = w }

// handedOverWeb marks the environment of the guard-web another guard
// handed a dashboard command over to.
const handedOverWeb = "GUARD_HANDED_OVER_WEB"

// handoffWeb runs this very command line again as guard-web, found beside
// this guard, else on PATH, and used only if it is guard-web of this very
// build (see findOurs), replacing this process: a stranger of that name (a
// script that exits 2, an older build) is never run. It returns only if it
// cannot, with an error that says why and how to install guard-web.
func (e *env) handoffWeb(what string) error {
	if e.Getenv(handedOverWeb) != "" {
		return fmt.Errorf("%s: the guard-web that guard handed it to has no dashboard either (a copy of guard?); build it with go install ./cmd/guard-web", what)
	}
	path, why := e.FindCompanion("guard-web")
	if why != "" && path == "" {
		return fmt.Errorf("%s: guard-web not used: %s; install it again with make install (or go install ./cmd/guard-web)", what, why)
	}
	if path == "" || !e.Exits {
		dir := "guard's directory"
		if exe, err := os.Executable(); err == nil {
			dir = filepath.Dir(exe)
		}
		return fmt.Errorf("%s needs guard-web, the dashboard, which is neither beside this guard (in %s) nor on PATH: install it with make install (or go install ./cmd/guard-web); it is kept apart so that no guard call pays for a web server", what, dir)
	}
	xerr := e.Exec(path, append([]string{path}, e.Args[1:]...), append(e.Environ(), handedOverWeb+"=1"))
	return fmt.Errorf("%s: guard-web could not be started: %v", what, xerr)
}

// webSource opens the state a dashboard command's flags name.
func (e *env) webSource(c *cli.Context) (*dashboard.Source, error) {
	cfg, err := e.loadConfig(c)
	if err != nil {
		return nil, err
	}
	hooks, err := e.OpenHooks(cfg)
	if err != nil {
		return nil, err
	}
	events, err := store.AllEvents(cfg)
	if err = e.Handoff(err); err != nil {
		return nil, err
	}
	alive := guardrun.Liveness(guardrun.Host(e.Getenv)).Alive
	src := &dashboard.Source{Config: cfg, Hooks: hooks, Events: events, Alive: alive}
	src.Cooldown = func() (*store.Cooldown, error) {
		if !store.CooldownExists(cfg) {
			return nil, nil
		}
		return store.OpenCooldown(cfg, "", e.BackendOptions())
	}
	if store.Kind(cfg.StateFile) == store.KindFile && store.Kind(cfg.Cooldown.StateFile) == store.KindFile {
		src.Fingerprint = func() string { return fingerprint(cfg.StateFile, cfg.Cooldown.StateFile) }
	}
	src.Status = func(w io.Writer) error {
		v, err := hooks.Circuits.Snapshot()
		if err != nil {
			return err
		}
		runs, alive := e.inFlight(hooks)
		sts, err := view.Statuses(v, nil, runs, e.Now(), alive)
		if err != nil {
			return err
		}
		e.addTimings(cfg, sts)
		return view.WriteJSON(w, statusDocument(v, runs, sts))
	}
	src.Metrics = func(w io.Writer) error {
		v, err := hooks.Circuits.Snapshot()
		if err != nil {
			return err
		}
		now := e.Now()
		runs, alive := e.inFlight(hooks)
		sts, err := view.Statuses(v, nil, runs, now, alive)
		if err != nil {
			return err
		}
		e.addTimings(cfg, sts)
		return view.WritePrometheus(w, e.buildReport(cfg, hooks, v, sts, now), sts)
	}
	return src, nil
}

// fingerprint names what the files at paths are now: a file replaced or
// written gets another.
func fingerprint(paths ...string) string {
	var s string
	for _, p := range paths {
		fi, err := os.Stat(p)
		if err != nil {
			s += "-;"
			continue
		}
		s += fmt.Sprintf("%d %d %d;", inode(fi), fi.Size(), fi.ModTime().UnixNano())
	}
	return s
}

// htmlReport writes the dashboard page: guard report --format html.
func (e *env) htmlReport(c *cli.Context) error {
	if web == nil {
		return e.handoffWeb("guard report --format html")
	}
	src, err := e.webSource(c)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := web.WritePage(&buf, src, e.Now()); err != nil {
		return err
	}
	out := c.String("output")
	if out == "" {
		out = stdio
	}
	if err := e.writeOutput(out, buf.Bytes(), 0o600, "guard.html"); err != nil { // as report's (hostile-user-3 m6)
		return fmt.Errorf("cannot write report: %w", err)
	}
	return nil
}
