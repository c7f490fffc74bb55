package file

import (
	"errors"
	"fmt"

	"guard/config"
	"guard/internal/store"
	"guard/internal/store/cooldownstate"
	"guard/internal/store/hookstate"
	"guard/statefile"
)

// Linking this package in registers it as the backend of state paths.
func init() {
	store.Register(store.KindFile, &store.Backend{
		OpenHooks:    OpenHooks,
		OpenCooldown: OpenCooldown,
		Events: func(cfg *config.Config, where string) (store.Events, error) {
			real, err := statefile.Resolve(where)
			if err != nil {
				return nil, err
			}
			l, err := eventLog(cfg, real)
			if err != nil {
				return nil, err
			}
			return EventLogs{l}, nil
		},
	})
}

// OpenHooks opens the hook state file at path: its circuits, the slot
// files of its runs, its event log and checkpoints.
func OpenHooks(cfg *config.Config, path string, o store.Options) (*store.Hooks, error) {
	if err := config.CheckStateLocation(path); err != nil {
		return nil, fmt.Errorf("state: %w", err)
	}
	s, err := openCircuits(path, statefile.Options{
		LockTimeout:  cfg.LockTimeout,
		Stop:         o.Stop,
		OnQuarantine: quarantined(o, "state file"),
	}, hookstate.Retention{Idle: cfg.CircuitBreaker.Retention, Session: cfg.CircuitBreaker.SessionRetention}, hostLog(cfg, o.Host), o.LogFailed)
	if err != nil {
		return nil, err
	}
	s.onSetAside = o.SetAside
	return &store.Hooks{
		Circuits:   s,
		Runs:       Runs{Dir: RunsDir(s.Path()), Host: o.Host},
		Events:     EventLogs{s.Log()},
		Checkpoint: checkpoint{s, hookstate.Validate, &hookstate.Document{Version: hookstate.Version}},
		Where:      s.Path(),
	}, nil
}

// OpenCooldown opens the cooldown state file at path.
func OpenCooldown(cfg *config.Config, path string, actions []store.Action, o store.Options) (*store.Cooldown, error) {
	if err := config.CheckStateLocation(path); err != nil {
		return nil, fmt.Errorf("cooldown state: %w", err)
	}
	s, err := openBudgets(path, statefile.Options{
		LockTimeout:  cfg.LockTimeout,
		Stop:         o.Stop,
		OnQuarantine: quarantined(o, "cooldown state"),
	}, actions, hostLog(cfg, o.Host), o.LogFailed)
	if err != nil {
		return nil, err
	}
	return &store.Cooldown{
		Budgets:    s,
		Actions:    actions,
		Events:     EventLogs{s.Log()},
		Checkpoint: checkpoint{s.stateFile, func(b []byte) error { return cooldownstate.Validate(b, actions) }, &cooldownstate.Document{}},
		Where:      s.Path(),
	}, nil
}

// quarantined reports a state file set aside to o, with what was kept of
// it (store.SalvagedError).
func quarantined(o store.Options, what string) func(to string, cause error) {
	return func(to string, cause error) {
		var se *statefile.SalvagedError
		if errors.As(cause, &se) {
			cause = &store.SalvagedError{Err: se.Err, Kept: se.Kept, Partial: se.Partial, Lost: se.Lost, Cut: se.Cut}
		}
		if o.Quarantined != nil {
			o.Quarantined(what, to, cause)
		}
	}
}

// eventLog returns the event log of the state file at statePath, a
// resolved path. One that logging.event_log names is resolved as a state
// path is, each symlink on the way checked before it is followed: another
// user's link in a sticky world-writable directory, at the log or on the
// way to it, is refused (hostile-user-3 M3), and the state is not opened.
// (The log beside a state is in the state's resolved directory.)
func eventLog(cfg *config.Config, statePath string) (*EventLog, error) {
	path := cfg.EventLog(statePath)
	if cfg.Logging.EventLog != "" {
		real, err := statefile.Resolve(path)
		if err != nil {
			return nil, fmt.Errorf("event log: %w", err)
		}
		path = real
	}
	return &EventLog{Path: path, MaxSize: cfg.Logging.MaxSize, MaxFiles: cfg.Logging.MaxFiles, Owner: statePath, LockTimeout: cfg.LockTimeout}, nil
}

// hostLog returns the logFor of a state file: its event log, which writes
// host into the events it appends.
func hostLog(cfg *config.Config, host string) func(real string) (*EventLog, error) {
	return func(real string) (*EventLog, error) {
		l, err := eventLog(cfg, real)
		if err != nil {
			return nil, err
		}
		l.Host = host
		return l, nil
	}
}

// storeError makes statefile's errors match store's sentinels, keeping
// their text.
func storeError(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, statefile.ErrLockTimeout):
		return sentinelError{err, store.ErrBusy}
	case errors.Is(err, statefile.ErrCorrupt):
		return sentinelError{err, store.ErrCorrupt}
	}
	return err
}

// docError makes an error a document returned from inside an update
// match statefile.ErrCorrupt as well when it matches store.ErrCorrupt (a
// key's entry that does not decode, say: the document types speak store's
// errors, not statefile's), so that statefile sets the file aside and
// runs the update again on an empty document.
func docError(err error) error {
	if errors.Is(err, store.ErrCorrupt) && !errors.Is(err, statefile.ErrCorrupt) {
		return sentinelError{err, statefile.ErrCorrupt}
	}
	return err
}

// A sentinelError is an error that also matches one of store's sentinels.
type sentinelError struct{ err, sentinel error }

func (e sentinelError) Error() string   { return e.err.Error() }
func (e sentinelError) Unwrap() []error { return []error{e.err, e.sentinel} }
