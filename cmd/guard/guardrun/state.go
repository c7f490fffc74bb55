package guardrun

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"guard/config"
	"guard/internal/store"
	_ "guard/internal/store/file" // the backend of state files
	"guard/internal/supervise"
	"guard/internal/view"
)

// LoadConfigFrom loads the config at path (empty: the default), with the
// state file overridden by state if it is not empty.
func (e *Env) LoadConfigFrom(path, state string) (*config.Config, error) {
	return e.LoadConfigReading(path, state, nil)
}

// LoadConfigReading is loadConfigFrom, with a path of "-" read from stdin
// if stdin is not nil ('guard config check -').
func (e *Env) LoadConfigReading(path, state string, stdin io.Reader) (*config.Config, error) {
	return e.loadConfig(config.Options{Path: path, Stdin: stdin}, state)
}

// loadRunConfig is LoadConfigFrom for guard run, which keeps no budgets:
// the config's cooldown section is neither read nor checked (see
// config.Options.NoCooldown).
func (e *Env) loadRunConfig(path, state string) (*config.Config, error) {
	return e.loadConfig(config.Options{Path: path, NoCooldown: true}, state)
}

// loadConfig loads the config opts name, in this command's environment,
// with the state file overridden by state if it is not empty.
func (e *Env) loadConfig(opts config.Options, state string) (*config.Config, error) {
	opts.Getenv, opts.Environ = e.Getenv, e.Environ
	cfg, err := config.Load(opts)
	if err != nil {
		return nil, err
	}
	if state != "" {
		cfg.StateFile = state
	}
	return cfg, nil
}

// BackendOptions are how a backend reports to this command: as warnings,
// worded here.
func (e *Env) BackendOptions() store.Options {
	return store.Options{
		Quarantined: func(what, to string, cause error) {
			var se *store.SalvagedError
			if errors.As(cause, &se) {
				e.Warnf("%s did not parse (%s); moved it to %s and went on with %s", what, view.ErrorLine(cause), to, salvagedWords(what, se))
				return
			}
			e.Warnf("%s did not parse (%s); moved it to %s and started afresh", what, view.ErrorLine(cause), to)
		},
		SetAside: func(a store.Aside, keptIn string) {
			e.Warnf("the state of %q was malformed (%s); kept it in %s and started it afresh", a.Key, view.ErrorLine(a.Err), keptIn)
		},
		LogFailed: e.LogFailed,
		// A signal guard run passes on ends a wait for the state lock.
		Stop: e.Signalled,
		Host: e.hostName(),
	}
}

// hostName is Host(e.Getenv), asked of the system once (uname(2), for
// os.Hostname): guard run's backend and its leases both record it. (A
// plain field, not a sync.Once: an Env is copied by value into guard-cli's
// env, and both callers are on guard run's own goroutine.)
func (e *Env) hostName() string {
	if e.host == "" {
		e.host = Host(e.Getenv)
	}
	return e.host
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

// OpenHooks opens the hook state that cfg names. A state that does not
// parse is set aside by the first update, with a warning.
func (e *Env) OpenHooks(cfg *config.Config) (*store.Hooks, error) {
	h, err := store.OpenHooks(cfg, e.BackendOptions())
	if err != nil {
		return nil, e.Handoff(err)
	}
	h.Where = view.Printable(config.Redact(h.Where)) // for people: secrets hidden, escaped
	return h, nil
}

// LogFailed warns, once, that the event log could not be written.
func (e *Env) LogFailed(err error) {
	if !e.logWarned {
		e.logWarned = true
		e.Warnf("could not write the event log: %v", view.ErrorLine(err))
	}
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
	keys := many
	if se.Kept == 1 {
		keys = one
	}
	out := fmt.Sprintf("the %d %s it could read", se.Kept, keys)
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
