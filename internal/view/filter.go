package view

import (
	"fmt"
	"time"

	"guard/config"
	"guard/internal/jsonx"
	"guard/internal/store"
)

// EventFilter returns the test guard log applies to events: key and event
// are exact names or globs ("" for any), since and until a duration ago
// (1h) or an RFC 3339 time ("" for no bound).
func EventFilter(key, event, since, until string, now time.Time) (func(*store.Event) bool, error) {
	keyOK, err := matcher("key", key)
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
		q.Keys = []string{key}
	}
	if event != "" && !config.IsGlob(event) {
		q.Events = []string{event}
	}
	q.Since, _ = when("since", since, now)
	q.Until, _ = when("until", until, now)
	return q, nil
}
