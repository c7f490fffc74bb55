package config

import (
	"net/url"
	"regexp"
	"strings"
	"sync"
)

// Masked is what Redact writes in place of a secret.
const Masked = "xxxxx"

// Redact hides the secrets of every database location in s, which may be a
// location itself (a state_file, GUARD_STATE) or text that holds some (an
// error, a warning): in each postgres: or postgresql: URL (any case, with
// or without "//"), the password of its user part and the value of every
// query parameter that carries a secret (password, sslpassword, and any
// other whose name says pass, secret or token); and elsewhere, as in a
// keyword/value connection string, the value of such a keyword
// (password=, sslpassword=). It works on
// URLs that do not parse too (a "#", a space or a bad "%" escape in the
// password): the user part runs to the URL's last "@". A URL in quotes
// ("...", '...', `...`) ends at the closing quote, one in the open at a
// space, or at the word that holds its "@" if its password has spaces.
//
// Redact is the one place guard hides secrets: every location it prints,
// and every error or warning line, goes through it.
func Redact(s string) string {
	if t := strings.TrimLeft(s, " \t"); isLocation(t) {
		// A location on its own: all of it is the URL, spaces and all.
		n := len(s) - len(t)
		i := strings.IndexByte(t, ':') + 1
		return s[:n+i] + redactURLBody(t[i:])
	}
	return redactKeywords(redactURLs(s))
}

// redactURLs hides the secrets of the PostgreSQL URLs in text.
func redactURLs(s string) string {
	if !containsFold(s, "postgres") {
		// No URL to look for: the common case (a path, a warning), which
		// need not compile and run schemeRE.
		return s
	}
	locs := schemeRE().FindAllStringIndex(s, -1)
	if len(locs) == 0 {
		return s
	}
	var b strings.Builder
	last := 0
	for _, loc := range locs {
		start, body := loc[0], loc[1]
		if start < last {
			continue // inside the URL before
		}
		end := urlEnd(s, start, body)
		b.WriteString(s[last:body])
		b.WriteString(redactURLBody(s[body:end]))
		last = end
	}
	b.WriteString(s[last:])
	return b.String()
}

// secretWords are the words that make a name carry a secret, in a URL's
// query parameter (?sslpassword=) and in a keyword/value connection string
// or a command line quoted in a message (db_pwd=): the one list both
// readers use (keywordRE, secretParam).
var secretWords = []string{"pass", "pwd", "secret", "token"}

// keywordRE matches name=value where the name holds a secret word, the
// value in single quotes (with backslash escapes) or up to a space, a quote
// or an "&".
var keywordRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)(^|[^A-Za-z0-9_])([a-z_]*(?:` + strings.Join(secretWords, "|") + `)[a-z_]*)=('(?:[^'\\]|\\.)*'?|[^\s"'` + "`" + `&]*)`)
})

// redactKeywords hides the values of the keywords in text that carry a
// secret, as a keyword/value connection string quoted in a message has
// them ("host=db sslpassword=x").
func redactKeywords(s string) string {
	if !strings.Contains(s, "=") {
		return s
	}
	return keywordRE().ReplaceAllStringFunc(s, func(m string) string {
		sub := keywordRE().FindStringSubmatch(m)
		value := sub[3]
		end := trimPunct(value, 0, len(value)) // punctuation after it is the sentence's
		if !secretParam(sub[2]) || end == 0 || value[:end] == Masked {
			return m
		}
		return sub[1] + sub[2] + "=" + Masked + value[end:]
	})
}

// isLocation reports whether s is a PostgreSQL URL on its own, not text
// that holds one.
func isLocation(s string) bool {
	lower := strings.ToLower(s)
	return (strings.HasPrefix(lower, "postgres:") || strings.HasPrefix(lower, "postgresql:")) &&
		!strings.ContainsAny(s, "\n\r\"'`") && !strings.Contains(s, ": ")
}

// containsFold reports whether s holds the ASCII word w (lower case) in any
// case.
func containsFold(s, w string) bool {
	for i := 0; i+len(w) <= len(s); i++ {
		j := 0
		for j < len(w) && (s[i+j]|0x20) == w[j] {
			j++
		}
		if j == len(w) {
			return true
		}
	}
	return false
}

// schemeRE matches the scheme of a PostgreSQL URL, at the start of a word.
var schemeRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)(?:^|[^A-Za-z0-9+.\-])(postgres(?:ql)?:)`)
})

// urlEnd returns where the URL whose scheme starts at start (its body at
// body) ends in s.
func urlEnd(s string, start, body int) int {
	// schemeRE's match may begin with the character before the scheme.
	if c := s[start]; c != 'p' && c != 'P' {
		start++
	}
	lineEnd := len(s)
	if i := strings.IndexAny(s[body:], "\n\r"); i >= 0 {
		lineEnd = body + i
	}
	if start > 0 {
		switch q := s[start-1]; q {
		case '"', '\'', '`':
			for i := body; i < lineEnd; i++ {
				if q == '"' && s[i] == '\\' {
					i++ // an escape, in Go's %q
					continue
				}
				if s[i] == q {
					return i
				}
			}
			return lineEnd
		}
	}
	end := wordEnd(s, body, lineEnd)
	rest := strings.TrimLeft(s[body:end], "/")
	authority, _, hasPath := strings.Cut(rest, "/")
	if !strings.Contains(rest, "@") && !hasPath && strings.Contains(authority, ":") {
		// user:pass with no "@" yet: a password with spaces. Its "@" is
		// in a later word of the line, if any.
		for e := end; e < lineEnd; {
			next := wordEnd(s, e+1, lineEnd)
			if strings.Contains(s[e:next], "@") {
				return trimPunct(s, body, next)
			}
			e = next
		}
	}
	return trimPunct(s, body, end)
}

// trimPunct moves end back over punctuation after a URL in the open, which
// belongs to the sentence.
func trimPunct(s string, body, end int) int {
	for end > body && strings.IndexByte(":;,.)", s[end-1]) >= 0 {
		end--
	}
	return end
}

// wordEnd returns the index of the first space at or after i, before end.
func wordEnd(s string, i, end int) int {
	for ; i < end; i++ {
		if c := s[i]; c == ' ' || c == '\t' || c == '\v' || c == '\f' {
			return i
		}
	}
	return end
}

// redactURLBody hides the secrets in what follows a URL's "postgres:".
func redactURLBody(body string) string {
	slashes := len(body) - len(strings.TrimLeft(body, "/"))
	out := body[:slashes]
	rest := queryParamRE().ReplaceAllStringFunc(body[slashes:], func(p string) string {
		name, _, _ := strings.Cut(p[1:], "=")
		if !secretParam(name) {
			return p
		}
		return p[:1] + name + "=" + Masked
	})
	if at := strings.LastIndexByte(rest, '@'); at >= 0 {
		// The user part runs to the last "@", as pgx reads it: a password
		// may hold "@", "/", "?" or "#".
		user := rest[:at]
		if c := strings.IndexByte(user, ':'); c >= 0 && c+1 < len(user) {
			user = user[:c+1] + Masked
		} else if c := strings.Index(strings.ToUpper(user), "%3A"); c >= 0 && c+3 < len(user) {
			// A colon written %3A is, to a URL parser, part of the user's
			// name; to the person who wrote it, a password's start.
			user = user[:c+3] + Masked
		}
		out += user + "@"
		rest = rest[at+1:]
	}
	return out + rest
}

// queryParamRE matches a query parameter with its value, which runs to the
// next "&" ("#" too may be in a password).
var queryParamRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[?&][^=&?]*=[^&]*`) })

// secretParam reports whether a URL query parameter or connection keyword
// carries a secret.
func secretParam(name string) bool {
	if n, err := url.QueryUnescape(name); err == nil {
		name = n
	}
	name = strings.ToLower(name)
	for _, w := range secretWords {
		if strings.Contains(name, w) && name != "passfile" {
			return true
		}
	}
	return false
}
