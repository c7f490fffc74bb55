package config

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
)

// CheckStateLocation refuses a state location that is not a postgres://
// URL but was surely meant to name a database, rather than let guard
// create a file of that name: a URL of another scheme (mysql://,
// POSTGRES://), a postgres: with no "//", or a keyword/value connection
// string ("host=db dbname=guard"), which guard does not take. A file
// really named so can still be given as ./host=db. White space at either
// end is refused too: " postgres://..." would be a file; so is a scheme
// with a space in it ("postgres ://x/y", "a b://x"), a postgres URL with
// no colon ("postgres//x/y"), and any relative path with "://" in it,
// which would be a tree of directories in the hook's working directory.
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
	if scheme, rest, ok := strings.Cut(where, "://"); ok && !strings.Contains(scheme, "/") {
		l := strings.ToLower(scheme)
		switch {
		case strings.ContainsAny(scheme, " \t"):
			// "postgres ://x/y", "a b://x": a URL with a stray space, or
			// a path no one means (a directory "a b:" in the hook's
			// working directory: relative paths with "://" are not taken
			// relative to guardrails.yaml). The message shows the URL as
			// it should be written, its password masked; another
			// scheme, only its scheme.
			if w := strings.Join(strings.Fields(l), ""); w == "postgres" || w == "postgresql" {
				return fmt.Errorf(`a space before "://" (%q): write %s`, scheme, Redact(w+"://"+rest))
			}
			return fmt.Errorf("%q:// is not a URL guard can use (a space in its scheme?): guard keeps its state in a file, or in PostgreSQL named by a postgres:// URL", scheme)
		case l == "postgres" || l == "postgresql":
			return fmt.Errorf("%s:// must be written in lower case, %s://", scheme, l)
		}
		return fmt.Errorf("%s:// is not a URL guard can use: it keeps its state in a file, or in PostgreSQL named by a postgres:// URL", scheme)
	}
	if strings.HasPrefix(lower, "postgres:") || strings.HasPrefix(lower, "postgresql:") {
		return fmt.Errorf("%q is not a postgres:// URL: write postgres://USER@HOST:PORT/DBNAME", Redact(where))
	}
	if scheme, _, ok := strings.Cut(lower, "//"); ok && (scheme == "postgres" || scheme == "postgresql") {
		return fmt.Errorf("%s// is not a postgres:// URL (its colon is missing): write %s", where[:len(scheme)], Redact(scheme+"://"+where[len(scheme)+2:]))
	}
	if before, _, ok := strings.Cut(where, "://"); ok && !filepath.IsAbs(where) && !strings.HasPrefix(where, "~/") {
		// "dir/a://b": relative, it would be made in whatever directory
		// a hook runs in, as guardrails.yaml's relative paths are not.
		return fmt.Errorf(`%q is not a URL guard can use, and a relative path with "://" in it is not taken: give a postgres:// URL, or the file's absolute path`, before+"://...")
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
