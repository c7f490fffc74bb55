package view

import (
	"fmt"
	"slices"
	"time"
	"unicode/utf8"

	"guard/config"
	"guard/internal/circuit"
	"guard/internal/jsonx"
	"guard/internal/store"
)

// EventFilter returns the test guard log applies to events: key and event
// are exact names or globs ("" for any), since and until a duration ago
// (1h) or an RFC 3339 time ("" for no bound). The key is read as guard run
// keys a command line, and as guard status and --json show keys (see
// circuit.ResolveKey); a glob matches a key as stored or as shown.
func EventFilter(key, event, since, until string, now time.Time) (func(*store.Event) bool, error) {
	keyOK, err := keyMatcher(key)
	if err != nil {
		return nil, err
	}
	eventOK, err := matcher("event", event)
	if err != nil {
		return nil, err
	}
	from, err := when("since", since, now)
	if err != nil {
		return nil, err
	}
	to, err := when("until", until, now)
	if err != nil {
		return nil, err
	}
	return func(ev *store.Event) bool {
		return keyOK(ev.Key) && eventOK(ev.Event) &&
			(from.IsZero() || !ev.Time.Before(from)) && (to.IsZero() || ev.Time.Before(to))
	}, nil
}

// keyMatcher returns a test of event keys for a --key.
func keyMatcher(arg string) (func(string) bool, error) {
	if arg == "" || !config.IsGlob(arg) {
		names := map[string]bool{}
		for _, k := range keyReadings(arg) {
			names[k] = true
		}
		return func(k string) bool { return arg == "" || names[k] }, nil
	}
	re, err := config.Glob(arg)
	if err != nil {
		return nil, fmt.Errorf("--key: %v", err)
	}
	stored, err := config.Glob(circuit.ValidKey(arg))
	if err != nil {
		return nil, fmt.Errorf("--key: %v", err)
	}
	return func(k string) bool { return stored.MatchString(k) || re.MatchString(k) || re.MatchString(Printable(k)) }, nil
}

// keyReadings returns the stored keys a KEY argument may name: as guard run
// keys it, as typed, and as status shows it escaped (see
// circuit.ResolveKey).
func keyReadings(arg string) []string {
	keys := []string{circuit.ValidKey(arg)}
	if utf8.ValidString(arg) && arg != keys[0] {
		keys = append(keys, arg)
	}
	if u, ok := circuit.Unescape(arg); ok && !slices.Contains(keys, circuit.ValidKey(u)) {
		keys = append(keys, circuit.ValidKey(u))
	}
	return keys
}

// matcher returns a test for an exact name or a glob.
func matcher(flag, pattern string) (func(string) bool, error) {
	if pattern == "" {
		return func(string) bool { return true }, nil
	}
	if !config.IsGlob(pattern) {
		return func(s string) bool { return s == pattern }, nil
	}
	re, err := config.Glob(pattern)
	if err != nil {
		return nil, fmt.Errorf("--%s: %v", flag, err)
	}
	return re.MatchString, nil
}

// when parses a --since or --until value.
func when(flag, v string, now time.Time) (time.Time, error) {
	if v == "" {
		return time.Time{}, nil
	}
	if d, err := config.ParseDuration(v); err == nil {
		return now.Add(-d), nil
	}
	if t, err := jsonx.ParseTime(v); err == nil {
		return t, nil
	}
	return time.Time{}, fmt.Errorf("--%s %q is neither a duration (1h) nor an RFC 3339 time", flag, v)
}

// EventQuery is EventFilter as a store.Query, with limit and offset: an
// exact key or name and the bounds go in the fields a database answers on
// the server, and only globs are left to Keep.
func EventQuery(key, event, since, until string, limit, offset int, now time.Time) (store.Query, error) {
	keep, err := EventFilter(key, event, since, until, now)
	if err != nil {
		return store.Query{}, err
	}
	q := store.Query{Keep: keep, Limit: limit, Offset: offset}
	if key != "" && !config.IsGlob(key) {
		q.Keys = keyReadings(key)
	}
	if event != "" && !config.IsGlob(event) {
		q.Events = []string{event}
	}
	q.Since, _ = when("since", since, now)
	q.Until, _ = when("until", until, now)
	return q, nil
}
