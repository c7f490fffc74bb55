package postgres

import (
	"context"
	"time"

	"guard/config"
	"guard/internal/store"
	"guard/internal/store/hookstate"
	"guard/internal/supervise"
)

// settings are a DB's settings from guard's configuration.
func settings(cfg *config.Config) Settings {
	return Settings{
		ConnectTimeout: cfg.ConnectTimeout,
		LockTimeout:    cfg.LockTimeout,
		Retention:      hookstate.Retention{Idle: cfg.CircuitBreaker.Retention, Session: cfg.CircuitBreaker.SessionRetention},
		EventRetention: eventRetention(cfg),
	}
}

// eventRetention is how long events are kept: as long as the longer of the
// two states' retentions, 0 (for ever) if either keeps everything.
func eventRetention(cfg *config.Config) time.Duration {
	a, b := cfg.CircuitBreaker.Retention, cfg.Cooldown.Retention
	if a <= 0 || b <= 0 {
		return 0
	}
	return max(a, b)
}

// Linking this package in registers it as the backend of postgres:// URLs
// (see store.Backend): cmd/guard-pg does.
func init() {
	store.Register(store.KindPostgres, &store.Backend{
		OpenHooks: func(cfg *config.Config, url string, o store.Options) (*store.Hooks, error) {
			ctx, cancel := stopContext(o.Stop)
			db, err := Open(ctx, url, settings(cfg))
			cancel()
			if err != nil {
				return nil, err
			}
			db.host = o.Host
			c := db.Circuits()
			c.OnSetAside = o.SetAside
			runs := db.Runs()
			runs.Live = supervise.Alive
			return &store.Hooks{
				Circuits: c, Runs: runs, Events: db.Events(),
				Checkpoint: db.HookCheckpoint(),
				Where:      db.Where(),
			}, nil
		},
		OpenCooldown: func(cfg *config.Config, url string, actions []store.Action, o store.Options) (*store.Cooldown, error) {
			db, err := Open(context.Background(), url, settings(cfg))
			if err != nil {
				return nil, err
			}
			db.host = o.Host
			return &store.Cooldown{
				Budgets: db.Budgets(actions), Actions: actions, Events: db.Events(),
				Checkpoint: db.CooldownCheckpoint(actions),
				Where:      db.Where(),
			}, nil
		},
		Events: func(cfg *config.Config, url string) (store.Events, error) {
			db, err := Open(context.Background(), url, settings(cfg))
			if err != nil {
				return nil, err
			}
			return db.Events(), nil
		},
		Init: func(cfg *config.Config, url, role string) error {
			db, err := Open(context.Background(), url, settings(cfg))
			if err != nil {
				return err
			}
			defer db.Close()
			return db.Init(role)
		},
		Advice: Advice,
		Ping: func(cfg *config.Config, url string) error {
			db, err := Open(context.Background(), url, settings(cfg))
			if err != nil {
				return err
			}
			defer db.Close()
			return db.Ping()
		},
	})
}

// stopContext returns a context that is done once stop (if not nil)
// reports true: a signal guard run passes on ends its wait to connect at
// once (nothing is written yet), rather than after connect_timeout.
func stopContext(stop func() bool) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(context.Background())
	if stop == nil {
		return ctx, cancel
	}
	go func() {
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
				if stop() {
					cancel()
					return
				}
			}
		}
	}()
	return ctx, cancel
}
