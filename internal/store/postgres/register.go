package postgres

import (
	"context"

	"guard/config"
	"guard/internal/store"
	"guard/internal/store/cooldownstate"
	"guard/internal/store/hookstate"
)

// Linking this package in registers it as the backend of postgres:// URLs
// (see store.Backend): cmd/guard-pg does.
func init() {
	store.Register(store.KindPostgres, &store.Backend{
		OpenHooks: func(cfg *config.Config, url string, o store.Options) (*store.Hooks, error) {
			db, err := Open(context.Background(), url, cfg.ConnectTimeout)
			if err != nil {
				return nil, err
			}
			db.host = o.Host
			c := db.Circuits(cfg.CircuitBreaker.Retention)
			c.OnSetAside = o.SetAside
			return &store.Hooks{
				Circuits: c, Runs: db.Runs(), Events: db.Events(),
				Checkpoint: db.Checkpoint(false, hookstate.Validate, &hookstate.Document{Version: hookstate.Version}),
				Where:      db.Where(),
			}, nil
		},
		OpenCooldown: func(cfg *config.Config, url string, actions []store.Action, o store.Options) (*store.Cooldown, error) {
			db, err := Open(context.Background(), url, cfg.ConnectTimeout)
			if err != nil {
				return nil, err
			}
			db.host = o.Host
			return &store.Cooldown{
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
