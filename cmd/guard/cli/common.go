package cli

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"

	"github.com/urfave/cli/v2"

	"guard/backend"
	"guard/config"
	"guard/internal/circuit"
	"guard/internal/store"
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

// backendOptions are how a backend reports to this command.
func (e *env) backendOptions() backend.Options {
	return backend.Options{
		Warn:      e.warnf, // which escapes and hides secrets
		LogFailed: e.logFailed,
	}
}

// openHooks opens the hook state that cfg names. A state that does not
// parse is set aside by the first update, with a warning.
func (e *env) openHooks(cfg *config.Config) (*backend.Hooks, error) {
	h, err := backend.OpenHooks(cfg, e.backendOptions())
	return h, e.handoff(err)
}

// handoff runs this very command line again as guard-pg, when err says the
// state is in a database and this guard was built without its driver:
// guard-pg is found beside this guard, else on PATH. It replaces the
// process (same pid, streams and environment), so it returns only if it
// cannot, with an error that says why; any other err it returns as it is.
func (e *env) handoff(err error) error {
	var nd *backend.NeedsDriverError
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
func (e *env) openHooksOf(c *cli.Context) (*backend.Hooks, error) {
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
func (e *env) snapshot(c *cli.Context) (*config.Config, *backend.Hooks, store.CircuitView, error) {
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
