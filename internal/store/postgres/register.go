package postgres

import (
	"context"

	"guard/backend"
	"guard/config"
	"guard/internal/store"
	"guard/internal/store/cooldownstate"
	"guard/internal/store/hookstate"
	"guard/internal/view"
)

// Linking this package in registers it as guard's database driver (see
// backend.Driver): cmd/guard-pg does.
func init() {
	backend.Register(&backend.Driver{
		OpenHooks: func(cfg *config.Config, url string, o backend.Options) (*backend.Hooks, error) {
			db, err := Open(context.Background(), url, cfg.ConnectTimeout)
			if err != nil {
				return nil, err
			}
			c := db.Circuits(cfg.CircuitBreaker.Retention)
			c.OnSetAside = func(a store.Aside, where string) {
				if o.Warn != nil {
					o.Warn("the state of %q was malformed (%s); kept it in %s and started it afresh", a.Key, view.ErrorLine(a.Err), where)
				}
			}
			return &backend.Hooks{
				Circuits: c, Runs: db.Runs(), Events: db.Events(),
				Checkpoint: db.Checkpoint(false, hookstate.Validate, &hookstate.Document{Version: hookstate.Version}),
				Where:      db.Where(),
			}, nil
		},
		OpenCooldown: func(cfg *config.Config, url string, actions []store.Action, o backend.Options) (*backend.Cooldown, error) {
			db, err := Open(context.Background(), url, cfg.ConnectTimeout)
			if err != nil {
				return nil, err
			}
			return &backend.Cooldown{
				Budgets: db.Budgets(cfg.Cooldown.Retention, actions), Actions: actions, Events: db.Events(),
				Checkpoint: db.Checkpoint(true, func(b []byte) error { return cooldownstate.Validate(b, actions) }, &cooldownstate.Document{}),
				Where:      db.Where(),
			}, nil
		},
		Events: func(cfg *config.Config, url string) (store.Events, error) {
			db, err := Open(context.Background(), url, cfg.ConnectTimeout)
			if err != nil {
				return nil, err
			}
			return db.Events(), nil
		},
		Ping: func(cfg *config.Config, url string) error {
			db, err := Open(context.Background(), url, cfg.ConnectTimeout)
			if err != nil {
				return err
			}
			defer db.Close()
			return db.Ping()
		},
	})
}
