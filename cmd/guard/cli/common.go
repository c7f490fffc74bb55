package cli

import (
	"errors"
	"fmt"

	"github.com/urfave/cli/v2"

	"guard/config"
	_ "guard/config/yamlv3" // the full YAML reader, for configs the fast parser leaves to it
	"guard/internal/circuit"
	"guard/internal/store"
	_ "guard/internal/store/file" // the backend of state files
)

// loadConfig loads the configuration for a command, honouring its --config
// and --state flags.
func (e *env) loadConfig(c *cli.Context) (*config.Config, error) {
	cfg, err := e.LoadConfigFrom(c.String("config"), c.String("state"))
	if err == nil && c.String("cooldown-state") != "" {
		cfg.Cooldown.StateFile = c.String("cooldown-state")
	}
	return cfg, err
}

// noEvents is an empty event log.
type noEvents struct{}

func (noEvents) Read(func(*store.Event) bool) (store.ReadResult, error) {
	return store.ReadResult{}, nil
}

// openHooksOf opens the hook state a command's flags name.
func (e *env) openHooksOf(c *cli.Context) (*store.Hooks, error) {
	cfg, err := e.loadConfig(c)
	if err != nil {
		return nil, err
	}
	return e.OpenHooks(cfg)
}

// snapshot reads the state for a command that only reads it.
func (e *env) snapshot(c *cli.Context) (*config.Config, *store.Hooks, store.CircuitView, error) {
	cfg, err := e.loadConfig(c)
	if err != nil {
		return nil, nil, nil, err
	}
	hooks, err := e.OpenHooks(cfg)
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
