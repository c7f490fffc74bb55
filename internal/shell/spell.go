package shell

// Spellings: the words of text guard cannot read, as bash may spell them
// out, for a search for the names they hold.

import (
	"slices"
	"strings"
	"unicode/utf8"
)

// maxDecodeRounds bounds how many times $'...' is decoded in a row: a
// string decoded once may hold another $'...', which eval decodes again.
const maxDecodeRounds = 4

// Spellings returns the other ways bash may read the words of text: with
// its quotes (single, double and back quotes, $'...' and $"...") and
// backslashes taken out (a backslash-newline, or backslash-CR-LF, joins
// two lines into one word), variables and parameter expansions taken as
// empty but for a default they hold (d${x}ocker, d${x#ock}ocker and
// ${x:-d}ocker are docker); then the same with $'...' decoded first
// ($'\x64ocker' is docker), with command substitutions taken as empty
// (d$(:)ocker and d`true`ocker are docker), and with each brace expansion
// taken as its first and as its last alternative ({d,}ocker is docker).
// None is a reading: they are copies of text in which a name bash would
// run shows as a word. Callers search text itself as well: a copy may
// join what text keeps apart.
//
// It returns only the copies that differ from text and from each other,
// each made in one pass (the $'...' decoding in at most maxDecodeRounds),
// so it is linear in the length of text.
func Spellings(text string) []string {
	if strings.IndexAny(text, "\\'\"`$\r{") < 0 {
		return nil
	}
	var out []string
	add := func(p string) {
		if p != text && !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	add(unquoted(text, false))
	if strings.Contains(text, "$'") {
		d := text
		for range maxDecodeRounds {
			var changed bool
			if d, changed = decodeANSIC(d); !changed || !strings.Contains(d, "$'") {
				break
			}
		}
		add(unquoted(d, false))
	}
	if strings.Contains(text, "$(") || strings.Contains(text, "`") {
		add(unquoted(text, true))
	}
	if strings.Contains(text, "{") && strings.Contains(text, ",") {
		add(unquoted(braceAlternative(text, false), false))
		add(unquoted(braceAlternative(text, true), false))
	}
	return out
}

// unquoted returns s with quotes, backslashes, carriage returns and
// backslash-newlines taken out, and variables ($x, ${x}, $1, $@, $())
// taken out but for the default or alternative a ${x:-...}, ${x-...},
// ${x:=...} or ${x:+...} holds (a pattern, an offset or a message, as in
// ${x#...}, ${x/...}, ${x:1} or ${x:?...}, goes with its variable). With
// noSubst, command substitutions ($(...), `...`) go too, whatever they
// hold.
func unquoted(s string, noSubst bool) string {
	var b strings.Builder
	b.Grow(len(s))
	open := 0 // ${ not yet closed
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case '\\':
			switch {
			case strings.HasPrefix(s[i+1:], "\n"):
				i++
			case strings.HasPrefix(s[i+1:], "\r\n"):
				i += 2
			}
			continue
		case '`':
			if noSubst {
				if j := strings.IndexByte(s[i+1:], '`'); j >= 0 {
					i += j + 1
				}
			}
			continue
		case '\'', '"', '\r':
			continue
		case '}':
			if open > 0 {
				open--
				continue
			}
		case '$':
			if i+1 == len(s) {
				break
			}
			switch n := s[i+1]; {
			case n == '\'' || n == '"': // $'...', $"...": the quotes go next
				continue
			case n == '{':
				j, keep := skipParam(s, i+2)
				if keep {
					i = j - 1
					open++
				} else {
					i = closing(s, j, '{', '}')
				}
				continue
			case n == '(' && strings.HasPrefix(s[i+2:], ")"):
				i += 2
				continue
			case n == '(' && noSubst:
				i = closing(s, i+2, '(', ')')
				continue
			case isNameByte(n) && !isDigit(n):
				i++
				for i+1 < len(s) && isNameByte(s[i+1]) {
					i++
				}
				continue
			case isDigit(n) || strings.IndexByte("@*#?$!-", n) >= 0:
				i++
				continue
			}
		}
		b.WriteByte(c)
	}
	return b.String()
}

// skipParam returns the index past the name of the parameter expansion
// whose name starts at i (past "${"), and past the operator after it, and
// whether what is left up to its "}" is a word bash may put in its place
// (the default of :- and -, the value of := and =, the alternative of :+
// and +) rather than a pattern, an offset or a message.
func skipParam(s string, i int) (int, bool) {
	if i < len(s) && (s[i] == '!' || s[i] == '#') {
		i++
	}
	switch {
	case i < len(s) && isNameByte(s[i]):
		for i < len(s) && isNameByte(s[i]) {
			i++
		}
	case i < len(s) && strings.IndexByte("@*#?$!-", s[i]) >= 0:
		i++
	}
	if i < len(s) && s[i] == ':' && i+1 < len(s) && strings.IndexByte("-=+", s[i+1]) >= 0 {
		return i + 2, true
	}
	if i < len(s) && strings.IndexByte("-=+}", s[i]) >= 0 {
		if s[i] == '}' {
			return i, true
		}
		return i + 1, true
	}
	return i, false
}

// closing returns the index of the bracket that closes the one opened
// just before i (open and close nest), or the last index of s if none
// does (callers then take the rest of s as one, so that every byte is
// scanned a bounded number of times).
func closing(s string, i int, open, close byte) int {
	depth := 1
	for ; i < len(s); i++ {
		switch s[i] {
		case open:
			depth++
		case close:
			if depth--; depth == 0 {
				return i
			}
		}
	}
	return len(s) - 1
}

// braceAlternative returns s with each brace expansion ({a,b,c}, not
// ${...}) replaced by its first alternative, or its last if last: bash
// makes a word of each, and a name may be spelled across one ({d,}ocker).
func braceAlternative(s string, last bool) string {
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		if s[i] != '{' || i > 0 && s[i-1] == '$' {
			b.WriteByte(s[i])
			continue
		}
		end := closing(s, i+1, '{', '}')
		if s[end] != '}' || end == i {
			b.WriteString(s[i:]) // no brace closes it, nor any after it
			break
		}
		body := s[i+1 : end]
		if !strings.Contains(body, ",") {
			b.WriteString(s[i : end+1]) // each brace is scanned once
			i = end
			continue
		}
		alts := strings.Split(body, ",")
		if last {
			b.WriteString(alts[len(alts)-1])
		} else {
			b.WriteString(alts[0])
		}
		i = end
	}
	return b.String()
}

func isNameByte(c byte) bool {
	return c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || isDigit(c)
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// decodeANSIC returns s with each $'...' replaced by what bash makes of
// it (\x64, \144, \u0064, \n, \cA, ...; an escape it does not know is
// kept, backslash and all), and whether there was one.
func decodeANSIC(s string) (string, bool) {
	i := strings.Index(s, "$'")
	if i < 0 {
		return s, false
	}
	var b strings.Builder
	b.Grow(len(s))
	for i >= 0 {
		b.WriteString(s[:i])
		s = s[i+2:]
		j := 0
		for j < len(s) && s[j] != '\'' {
			if s[j] != '\\' || j+1 == len(s) {
				b.WriteByte(s[j])
				j++
				continue
			}
			j = decodeEscape(&b, s, j+1)
		}
		s = s[min(j+1, len(s)):]
		i = strings.Index(s, "$'")
	}
	b.WriteString(s)
	return b.String(), true
}

// decodeEscape writes what the escape at s[j:] (past its backslash) stands
// for, and returns the index past it.
func decodeEscape(b *strings.Builder, s string, j int) int {
	c := s[j]
	if k := strings.IndexByte(`abefnrtvE\'"?`, c); k >= 0 {
		b.WriteByte("\a\b\x1b\f\n\r\t\v\x1b\\'\"?"[k])
		return j + 1
	}
	switch c {
	case 'x', 'u', 'U':
		most := 2
		if c == 'u' {
			most = 4
		} else if c == 'U' {
			most = 8
		}
		v, k := 0, j+1
		for k < len(s) && k-j-1 < most && hexVal(s[k]) >= 0 {
			v = v<<4 | hexVal(s[k])
			k++
		}
		if k == j+1 {
			break // no digits: kept as written
		}
		if c == 'x' {
			b.WriteByte(byte(v))
		} else if utf8.ValidRune(rune(v)) {
			b.WriteRune(rune(v))
		}
		return k
	case 'c':
		if j+1 < len(s) {
			b.WriteByte(s[j+1] & 0x1f)
			return j + 2
		}
	default:
		if '0' <= c && c <= '7' {
			v, k := 0, j
			for k < len(s) && k-j < 3 && '0' <= s[k] && s[k] <= '7' {
				v = v<<3 | int(s[k]-'0')
				k++
			}
			b.WriteByte(byte(v))
			return k
		}
	}
	b.WriteByte('\\')
	b.WriteByte(c)
	return j + 1
}

func hexVal(c byte) int {
	switch {
	case '0' <= c && c <= '9':
		return int(c - '0')
	case 'a' <= c && c <= 'f':
		return int(c-'a') + 10
	case 'A' <= c && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}
