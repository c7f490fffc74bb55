package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCheckStateLocation(t *testing.T) {
	for _, c := range []struct {
		where, err string // err: "" when the location is taken
	}{
		{"/home/u/.claude/hook_state.json", ""},
		{"state.json", ""},
		{"~/.claude/hook_state.json", ""},
		{"./host=db", ""},
		{"hostname=db.json", ""}, // not a libpq keyword
		{"/srv/a://b", ""},       // a path with :// further on
		{"postgres://guard@db:5432/guard", ""},
		{"postgresql://db/guard?sslmode=disable", ""},
		{"host=db dbname=guard", `"host=db dbname=guard" looks like a PostgreSQL connection string`},
		{"  dbname = guard", "looks like a PostgreSQL connection string"},
		{"user=u password=sekrit host=db", `"user=u password=xxxxx host=db"`},
		{"mysql://u@db/x", "mysql:// is not a URL guard can use"},
		{"file:///tmp/state.json", "file:// is not a URL guard can use"},
		{"POSTGRES://db/guard", "POSTGRES:// must be written in lower case, postgres://"},
		{"Postgresql://db/guard", "must be written in lower case, postgresql://"},
		{"postgres:/db/guard", `"postgres:/db/guard" is not a postgres:// URL`},
		{"postgresql:guard", "is not a postgres:// URL"},
		// h13 m3: a space before "://", a missing colon, a relative path
		// with :// further on: each would be a tree of directories in the
		// hook's working directory.
		{"postgres ://x/y", `a space before "://" ("postgres "): write postgres://x/y`},
		{"postgresql  ://u:sekrit@x/y", `a space before "://" ("postgresql  "): write postgresql://u:xxxxx@x/y`},
		{"Postgres ://x/y", `write postgres://x/y`},
		{"a b://x", `"a b":// is not a URL guard can use (a space in its scheme?)`},
		{"a b://u:sekrit@x", `"a b":// is not a URL guard can use`},
		{"postgres//x/y", `postgres// is not a postgres:// URL (its colon is missing): write postgres://x/y`},
		{"postgresql//u:sekrit@h/db", `write postgresql://u:xxxxx@h/db`},
		{"POSTGRES//h/db", `POSTGRES// is not a postgres:// URL (its colon is missing): write postgres://h/db`},
		{"dir/a://b", `"dir/a://..." is not a URL guard can use, and a relative path with "://" in it is not taken`},
		{"./a b://u:sekrit@x", `a relative path with "://" in it is not taken`},
		{"/srv/a b://x", ""},
		{"~/a://b", ""},
		{"postgres/x/y", ""}, // a directory named postgres
	} {
		err := CheckStateLocation(c.where)
		switch {
		case c.err == "" && err != nil:
			t.Errorf("CheckStateLocation(%q) = %v; want it taken", c.where, err)
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("CheckStateLocation(%q) = %v; want %q", c.where, err, c.err)
		case err != nil && strings.Contains(err.Error(), "sekrit"):
			t.Errorf("CheckStateLocation(%q) shows the password: %v", c.where, err)
		}
	}
}

// TestUnsetVariableInAPathIsAnError covers hostile-user-2 M6: a path built
// from a variable that is not set would be relative, and put a state in
// every directory a hook runs in. Every place a path is given is checked,
// and the error names where the path came from.
func TestUnsetVariableInAPathIsAnError(t *testing.T) {
	home := t.TempDir()
	tests := []struct {
		name, yaml string
		env        []string
		want       string // in the error; "" for none
	}{
		{"state_file", "state_file: $XDG_STATE_HOME/guard/state.json\n", nil, "guardrails.yaml:1: state_file: $XDG_STATE_HOME is not set"},
		{"braces", "state_file: ${XDG_STATE_HOME}/guard/state.json\n", nil, "$XDG_STATE_HOME is not set"},
		{"event_log", "logging:\n  event_log: $NOPE/ev.jsonl\n", nil, "guardrails.yaml:2: logging.event_log: $NOPE is not set"},
		{"logging.file", "logging:\n  file: $NOPE/x.log\n", nil, "logging.file: $NOPE is not set"},
		{"cooldown", "cooldown:\n  state_file: $A/$B.json\n", nil, "cooldown.state_file: $A, $B are not set"},
		{"set to empty", "state_file: $EMPTY/s.json\n", []string{"EMPTY="}, "state_file: $EMPTY is empty, so"},
		{"unset and empty", "state_file: $A/$EMPTY/$B/$A.json\n", []string{"EMPTY="}, "state_file: $A, $B are not set and $EMPTY is empty, so"},
		{"empty, with - default", "state_file: ${EMPTY-/var/state}/s.json\n", []string{"EMPTY="}, "$EMPTY is empty"},
		{"unset default", "state_file: ${XDG_STATE_HOME:-$NOPE/.local/state}/guard/state.json\n", nil, "state_file: $NOPE is not set"},
		{"unclosed", "state_file: ${XDG_STATE_HOME/guard/state.json\n", []string{"XDG_STATE_HOME=/var/state"}, `state_file: "${XDG_STATE_HOME/guard/state.json" has no closing }`},
		{"other form", "state_file: ${XDG_STATE_HOME:=/x}/guard/state.json\n", []string{"XDG_STATE_HOME=/var/state"}, "${XDG_STATE_HOME:=/x} is not a form guard can expand"},
		{"~user", "state_file: ~root/x.json\n", nil, "guardrails.yaml:1: state_file: ~root: guard expands ~ (your home, $HOME) but not ~USER"},
		{"~user in GUARD_STATE", "", []string{"GUARD_STATE=~root/x.json"}, "GUARD_STATE: ~root: guard expands ~"},
		{"~user in GUARD_COOLDOWN_STATE", "", []string{"GUARD_COOLDOWN_STATE=~nobody"}, "GUARD_COOLDOWN_STATE: ~nobody: guard expands ~"},
		{"~user in event_log", "logging:\n  event_log: ~root/e.jsonl\n", nil, "guardrails.yaml:2: logging.event_log: ~root:"},
		{"GUARD_STATE", "", []string{"GUARD_STATE=$UNSET/x.json"}, "GUARD_STATE: $UNSET is not set"},
		{"GUARD_COOLDOWN_STATE", "", []string{"GUARD_COOLDOWN_STATE=${UNSET}/c.json"}, "GUARD_COOLDOWN_STATE: $UNSET is not set"},
		{"GUARDRAILS_STATE_FILE", "", []string{"GUARDRAILS_STATE_FILE=$UNSET/x.json"}, "GUARDRAILS_STATE_FILE: $UNSET is not set"},
		{"GUARDRAILS_LOGGING_EVENT_LOG", "", []string{"GUARDRAILS_LOGGING_EVENT_LOG=$UNSET/e.jsonl"}, "GUARDRAILS_LOGGING_EVENT_LOG: $UNSET is not set"},
		{"expands to a database URL with a space", "state_file: $DB\n", []string{"DB= postgres://h/db"}, "white space around"},
		{"set", "state_file: $XDG_STATE_HOME/guard/state.json\n", []string{"XDG_STATE_HOME=/var/state"}, ""},
		{"default, set", "state_file: ${XDG_STATE_HOME:-$HOME/.local/state}/guard/state.json\n", []string{"XDG_STATE_HOME=/var/state"}, ""},
		{"default, unset", "state_file: ${XDG_STATE_HOME:-/var/state}/guard/state.json\n", nil, ""},
		{"default, empty", "state_file: ${XDG_STATE_HOME:-/var/state}/guard/state.json\n", []string{"XDG_STATE_HOME="}, ""},
		{"- default, unset", "state_file: ${XDG_STATE_HOME-/var/state}/guard/state.json\n", nil, ""},
		{"nested default", "state_file: ${A:-${B:-/var/state}}/guard/state.json\n", []string{"A="}, ""},
		{"default from a variable", "state_file: ${XDG_STATE_HOME:-$S}/guard/state.json\n", []string{"S=/var/state"}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "guardrails.yaml")
			os.WriteFile(path, []byte(tc.yaml), 0o600)
			cfg, err := Load(testOptions(home, path, tc.env...))
			if tc.want == "" {
				if err != nil || cfg.StateFile != "/var/state/guard/state.json" {
					t.Fatalf("Load = %v, %v; want state /var/state/guard/state.json", cfg, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) || !errors.Is(err, ErrInvalid) {
				t.Fatalf("Load = %v; want an invalid-config error with %q", err, tc.want)
			}
		})
	}
}

// A config file named with a variable that is not set, or with ~USER, is
// named as it was written in the error (it was "config file : ...").
func TestConfigPathExpansionErrorNamesIt(t *testing.T) {
	for _, tc := range []struct{ env, want string }{
		{"GUARD_CONFIG=${NOPE}/g.yaml", "config file ${NOPE}/g.yaml: $NOPE is not set"},
		{"GUARD_CONFIG=~root/g.yaml", "config file ~root/g.yaml: ~root: guard expands ~"},
	} {
		_, err := Load(testOptions(t.TempDir(), "", tc.env))
		if err == nil || !strings.Contains(err.Error(), tc.want) || !errors.Is(err, ErrInvalid) {
			t.Errorf("%s: Load = %v; want an invalid-config error with %q", tc.env, err, tc.want)
		}
	}
}

// A variable that expands to a relative path is relative to
// guardrails.yaml, as a relative path written out is.
func TestExpandedRelativePathIsRelativeToTheFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "guardrails.yaml")
	os.WriteFile(path, []byte("state_file: $SUB/state.json\n"), 0o600)
	cfg, err := Load(testOptions(t.TempDir(), path, "SUB=rel"))
	if err != nil || cfg.StateFile != filepath.Join(dir, "rel", "state.json") {
		t.Fatalf("Load = %v, %v; want the state in %s", cfg.StateFile, err, filepath.Join(dir, "rel"))
	}
}

// A state location with white space around it (hostile-user-2 m3) is
// refused, never made a file named " postgres:/x/y" in the working
// directory.
func TestLocationWithSpacesIsRefused(t *testing.T) {
	if err := CheckStateLocation("-"); err == nil {
		t.Error(`CheckStateLocation("-") = nil; want it refused`)
	}
	for _, where := range []string{" postgres://x/y", "postgres://x/y ", "\tpostgres://u:secret@x/y", " state.json", "state.json\n"} {
		err := CheckStateLocation(where)
		if err == nil || !strings.Contains(err.Error(), "white space") || strings.Contains(err.Error(), "secret") {
			t.Errorf("CheckStateLocation(%q) = %v; want a white space error without the password", where, err)
		}
	}
}

// h13 m3: a location in guardrails.yaml, written out or from a variable,
// is checked as written, not once joined to the file's directory (where
// "postgres ://h/db" would pass for an absolute path); and a path with
// "://" in it that is no database URL (an event log) is relative to the
// file, as any other relative path, never to wherever a hook runs.
func TestLocationInTheFileIsCheckedAsWritten(t *testing.T) {
	home := t.TempDir()
	for _, tc := range []struct{ yaml, env, want string }{
		{"state_file: postgres ://h/db\n", "", `guardrails.yaml:1: state_file: a space before "://"`},
		{"state_file: $DB\n", "DB=postgres ://h/db", `guardrails.yaml:1: state_file: a space before "://"`},
		{"state_file: $DB\n", "DB=postgresql//h/db", `its colon is missing`},
		{"cooldown:\n  state_file: $DB\n", "DB=a b://x", `cooldown.state_file: "a b":// is not a URL`},
		{"state_file: $DB\n", "DB=-", `"-" is not a state location`},
	} {
		path := filepath.Join(t.TempDir(), "guardrails.yaml")
		os.WriteFile(path, []byte(tc.yaml), 0o600)
		_, err := Load(testOptions(home, path, tc.env))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q with %s: Load = %v; want %q", tc.yaml, tc.env, err, tc.want)
		}
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "guardrails.yaml")
	os.WriteFile(path, []byte("logging:\n  event_log: a://b.jsonl\n"), 0o600)
	cfg, err := Load(testOptions(home, path))
	if want := filepath.Join(dir, "a:/b.jsonl"); err != nil || cfg.Logging.EventLog != want {
		t.Errorf("event_log a://b.jsonl: Load = %q, %v; want %q, beside the file", cfg.Logging.EventLog, err, want)
	}
}
