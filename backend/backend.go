// Package backend opens the store guard keeps its state in, as the
// configuration names it, behind the interfaces of package store: the JSON
// file backend (hook_state.json, package hookstate, with its slot
// directory, bulkhead; cooldown.json, cooldownstate; and their event logs,
// eventlog), or a database through the Driver that guard-pg links in. The
// CLI opens its state here and nowhere else.
package backend

import (
	"fmt"
	"os"
	"sort"
	"strings"

	"guard/bulkhead"
	"guard/config"
	"guard/eventlog"
	"guard/internal/store"
	"guard/internal/store/cooldownstate"
	"guard/internal/store/hookstate"
	"guard/internal/supervise"
	"guard/internal/view"
	"guard/statefile"
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
	Where      string // where the state is, for people: secrets hidden, escaped
}

// OpenHooks opens the hook state cfg names: a PostgreSQL database if
// state_file is a postgres:// URL, else the JSON file.
func OpenHooks(cfg *config.Config, o Options) (*Hooks, error) {
	if cfg.StateFile == "" {
		return nil, config.ErrNoHome
	}
	if IsURL(cfg.StateFile) {
		if driver == nil {
			return nil, &NeedsDriverError{cfg.StateFile}
		}
		return driver.OpenHooks(cfg, cfg.StateFile, o)
	}
	if err := config.CheckStateLocation(cfg.StateFile); err != nil {
		return nil, fmt.Errorf("state: %w", err)
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
		Where:      view.Printable(Redact(s.Path())),
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
	if IsURL(path) {
		if driver == nil {
			return nil, &NeedsDriverError{path}
		}
		return driver.OpenCooldown(cfg, path, actions, o)
	}
	if err := config.CheckStateLocation(path); err != nil {
		return nil, fmt.Errorf("cooldown state: %w", err)
	}
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
		Where:      view.Printable(Redact(s.Path())),
	}, nil
}

// CooldownExists reports whether there is cooldown state to report on: a
// database, or a file that exists.
func CooldownExists(cfg *config.Config) bool {
	if IsURL(cfg.Cooldown.StateFile) {
		return true
	}
	_, err := os.Stat(cfg.Cooldown.StateFile)
	return cfg.Cooldown.StateFile != "" && err == nil
}

// AllEvents returns the event logs of the hook state and the cooldown
// state, read as one. A state in a database logs to its table; a database
// that cannot be reached gives the error.
func AllEvents(cfg *config.Config) (store.Events, error) {
	var all multiEvents
	var files eventlog.Logs
	seen := map[string]bool{}
	for _, where := range []string{cfg.StateFile, cfg.Cooldown.StateFile} {
		switch {
		case where == "":
		case IsURL(where):
			if seen[where] {
				continue // one database, one table
			}
			seen[where] = true
			if driver == nil {
				return nil, &NeedsDriverError{where}
			}
			events, err := driver.Events(cfg, where)
			if err != nil {
				return nil, err
			}
			all = append(all, events)
		default:
			files = append(files, eventLog(cfg, where))
		}
	}
	return append(all, files), nil
}

// multiEvents reads several event logs as one, in time order.
type multiEvents []store.Events

func (m multiEvents) Read(keep func(*eventlog.Event) bool) (eventlog.ReadResult, error) {
	var res eventlog.ReadResult
	for _, e := range m {
		r, err := e.Read(keep)
		if err != nil {
			return res, err
		}
		res.Events = append(res.Events, r.Events...)
		res.Malformed += r.Malformed
	}
	sort.SliceStable(res.Events, func(i, j int) bool { return res.Events[i].Time.Before(res.Events[j].Time) })
	return res, nil
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
		actions = append(actions, store.Action{Name: name, Field: a.Field, Limit: a.Limit, Window: a.Window, Timestamps: a.Timestamps})
	}
	sort.Slice(actions, func(i, j int) bool { return actions[i].Name < actions[j].Name })
	return actions
}

// Describe says which backend holds the state at where and whether it can
// be reached: "PostgreSQL at postgres://...: reachable" or "JSON file
// /path: ...".
func Describe(cfg *config.Config, where string) string {
	switch {
	case where == "":
		return "none: " + config.ErrNoHome.Error()
	case IsURL(where) && driver == nil:
		return fmt.Sprintf("PostgreSQL at %s: this guard has no PostgreSQL driver; guard-pg, installed beside it, runs such states", Redact(where))
	case IsURL(where):
		if err := driver.Ping(cfg, where); err != nil {
			return fmt.Sprintf("PostgreSQL at %s: not reachable: %s", Redact(where), view.ErrorLine(err))
		}
		return fmt.Sprintf("PostgreSQL at %s: reachable", Redact(where))
	}
	if _, err := os.Stat(where); err != nil {
		return fmt.Sprintf("JSON file %s: not there yet (the first run creates it)", view.Printable(Redact(where)))
	}
	return fmt.Sprintf("JSON file %s: present", view.Printable(Redact(where)))
}

// IsURL reports whether a state location names a PostgreSQL database: a
// postgres:// or postgresql:// URL.
func IsURL(s string) bool {
	return strings.HasPrefix(s, "postgres://") || strings.HasPrefix(s, "postgresql://")
}

// Redact hides the secrets of database URLs in a location or in text
// that holds some, for output: it is view.Redact, which every printed
// location and error goes through.
func Redact(where string) string { return view.Redact(where) }

// A Driver opens states kept in a database, by URL. The PostgreSQL driver
// (package internal/store/postgres) registers itself when it is linked in: into guard-pg,
// and not into guard, whose every call it would slow down (its packages
// double the binary and its start-up); guard hands a database state over
// to guard-pg (see NeedsDriverError).
type Driver struct {
	OpenHooks    func(cfg *config.Config, url string, o Options) (*Hooks, error)
	OpenCooldown func(cfg *config.Config, url string, actions []store.Action, o Options) (*Cooldown, error)
	Events       func(cfg *config.Config, url string) (store.Events, error)
	Ping         func(cfg *config.Config, url string) error
}

var driver *Driver

// Register makes d the database driver.
func Register(d *Driver) { driver = d }

// HasDriver reports whether a database driver is linked in.
func HasDriver() bool { return driver != nil }

// A NeedsDriverError is a state in a database, met by a guard built
// without the driver for it.
type NeedsDriverError struct{ URL string }

func (e *NeedsDriverError) Error() string {
	return fmt.Sprintf("the state %s is in PostgreSQL, which this guard was built without; guard-pg, installed beside it (go install ./cmd/...), runs such states", Redact(e.URL))
}
