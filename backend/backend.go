// Package backend opens the store guard keeps its state in, as the
// configuration names it, behind the interfaces of package store. Today
// that is the JSON file backend: hook_state.json (package hookstate) with
// its slot directory (bulkhead), cooldown.json (cooldownstate), and their
// event logs (eventlog). The CLI opens its state here and nowhere else.
package backend

import (
	"os"
	"sort"

	"guard/bulkhead"
	"guard/config"
	"guard/cooldownstate"
	"guard/eventlog"
	"guard/hookstate"
	"guard/statefile"
	"guard/store"
	"guard/supervise"
	"guard/view"
)

// Options are what a backend reports to its user.
type Options struct {
	// Warn prints a warning (a state set aside, say).
	Warn func(format string, args ...any)
	// LogFailed hears of an event log that could not be written.
	LogFailed func(error)
}

func (o *Options) warn(format string, args ...any) {
	if o.Warn != nil {
		o.Warn(format, args...)
	}
}

// Hooks is the state of the hooks' circuits.
type Hooks struct {
	Circuits   store.Circuits
	Runs       store.Runs
	Events     store.Events // this state's event log
	Checkpoint store.Checkpoint
	Where      string // where the state is, for people
}

// OpenHooks opens the hook state cfg names.
func OpenHooks(cfg *config.Config, o Options) (*Hooks, error) {
	if cfg.StateFile == "" {
		return nil, config.ErrNoHome
	}
	s, err := hookstate.Open(cfg.StateFile, statefile.Options{
		LockTimeout: cfg.LockTimeout,
		OnQuarantine: func(to string, cause error) {
			o.warn("state file did not parse (%s); moved it to %s and started afresh", view.ErrorLine(cause), to)
		},
	}, cfg.CircuitBreaker.Retention, eventLog(cfg, cfg.StateFile), o.LogFailed)
	if err != nil {
		return nil, err
	}
	s.OnSetAside = func(a hookstate.Aside, quarantine string) {
		o.warn("the state of %q was malformed (%s); kept it in %s and started it afresh", a.Key, view.ErrorLine(a.Err), quarantine)
	}
	return &Hooks{
		Circuits:   s.Circuits(),
		Runs:       bulkhead.Slots{Dir: bulkhead.Dir(s.Path())},
		Events:     eventlog.Logs{s.Log()},
		Checkpoint: checkpoint{s.Store, hookstate.Validate, &hookstate.Document{Version: hookstate.Version}},
		Where:      s.Path(),
	}, nil
}

// Cooldown is the state of the services' action budgets.
type Cooldown struct {
	Budgets    store.Budgets
	Actions    []store.Action // the configured actions, by name
	Events     store.Events
	Checkpoint store.Checkpoint
	Where      string
}

// OpenCooldown opens the cooldown state at path (empty: the one cfg
// names).
func OpenCooldown(cfg *config.Config, path string, o Options) (*Cooldown, error) {
	if path == "" {
		path = cfg.Cooldown.StateFile
	}
	if path == "" {
		return nil, config.ErrNoHome
	}
	actions := actionList(cfg)
	s, err := cooldownstate.Open(path, statefile.Options{
		LockTimeout: cfg.LockTimeout,
		OnQuarantine: func(to string, cause error) {
			o.warn("cooldown state did not parse (%s); moved it to %s and started afresh", view.ErrorLine(cause), to)
		},
	}, cfg.Cooldown.Retention, actions, eventLog(cfg, path), o.LogFailed)
	if err != nil {
		return nil, err
	}
	return &Cooldown{
		Budgets:    s.Budgets(),
		Actions:    actions,
		Events:     eventlog.Logs{s.Log()},
		Checkpoint: checkpoint{s.Store, func(b []byte) error { return cooldownstate.Validate(b, actions) }, &cooldownstate.Document{}},
		Where:      s.Path(),
	}, nil
}

// CooldownExists reports whether there is cooldown state to report on.
func CooldownExists(cfg *config.Config) bool {
	_, err := os.Stat(cfg.Cooldown.StateFile)
	return cfg.Cooldown.StateFile != "" && err == nil
}

// AllEvents returns the event logs of the hook state and the cooldown
// state, read as one.
func AllEvents(cfg *config.Config) store.Events {
	return eventlog.Logs{eventLog(cfg, cfg.StateFile), eventLog(cfg, cfg.Cooldown.StateFile)}
}

// eventLog returns the event log of the state file at statePath.
func eventLog(cfg *config.Config, statePath string) *eventlog.Log {
	return &eventlog.Log{Path: cfg.EventLog(statePath), MaxSize: cfg.Logging.MaxSize, MaxFiles: cfg.Logging.MaxFiles}
}

// Host returns the name guard records for this host in leases, slots and
// events: GUARD_HOST if set, else the host name.
func Host(getenv func(string) string) string {
	if h := getenv("GUARD_HOST"); h != "" {
		return h
	}
	h, _ := os.Hostname()
	return h
}

// Liveness checks holders from this host.
func Liveness(host string) store.Liveness {
	return store.Liveness{Host: host, Local: supervise.Alive}
}

// actionList returns the configured actions, sorted by name.
func actionList(cfg *config.Config) []store.Action {
	var actions []store.Action
	for name, a := range cfg.Cooldown.Actions {
		actions = append(actions, store.Action{Name: name, Field: a.Field, Limit: a.Limit, Window: a.Window})
	}
	sort.Slice(actions, func(i, j int) bool { return actions[i].Name < actions[j].Name })
	return actions
}
