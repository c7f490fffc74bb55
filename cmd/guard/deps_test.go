package main

import (
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// Every hook call pays for the packages guard links: their init code and
// the pages of a bigger binary (BENCHMARKS.md). guard runs hooks (guard
// run) and hands every other command line over to guard-cli, so it links
// no command-line parser, no YAML library and no shell parser (issue 36:
// their package initialisation was a tenth of a closed call); the
// PostgreSQL driver is in guard-pg, the dashboard in guard-web. A new
// package from outside the module needs a reason, with its start-up cost
// measured (bench/run.sh), before it joins a list.
var leanModules = []string{
	"github.com/gofrs/flock",
	"golang.org/x/sys/unix",
}

// cliModules are what guard-cli links beyond guard's.
var cliModules = []string{
	"github.com/rogpeppe/go-internal/diff", // install --dry-run's diff; no init code
	"github.com/urfave/cli/v2",
	"github.com/xrash/smetrics", // urfave/cli's "did you mean"
	"gopkg.in/yaml.v3",          // configs outside the fast parser's plain YAML, config show
	"mvdan.cc/sh/v3/expand",     // cooldown reads commands as bash would ($'...', braces, variables)
	"mvdan.cc/sh/v3/fileutil",
	"mvdan.cc/sh/v3/internal",
	"mvdan.cc/sh/v3/pattern",
	"mvdan.cc/sh/v3/syntax",
}

// badStd are standard packages that guard must not link: each costs every
// call its set-up (crypto/tls's and net/http's inits and tables), and guard
// has no use for them on a hook's path.
var badStd = []string{
	"crypto/tls",
	"crypto/x509",
	"database/sql",
	"encoding/xml",
	"html/template",
	"net/http",
}

// deps lists the packages pkg links, built as the Makefile builds it.
func deps(t *testing.T, pkg string) []string {
	t.Helper()
	goTool := filepath.Join(runtime.GOROOT(), "bin", "go")
	out, err := exec.Command(goTool, "list", "-tags", "urfave_cli_no_docs", "-deps", "-f", "{{if not .Standard}}ext {{end}}{{.ImportPath}}", pkg).Output()
	if err != nil {
		t.Fatalf("go list -deps %s: %v", pkg, err)
	}
	return strings.Split(strings.TrimSpace(string(out)), "\n")
}

func TestGuardLinksNoDriverAndNoNewDependency(t *testing.T) {
	for pkg, allowed := range map[string][]string{
		"guard/cmd/guard":     leanModules,
		"guard/cmd/guard-cli": append(slices.Clone(leanModules), cliModules...),
	} {
		for _, line := range deps(t, pkg) {
			path, external := strings.CutPrefix(line, "ext ")
			switch {
			case strings.HasPrefix(path, "github.com/jackc/pgx"):
				t.Errorf("%s links %s: the PostgreSQL driver belongs in guard-pg, which guard hands database states over to", pkg, path)
			case slices.Contains(badStd, path):
				t.Errorf("%s links %s, which costs every call its start-up", pkg, path)
			case external && path != "guard" && !strings.HasPrefix(path, "guard/") && !slices.Contains(allowed, path):
				if pkg == "guard/cmd/guard" && slices.Contains(cliModules, path) {
					t.Errorf("guard links %s, whose start-up every hook call would pay: keep it in guard-cli, which guard hands what needs it over to", path)
					continue
				}
				t.Errorf("%s links a new package %s: measure its start-up cost (bench/run.sh) and add it to its list with the reason", pkg, path)
			}
		}
	}
}

// TestGuardLinksNoCLI: guard run's package links none of guard-cli's
// command packages (cmd/guard/cli, which links urfave/cli in every file),
// nor the full YAML reader or shell parser, which register themselves
// wherever they are linked.
func TestGuardLinksNoCLI(t *testing.T) {
	for _, line := range deps(t, "guard/cmd/guard") {
		switch path := strings.TrimPrefix(line, "ext "); path {
		case "guard/cmd/guard/cli", "guard/config/yamlv3", "guard/internal/shell/sh", "guard/internal/shell/bash", "guard/internal/cooldown", "guard/internal/claude":
			t.Errorf("guard links %s: it belongs in guard-cli", path)
		}
	}
}

// The dashboard (guard/internal/view/web: net/http, html/template) is in
// guard-web only, which guard and guard-pg hand report --format html and
// serve over to: guard-pg is what PostgreSQL hosts install as guard.
func TestOnlyGuardWebLinksTheDashboard(t *testing.T) {
	for _, pkg := range []string{"guard/cmd/guard", "guard/cmd/guard-cli", "guard/cmd/guard-pg"} {
		for _, line := range deps(t, pkg) {
			if path := strings.TrimPrefix(line, "ext "); path == "guard/internal/view/web" || path == "net/http" || path == "html/template" {
				t.Errorf("%s links %s: the dashboard belongs in guard-web", pkg, path)
			}
		}
	}
	web := deps(t, "guard/cmd/guard-web")
	for _, want := range []string{"ext guard/internal/view/web", "ext github.com/jackc/pgx/v5"} {
		if !slices.Contains(web, want) {
			t.Errorf("guard-web does not link %s: it would not draw the dashboard of every state", strings.TrimPrefix(want, "ext "))
		}
	}
}

func TestGuardPGLinksTheDriver(t *testing.T) {
	if !slices.ContainsFunc(deps(t, "guard/cmd/guard-pg"), func(l string) bool { return strings.Contains(l, "github.com/jackc/pgx/v5") }) {
		t.Error("guard-pg does not link github.com/jackc/pgx/v5: it would not open a postgres:// state")
	}
}

// The PostgreSQL backend reads and writes the hook-state document, whose
// format (the checksum seal included) is internal/store/hookstate's; it has
// no use for the file backend's storage, so it links neither statefile nor
// the file lock nor atomicfile (architecture-2 defect 5).
func TestPostgresBackendLinksNoFileStorage(t *testing.T) {
	for _, line := range deps(t, "guard/internal/store/postgres") {
		switch path := strings.TrimPrefix(line, "ext "); path {
		case "guard/statefile", "guard/internal/atomicfile", "github.com/gofrs/flock":
			t.Errorf("internal/store/postgres links %s, the file backend's storage", path)
		}
	}
}
