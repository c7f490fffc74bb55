package guardrun

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"

	"guard/config"
	"guard/internal/store"
)

// The companion the lean guard hands every command but guard run over to.
const cliCompanion = "guard-cli"

// HandOver runs this very command line again as guard-cli, which holds
// guard's commands other than guard run and what they link (urfave/cli,
// the full YAML reader, the shell parser): every command line but a guard
// run this guard reads itself, and a guard run whose command line or
// config it does not (see Main, and Run). guard-cli is found beside this
// guard, else on PATH, and used only if it is guard-cli of this very build
// (see findOurs). It replaces the process (same pid, streams and
// environment; on Windows guard starts it and waits), so it returns only
// if it cannot, with an error that says why and how to install it.
func (e *Env) HandOver() error {
	what := "this command"
	if len(e.Args) > 1 && !strings.HasPrefix(e.Args[1], "-") {
		what = "guard " + e.Args[1]
	}
	if e.Getenv(handedOverCLI) != "" {
		// This is what guard handed over to, and it would hand over again
		// (a guard copied as guard-cli, say): never in a loop.
		return fmt.Errorf("%s needs guard-cli, and the guard-cli this guard handed it to handed it back (a copy of guard?); install both again with make install (or go install ./cmd/...)", what)
	}
	path, why := e.FindCompanion(cliCompanion)
	if path == "" && why != "" {
		return fmt.Errorf("%s needs guard-cli, guard's other commands, and guard-cli was not used: %s; install both again with make install (or go install ./cmd/...)", what, why)
	}
	if path == "" || !e.Exits {
		dir := "guard's directory"
		if exe, err := os.Executable(); err == nil {
			dir = filepath.Dir(exe)
		}
		if goRun(dir) {
			// go run ./cmd/guard from a checkout, as the README's first
			// command: the other commands are go run ./cmd/guard-cli.
			cmd := "go run ./cmd/guard-cli"
			if sub, ok := strings.CutPrefix(what, "guard "); ok {
				cmd += " " + sub
			}
			return fmt.Errorf("%s needs guard-cli, guard's other commands: from a checkout, run them with %s ... (go run ./cmd/guard only runs hooks), or install both with make install", what, cmd)
		}
		return fmt.Errorf("%s needs guard-cli, guard's other commands, which is neither beside this guard (in %s) nor on PATH: install it with make install (or go install ./cmd/...); guard itself only runs hooks (guard run)", what, dir)
	}
	self, err := os.Executable()
	if err != nil {
		self = "1"
	}
	xerr := e.Exec(path, append([]string{path}, e.Args[1:]...), append(e.Environ(), handedOverCLI+"="+self))
	return fmt.Errorf("%s needs guard-cli, and %s could not be started: %v", what, path, xerr)
}

// handedOverCLI marks the environment of a guard-cli the lean guard handed
// a command line over to, with the path of that guard (see HandedOverBy).
const handedOverCLI = "GUARD_HANDED_OVER_CLI"

// HandedOverBy returns the path of the guard that handed this command line
// over to this program (guard-cli), or "": the guard the user ran, which
// install writes into hooks.
func (e *Env) HandedOverBy() string {
	if p := e.Getenv(handedOverCLI); filepath.IsAbs(p) {
		return p
	}
	return ""
}

// Handoff runs this very command line again as guard-pg, when err says the
// state is in a database and this guard was built without its driver:
// guard-pg is found beside this guard, else on PATH, and used only if it is
// guard-pg of this very build (see findOurs). It replaces the process
// (same pid, streams and environment), so it returns only if it cannot,
// with an error that says why; any other err it returns as it is.
func (e *Env) Handoff(err error) error {
	var nd *store.NeedsDriverError
	if !errors.As(err, &nd) || !e.Exits {
		return err
	}
	if e.Getenv(handedOver) != "" {
		// This is what guard handed over to, and it has no driver either
		// (a guard copied as guard-pg, say): never hand over in a loop.
		return fmt.Errorf("guard-pg has no PostgreSQL driver either (a copy of guard?): %v", err)
	}
	path, why := e.FindCompanion("guard-pg")
	if path == "" {
		if why != "" {
			return fmt.Errorf("guard-pg not used: %s; the state %s needs it", why, config.Redact(nd.URL))
		}
		return err
	}
	xerr := e.Exec(path, append([]string{path}, e.Args[1:]...), append(e.Environ(), handedOver+"=1"))
	return fmt.Errorf("%v (and it could not be started: %v)", err, xerr)
}

// FindCompanion returns the companion command name (guard-pg, guard-web)
// to hand a command over to: findOurs's, unless a test gave env its own.
func (e *Env) FindCompanion(name string) (path, why string) {
	if e.Companion != nil {
		return e.Companion(name)
	}
	return findOurs(name)
}

// findOurs returns the companion command name (guard-pg, guard-web) to
// hand a command over to: the one beside this guard, else the one on
// PATH, whichever is that command of this very build (see isOurs). guard
// trusts it with the hook's call, exit status included, so a stranger of
// that name (a script, an older build whose command line may differ) is
// never run. If none will do, why says what was wrong with those found
// ("" if none was).
func findOurs(name string) (path, why string) {
	var candidates []string
	if exe, err := os.Executable(); err == nil {
		if p := filepath.Join(filepath.Dir(exe), exeName(name)); isExecutable(p) {
			candidates = append(candidates, p)
		}
	}
	if p, err := exec.LookPath(name); err == nil {
		if abs, err := filepath.Abs(p); err == nil {
			p = abs
		}
		if len(candidates) == 0 || candidates[0] != p {
			candidates = append(candidates, p)
		}
	}
	var whys []string
	for _, p := range candidates {
		err := isOurs(p, name)
		if err == nil {
			return p, ""
		}
		whys = append(whys, fmt.Sprintf("%s %v", p, err))
	}
	return "", strings.Join(whys, "; ")
}

// isOurs checks, from its build information and without running it, that
// the file at path is guard's command name (guard-pg, guard-web), built
// from the same module version and source revision as this guard. (A
// test binary, which is none of guard's commands, passes for a copy of
// itself: guard's end-to-end tests run one test binary as guard and
// guard-web.)
func isOurs(path, name string) error {
	info, err := ReadBuildInfo(path)
	if err != nil {
		return errors.New("is not a Go program")
	}
	own, ok := debug.ReadBuildInfo()
	if !ok {
		return errors.New("cannot be checked: this guard has no build information")
	}
	want := own.Main.Path + "/cmd/" + name
	testCopy := info.Path == own.Path && !strings.HasPrefix(own.Path, own.Main.Path+"/cmd/")
	if (info.Path != want && !testCopy) || info.Main.Path != own.Main.Path {
		return fmt.Errorf("is %s, not %s", info.Path, want)
	}
	if got, want := buildVersion(info), buildVersion(own); got != want {
		return fmt.Errorf("is another build (%s; this guard: %s; install both again)", got, want)
	}
	return nil
}

// buildVersion is what must match between guard and the guard-pg it hands
// over to: the module's version, the source revision it was built from,
// and the linker flags (which stamp a release's version).
func buildVersion(info *debug.BuildInfo) string {
	v := info.Main.Version
	for _, s := range info.Settings {
		switch s.Key {
		case "-ldflags":
			v += " " + s.Value
		case "vcs.revision":
			v += " " + s.Value[:min(12, len(s.Value))]
		case "vcs.modified":
			if s.Value == "true" {
				v += "+dirty"
			}
		}
	}
	return v
}

// handedOver marks the environment of a guard another guard handed over to.
const handedOver = "GUARD_HANDED_OVER"

// goRun reports whether dir, the directory of guard's executable, is one
// go run builds in: a directory of Go's build cache (GOCACHE/xx/...-d) or
// a go-build temporary directory.
func goRun(dir string) bool {
	for _, part := range strings.FieldsFunc(dir, func(r rune) bool { return r == '/' || r == '\\' }) {
		if part == "go-build" || strings.HasPrefix(part, "go-build") && strings.Trim(part[len("go-build"):], "0123456789") == "" {
			return true
		}
	}
	return false
}
