package store

import (
	"fmt"
	"os"
	"sort"

	"guard/config"
)

// Options are how a backend reports to the command that opened it: things
// worth a warning that are not errors of the call.
type Options struct {
	// Quarantined hears of a whole state that did not parse, moved to to
	// and started afresh, or, if cause is a *SalvagedError, with what could
	// be read of it. what names the state ("state file", "cooldown
	// state").
	Quarantined func(what, to string, cause error)
	// SetAside hears of one key's entry that did not check out, kept in
	// keptIn and started afresh (see Aside).
	SetAside func(a Aside, keptIn string)
	// LogFailed hears of an event log that could not be written.
	LogFailed func(error)
	// Stop, if set, is asked while an update waits for the state's lock;
	// once it reports true the update gives up (see statefile.Options).
	Stop func() bool
	// Host is this host's name, which the backend writes into each event
	// it logs that does not name one (Event.Host); "": none.
	Host string
}

// Hooks is the state of the hooks' circuits, as a backend keeps it.
type Hooks struct {
	Circuits   Circuits
	Runs       Runs
	Events     Events // this state's event log
	Checkpoint Checkpoint
	Where      string // where the state is, for people (a password masked)
}

// Cooldown is the state of the services' action budgets.
type Cooldown struct {
	Budgets    Budgets
	Actions    []Action // the configured actions, by name
	Events     Events
	Checkpoint Checkpoint
	Where      string
}

// A Backend opens the states kept at one kind of location. The JSON file
// backend (package store/file) registers itself for paths, and the
// PostgreSQL backend (package store/postgres) for postgres:// URLs, when
// they are linked in.
type Backend struct {
	OpenHooks    func(cfg *config.Config, where string, o Options) (*Hooks, error)
	OpenCooldown func(cfg *config.Config, where string, actions []Action, o Options) (*Cooldown, error)
	// Events opens the event log of the state at where, for reading.
	Events func(cfg *config.Config, where string) (Events, error)
	// Ping reports whether the state at where can be reached and used.
	Ping func(cfg *config.Config, where string) error
	// Init creates what the state at where needs (a database's tables),
	// as an administrator, and lets role (if not "") use it. nil: the
	// backend creates its state on first use.
	Init func(cfg *config.Config, where, role string) error
	// Advice returns what is worth a warning in how where is reached (a
	// database's connection in the clear, say).
	Advice func(where string) []string
}

// The kinds of location a Backend registers for.
const (
	KindFile     = "file"     // a path
	KindPostgres = "postgres" // a postgres:// or postgresql:// URL
)

var backends = map[string]*Backend{}

// Register makes b the backend of the locations of kind. It is called from
// the backend's init, so it is not safe for concurrent use.
func Register(kind string, b *Backend) { backends[kind] = b }

// HasBackend reports whether the backend for kind is linked in.
func HasBackend(kind string) bool { return backends[kind] != nil }

// Kind returns the kind of location where is.
func Kind(where string) string {
	if config.IsDatabaseURL(where) {
		return KindPostgres
	}
	return KindFile
}

// backendFor returns the backend of where, or a NeedsDriverError.
func backendFor(where string) (*Backend, error) {
	kind := Kind(where)
	if b := backends[kind]; b != nil {
		return b, nil
	}
	if kind == KindPostgres {
		return nil, &NeedsDriverError{where}
	}
	return nil, fmt.Errorf("no backend for %s is linked in", kind)
}

// OpenHooks opens the hook state cfg names: a PostgreSQL database if
// state_file is a postgres:// URL, else the JSON file.
func OpenHooks(cfg *config.Config, o Options) (*Hooks, error) {
	if cfg.StateFile == "" {
		return nil, config.ErrNoHome
	}
	b, err := backendFor(cfg.StateFile)
	if err != nil {
		return nil, err
	}
	return b.OpenHooks(cfg, cfg.StateFile, o)
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
	b, err := backendFor(path)
	if err != nil {
		return nil, err
	}
	return b.OpenCooldown(cfg, path, ActionList(cfg), o)
}

// CooldownExists reports whether there is cooldown state to report on: a
// database, or a file that exists.
func CooldownExists(cfg *config.Config) bool {
	if Kind(cfg.Cooldown.StateFile) != KindFile {
		return true
	}
	_, err := os.Stat(cfg.Cooldown.StateFile)
	return cfg.Cooldown.StateFile != "" && err == nil
}

// AllEvents returns the event logs of the hook state and the cooldown
// state, read as one. A state in a database logs to its table; a database
// that cannot be reached gives the error.
func AllEvents(cfg *config.Config) (Events, error) {
	var all multiEvents
	for _, where := range []string{cfg.StateFile, cfg.Cooldown.StateFile} {
		if where == "" {
			continue
		}
		b, err := backendFor(where)
		if err != nil {
			return nil, err
		}
		events, err := b.Events(cfg, where)
		if err != nil {
			return nil, err
		}
		all = append(all, events)
	}
	return all.merged(), nil
}

// multiEvents reads several event logs as one, in time order.
type multiEvents []Events

// merged lets a backend whose logs can be read together (the same file
// twice, one database for both states) read them once.
func (m multiEvents) merged() Events {
	var out multiEvents
	for _, e := range m {
		merged := false
		for i, o := range out {
			if j, ok := o.(Joiner); ok {
				if joined, ok := j.Join(e); ok {
					out[i], merged = joined, true
					break
				}
			}
		}
		if !merged {
			out = append(out, e)
		}
	}
	if len(out) == 1 {
		return out[0]
	}
	return out
}

func (m multiEvents) Read(keep func(*Event) bool) (ReadResult, error) {
	return m.Query(Query{Keep: keep})
}

// Query asks each log for q's events (each cut to q's limit: no more can
// be among the most recent of all), then merges and cuts them.
func (m multiEvents) Query(q Query) (ReadResult, error) {
	var res ReadResult
	each := q
	each.Offset = 0
	if q.Limit > 0 {
		each.Limit = q.Limit + q.Offset
	}
	for _, e := range m {
		r, err := Select(e, each)
		if err != nil {
			return res, err
		}
		res.Events = append(res.Events, r.Events...)
		res.Malformed += r.Malformed
	}
	sort.SliceStable(res.Events, func(i, j int) bool { return res.Events[i].Time.Before(res.Events[j].Time) })
	res.Events = q.Cut(res.Events)
	return res, nil
}

// Tail tails every log when each can be tailed (see Tailer); nil if one
// cannot.
func (m multiEvents) Tail(keep func(*Event) bool) Tail {
	var t multiTail
	for _, e := range m {
		tl, ok := e.(Tailer)
		if !ok {
			return nil
		}
		t = append(t, tl.Tail(keep))
	}
	return t
}

// multiTail tails several logs as one.
type multiTail []Tail

func (m multiTail) Next(fn func(*Event)) error {
	for _, t := range m {
		if err := t.Next(fn); err != nil {
			return err
		}
	}
	return nil
}

// A Joiner is an Events that can take in another backend's Events when
// both are one log (the same file, the same database), so that reading
// them together reads each event once.
type Joiner interface {
	Join(other Events) (Events, bool)
}

// ActionList returns the configured actions, sorted by name.
func ActionList(cfg *config.Config) []Action {
	var actions []Action
	for name, a := range cfg.Cooldown.Actions {
		actions = append(actions, Action{Name: name, Field: a.Field, Limit: a.Limit, Window: a.Window, Timestamps: a.Timestamps})
	}
	sort.Slice(actions, func(i, j int) bool { return actions[i].Name < actions[j].Name })
	return actions
}

// Ping reports whether the state at where can be reached.
func Ping(cfg *config.Config, where string) error {
	b, err := backendFor(where)
	if err != nil {
		return err
	}
	if b.Ping == nil {
		return nil
	}
	return b.Ping(cfg, where)
}

// Init creates what the state at where needs, as an administrator, and
// lets role (if not "") use it; see Backend.Init. It reports false if the
// backend has nothing to create.
func Init(cfg *config.Config, where, role string) (bool, error) {
	b, err := backendFor(where)
	if err != nil {
		return false, err
	}
	if b.Init == nil {
		return false, nil
	}
	return true, b.Init(cfg, where, role)
}

// Advice returns what is worth a warning in how the state at where is
// reached; see Backend.Advice.
func Advice(where string) []string {
	b, err := backendFor(where)
	if err != nil || b.Advice == nil {
		return nil
	}
	return b.Advice(where)
}

// A NeedsDriverError is a state in a database, met by a guard built
// without the backend for it. guard itself is built without the
// PostgreSQL backend, whose packages double the binary and its start-up:
// it hands such a state over to guard-pg, which has it.
type NeedsDriverError struct{ URL string }

func (e *NeedsDriverError) Error() string {
	return fmt.Sprintf("the state %s is in PostgreSQL, which this guard was built without; guard-pg, installed beside it (go install ./cmd/...), runs such states", config.Redact(e.URL))
}
