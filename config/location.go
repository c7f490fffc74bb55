package config

import (
	"fmt"
	"slices"
	"strings"
)

// CheckStateLocation refuses a state location that is not a postgres://
// URL but was surely meant to name a database, rather than let guard
// create a file of that name: a URL of another scheme (mysql://,
// POSTGRES://), a postgres: with no "//", or a keyword/value connection
// string ("host=db dbname=guard"), which guard does not take. A file
// really named so can still be given as ./host=db. White space at either
// end is refused too: " postgres://..." would be a file.
func CheckStateLocation(where string) error {
	if where == "-" {
		return fmt.Errorf(`"-" is not a state location (a state is a file or a database, never standard input or output; a file really named so is ./-)`)
	}
	if t := strings.TrimSpace(where); t != where && !isConnString(t) {
		return fmt.Errorf("white space around %q (a stray space in the setting?)", Redact(t))
	}
	if IsDatabaseURL(where) {
		return nil
	}
	lower := strings.ToLower(where)
	if scheme, _, ok := strings.Cut(where, "://"); ok && !strings.ContainsAny(scheme, "/ ") {
		if l := strings.ToLower(scheme); l == "postgres" || l == "postgresql" {
			return fmt.Errorf("%s:// must be written in lower case, %s://", scheme, l)
		}
		return fmt.Errorf("%s:// is not a URL guard can use: it keeps its state in a file, or in PostgreSQL named by a postgres:// URL", scheme)
	}
	if strings.HasPrefix(lower, "postgres:") || strings.HasPrefix(lower, "postgresql:") {
		return fmt.Errorf("%q is not a postgres:// URL: write postgres://USER@HOST:PORT/DBNAME", Redact(where))
	}
	if isConnString(where) {
		return fmt.Errorf("%q looks like a PostgreSQL connection string: guard takes postgres://USER@HOST:PORT/DBNAME (and a file named so as ./...)", Redact(where))
	}
	return nil
}

// connKeywords are libpq's connection keywords that a connection string
// starts with in practice.
var connKeywords = []string{"host", "hostaddr", "port", "dbname", "user", "password", "passfile",
	"sslmode", "service", "connect_timeout", "application_name", "options", "target_session_attrs"}

// isConnString reports whether s starts like a keyword/value connection
// string: a libpq keyword, then "=".
func isConnString(s string) bool {
	s = strings.TrimLeft(s, " ")
	i := strings.IndexByte(s, '=')
	return i > 0 && slices.Contains(connKeywords, strings.TrimRight(s[:i], " "))
}

// IsDatabaseURL reports whether a state location names a PostgreSQL
// database: a postgres:// or postgresql:// URL.
func IsDatabaseURL(s string) bool {
	return strings.HasPrefix(s, "postgres://") || strings.HasPrefix(s, "postgresql://")
}
