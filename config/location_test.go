package config

import (
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
