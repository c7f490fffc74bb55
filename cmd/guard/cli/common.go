package cli

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"

	"github.com/urfave/cli/v2"

	"guard/config"
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
	cfg, err := config.Load(config.Options{
		Path:    path,
		Getenv:  e.getenv,
		Environ: e.environ,
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
			e.warnf("%s did not parse (%s); moved it to %s and started afresh", what, view.ErrorLine(cause), view.Printable(to))
		},
		SetAside: func(a store.Aside, keptIn string) {
			e.warnf("the state of %q was malformed (%s); kept it in %s and started it afresh", view.Printable(a.Key), view.ErrorLine(a.Err), view.Printable(keptIn))
		},
		LogFailed: e.logFailed,
		Host:      host(e.getenv),
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
	return h, e.handoff(err)
}

// handoff runs this very command line again as guard-pg, when err says the
// state is in a database and this guard was built without its driver:
// guard-pg is found beside this guard, else on PATH. It replaces the
// process (same pid, streams and environment), so it returns only if it
// cannot, with an error that says why; any other err it returns as it is.
func (e *env) handoff(err error) error {
	var nd *store.NeedsDriverError
	if !errors.As(err, &nd) || !e.exits {
		return err
	}
	if os.Getenv(handedOver) != "" {
		// This is what guard handed over to, and it has no driver either
		// (a guard copied as guard-pg, say): never hand over in a loop.
		return fmt.Errorf("guard-pg has no PostgreSQL driver either (a copy of guard?): %v", err)
	}
	path := ""
	if exe, xerr := os.Executable(); xerr == nil {
		if p := filepath.Join(filepath.Dir(exe), "guard-pg"); isExecutable(p) {
			path = p
		}
	}
	if path == "" {
		if p, lerr := exec.LookPath("guard-pg"); lerr == nil {
			path = p
		}
	}
	if path == "" {
		return err
	}
	xerr := syscall.Exec(path, append([]string{path}, e.args[1:]...), append(os.Environ(), handedOver+"=1"))
	return fmt.Errorf("%v (and it could not be started: %v)", err, xerr)
}

// handedOver marks the environment of a guard another guard handed over to.
const handedOver = "GUARD_HANDED_OVER"

func isExecutable(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0
}

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

// keyArgs returns the KEY arguments of c as guard run names its keys: a key
// typed with bytes that are not UTF-8 (guard trip $'a\xceb') is the key
// guard run --name $'a\xceb' made (shown and typed as 'a\xceb').
func keyArgs(c *cli.Context) []string {
	keys := c.Args().Slice()
	for i, k := range keys {
		keys[i] = circuit.ValidKey(k)
	}
	return keys
}
