package main

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode"

	"github.com/urfave/cli/v2"

	"guard/config"
	"guard/eventlog"
	"guard/hookstate"
	"guard/runproto"
	"guard/statefile"
)

// loadConfig loads the configuration for a command, honouring its --config
// and --state flags.
func (e *env) loadConfig(c *cli.Context) (*config.Config, error) {
	return e.loadConfigFrom(c.String("config"), c.String("state"))
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

// openStore opens the hook state file that cfg names. A state file that
// does not parse is moved aside by the first update, with a warning.
func (e *env) openStore(cfg *config.Config) (*hookstate.Store, error) {
	if cfg.StateFile == "" {
		return nil, config.ErrNoHome
	}
	s, err := hookstate.Open(cfg.StateFile, statefile.Options{
		LockTimeout: cfg.LockTimeout,
		OnQuarantine: func(to string, cause error) {
			e.warnf("state file did not parse (%s); moved it to %s and started afresh", shortErr(cause), to)
		},
	}, cfg.CircuitBreaker.Retention, eventLog(cfg, cfg.StateFile), e.logFailed)
	if err != nil {
		return nil, err
	}
	s.OnSetAside = func(a hookstate.Aside, quarantine string) {
		e.warnf("the state of %q was malformed (%s); kept it in %s and started it afresh", printable(a.Key), shortErr(a.Err), quarantine)
	}
	return s, nil
}

// eventLog returns the event log for the state file at statePath.
func eventLog(cfg *config.Config, statePath string) *eventlog.Log {
	return &eventlog.Log{Path: cfg.EventLog(statePath), MaxSize: cfg.Logging.MaxSize, MaxFiles: cfg.Logging.MaxFiles}
}

// logFailed warns, once, that the event log could not be written.
func (e *env) logFailed(err error) {
	if !e.logWarned {
		e.logWarned = true
		e.warnf("could not write the event log: %v", oneLine(err))
	}
}

// snapshot reads the state for a command that only reads it.
func (e *env) snapshot(c *cli.Context) (*config.Config, *hookstate.Store, *hookstate.Document, error) {
	cfg, err := e.loadConfig(c)
	if err != nil {
		return nil, nil, nil, err
	}
	store, err := e.openStore(cfg)
	if err != nil {
		return nil, nil, nil, err
	}
	doc, err := store.Snapshot()
	if errors.Is(err, statefile.ErrCorrupt) {
		return nil, nil, nil, fmt.Errorf("%w; the next guard run or reset will move it aside", err)
	}
	if err != nil {
		return nil, nil, nil, fmt.Errorf("cannot read state: %w", err)
	}
	return cfg, store, doc, nil
}

// unknownKey explains that key has no state, suggesting keys that look like
// what the user meant.
func unknownKey(key string, doc *hookstate.Document) error {
	var near []string
	for _, k := range doc.Keys() {
		if strings.Contains(k, key) || strings.Contains(key, k) {
			near = append(near, runproto.KeyArg(k))
		}
	}
	msg := fmt.Sprintf("no state for key %q", key)
	if len(near) > 0 && len(near) <= 5 {
		msg += "; did you mean " + strings.Join(near, " or ") + "?"
	} else if doc.Len() > 0 {
		msg += "; 'guard status' lists the keys"
	}
	return errors.New(msg)
}

// shortErr keeps the message of a decoding error to one readable line.
func shortErr(err error) string {
	msg := err.Error()
	if i := strings.IndexByte(msg, '\n'); i >= 0 {
		msg = msg[:i]
	}
	if len(msg) > 200 {
		msg = msg[:200] + "..."
	}
	return msg
}

// printable escapes what a terminal would act on (newlines, escape
// sequences, other control characters) in text that comes from outside,
// such as a key, so that it prints as one line of plain text.
func printable(s string) string {
	clean := true
	for _, r := range s {
		if unicode.IsControl(r) {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if !unicode.IsControl(r) {
			b.WriteRune(r)
			continue
		}
		q := strconv.QuoteRune(r)
		b.WriteString(q[1 : len(q)-1])
	}
	return b.String()
}
