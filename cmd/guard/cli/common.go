package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"

	"guard/config"
	_ "guard/config/yamlv3" // the full YAML reader, for configs the fast parser leaves to it
	"guard/internal/circuit"
	"guard/internal/store"
	_ "guard/internal/store/file" // the backend of state files
	"guard/internal/supervise"
	"guard/internal/view"
)

// loadConfig loads the configuration for a command, honouring its --config
// and --state flags.
func (e *env) loadConfig(c *cli.Context) (*config.Config, error) {
	cfg, err := e.loadConfigFrom(c.String("config"), c.String("state"))
	if err == nil && c.String("cooldown-state") != "" {
		cfg.Cooldown.StateFile = c.String("cooldown-state")
	}
	return cfg, err
}

// loadConfigFrom loads the config at path (empty: the default), with the
// state file overridden by state if it is not empty.
func (e *env) loadConfigFrom(path, state string) (*config.Config, error) {
	return e.loadConfigReading(path, state, nil)
}

// loadConfigReading is loadConfigFrom, with a path of "-" read from stdin
// if stdin is not nil ('guard config check -').
func (e *env) loadConfigReading(path, state string, stdin io.Reader) (*config.Config, error) {
	cfg, err := config.Load(config.Options{
		Path:    path,
		Getenv:  e.getenv,
		Environ: e.environ,
		Stdin:   stdin,
	})
	if err != nil {
		return nil, err
	}
	if state != "" {
		cfg.StateFile = state
	}
	return cfg, nil
}

// backendOptions are how a backend reports to this command: as warnings,
// worded here.
func (e *env) backendOptions() store.Options {
	return store.Options{
		Quarantined: func(what, to string, cause error) {
			var se *store.SalvagedError
			if errors.As(cause, &se) {
				e.warnf("%s did not parse (%s); moved it to %s and went on with %s", what, view.ErrorLine(cause), to, salvagedWords(what, se))
				return
			}
			e.warnf("%s did not parse (%s); moved it to %s and started afresh", what, view.ErrorLine(cause), to)
		},
		SetAside: func(a store.Aside, keptIn string) {
			e.warnf("the state of %q was malformed (%s); kept it in %s and started it afresh", a.Key, view.ErrorLine(a.Err), keptIn)
		},
		LogFailed: e.logFailed,
		// A signal guard run passes on ends a wait for the state lock.
		Stop: e.signalled,
		Host: host(e.getenv),
	}
}

// host returns the name guard records for this host in leases, slots and
// events: GUARD_HOST if set, else the host name.
func host(getenv func(string) string) string {
	if h := getenv("GUARD_HOST"); h != "" {
		return h
	}
	h, _ := os.Hostname()
	return h
}

// liveness checks holders from this host.
func liveness(host string) store.Liveness {
	return store.Liveness{Host: host, Local: supervise.Alive}
}

// noEvents is an empty event log.
type noEvents struct{}

func (noEvents) Read(func(*store.Event) bool) (store.ReadResult, error) {
	return store.ReadResult{}, nil
}

// openHooks opens the hook state that cfg names. A state that does not
// parse is set aside by the first update, with a warning.
func (e *env) openHooks(cfg *config.Config) (*store.Hooks, error) {
	h, err := store.OpenHooks(cfg, e.backendOptions())
	if err != nil {
		return nil, e.handoff(err)
	}
	h.Where = view.Printable(config.Redact(h.Where)) // for people: secrets hidden, escaped
	return h, nil
}

// handoff runs this very command line again as guard-pg, when err says the
// state is in a database and this guard was built without its driver:
// guard-pg is found beside this guard, else on PATH, and used only if it is
// guard-pg of this very build (see findOurs). It replaces the process
// (same pid, streams and environment), so it returns only if it cannot,
// with an error that says why; any other err it returns as it is.
func (e *env) handoff(err error) error {
	var nd *store.NeedsDriverError
	if !errors.As(err, &nd) || !e.exits {
		return err
	}
	if e.getenv(handedOver) != "" {
		// This is what guard handed over to, and it has no driver either
		// (a guard copied as guard-pg, say): never hand over in a loop.
		return fmt.Errorf("guard-pg has no PostgreSQL driver either (a copy of guard?): %v", err)
	}
	path, why := e.findCompanion("guard-pg")
	if path == "" {
		if why != "" {
			return fmt.Errorf("guard-pg not used: %s; the state %s needs it", why, config.Redact(nd.URL))
		}
		return err
	}
	xerr := e.exec(path, append([]string{path}, e.args[1:]...), append(e.environ(), handedOver+"=1"))
	return fmt.Errorf("%v (and it could not be started: %v)", err, xerr)
}

// findCompanion returns the companion command name (guard-pg, guard-web)
// to hand a command over to: findOurs's, unless a test gave env its own.
func (e *env) findCompanion(name string) (path, why string) {
	if e.companion != nil {
		return e.companion(name)
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

// isOurGuardPG checks that the file at path is guard's guard-pg of this
// very build (see isOurs).
func isOurGuardPG(path string) error { return isOurs(path, "guard-pg") }

// isOurs checks, from its build information and without running it, that
// the file at path is guard's command name (guard-pg, guard-web), built
// from the same module version and source revision as this guard. (A
// test binary, which is none of guard's commands, passes for a copy of
// itself: guard's end-to-end tests run one test binary as guard and
// guard-web.)
func isOurs(path, name string) error {
	info, err := readBuildInfo(path)
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

// openHooksOf opens the hook state a command's flags name.
func (e *env) openHooksOf(c *cli.Context) (*store.Hooks, error) {
	cfg, err := e.loadConfig(c)
	if err != nil {
		return nil, err
	}
	return e.openHooks(cfg)
}

// logFailed warns, once, that the event log could not be written.
func (e *env) logFailed(err error) {
	if !e.logWarned {
		e.logWarned = true
		e.warnf("could not write the event log: %v", view.ErrorLine(err))
	}
}

// snapshot reads the state for a command that only reads it.
func (e *env) snapshot(c *cli.Context) (*config.Config, *store.Hooks, store.CircuitView, error) {
	cfg, err := e.loadConfig(c)
	if err != nil {
		return nil, nil, nil, err
	}
	hooks, err := e.openHooks(cfg)
	if err != nil {
		return nil, nil, nil, err
	}
	v, err := hooks.Circuits.Snapshot()
	if errors.Is(err, store.ErrCorrupt) {
		return nil, nil, nil, fmt.Errorf("%w; the next guard run or reset will move it aside", err)
	}
	if err != nil {
		return nil, nil, nil, fmt.Errorf("cannot read state: %w", err)
	}
	return cfg, hooks, v, nil
}

// resolveKeys returns the keys KEY arguments name, given the keys with
// state: as guard run keys a command line (guard trip $'a\xceb' trips the
// hook guard run --name $'a\xceb' made), or else as guard status shows a
// key (see circuit.ResolveKey).
func resolveKeys(args []string, v store.CircuitView) ([]string, error) {
	keys := make([]string, len(args))
	for i, a := range args {
		k, err := circuit.ResolveKey(a, v.Has)
		if err != nil {
			return nil, err
		}
		keys[i] = k
	}
	return keys, nil
}

// salvagedWords says what guard kept of a state (what) that did not
// parse, and how many keys (services, of a cooldown state) it lost (faults
// #7): "the 2 keys it could read (1 of them
// in part: "k"); lost 1 that did not parse ("j") and any after where the
// file ends".
func salvagedWords(what string, se *store.SalvagedError) string {
	one, many := "key", "keys"
	if what == "cooldown state" {
		one, many = "service", "services"
	}
	out := fmt.Sprintf("the %d %s it could read", se.Kept, plural(se.Kept, one, many))
	if len(se.Partial) > 0 {
		out += fmt.Sprintf(" (%d of them in part: %s)", len(se.Partial), quotedKeys(se.Partial))
	}
	var lost []string
	if len(se.Lost) > 0 {
		lost = append(lost, fmt.Sprintf("%d that did not parse (%s)", len(se.Lost), quotedKeys(se.Lost)))
	}
	if se.Cut {
		lost = append(lost, "any after where the file ends")
	}
	if len(lost) == 0 {
		return out + "; lost none"
	}
	return out + "; lost " + strings.Join(lost, " and ")
}

// quotedKeys lists up to three keys, quoted.
func quotedKeys(keys []string) string {
	names := make([]string, 0, 4)
	for i, k := range keys {
		if i == 3 {
			names = append(names, "...")
			break
		}
		names = append(names, strconv.Quote(k))
	}
	return strings.Join(names, ", ")
}
