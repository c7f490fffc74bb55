package circuit

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"guard/internal/shell"
)

// CommandKey is the key of a command given as argv: its words joined by
// spaces, each shell-quoted where it needs quoting, so that two different
// commands never share a key and the key can be pasted into a shell.
func CommandKey(argv []string) string { return shell.Join(argv) }

// KeyArg writes key as the KEY argument of guard reset, trip, probe or
// status, for a hint a person may paste into bash or zsh: the word the
// shell reads back as the command line that guard run keys as key. It is
// bare where that is safe ("guard reset lint"), in single quotes if every
// character is printable ('python3 lint.py'), and in ANSI-C quotes
// otherwise ($'evil\x1b[31m\n'), so that the hint never holds a raw
// control or format character and still names the key exactly: a key that
// is not UTF-8 is written with its bytes ($'a\xceb'). A key that starts
// with "-" is preceded by "-- ", so that guard does not take it for a flag.
// The result is one layer of quoting, with no quotes around it needed.
func KeyArg(key string) string {
	arg := KeyWord(key)
	if raw, ok := RawKey(key); (ok && strings.HasPrefix(raw, "-")) || (!ok && strings.HasPrefix(key, "-")) {
		arg = "-- " + arg
	}
	return arg
}

// KeyWord returns key as one shell word, as KeyArg writes it without the
// "-- " a key that starts with "-" needs as an argument: how messages name
// a key (skipped KEY, tripped KEY), so that what is shown pastes too.
func KeyWord(key string) string {
	raw, ok := RawKey(key)
	if !ok {
		// A key put together from parts keyed apart (a command and a
		// project directory): the stored form itself, which a KEY
		// argument may also be (see ResolveKey).
		raw = key
	}
	return shellArg(raw)
}

// shellArg quotes s as one word for bash, zsh or ksh.
func shellArg(s string) string {
	if s != "" && printable(s) {
		return shell.Quote(s)
	}
	if s == "" {
		return "''"
	}
	var b strings.Builder
	b.WriteString("$'")
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\\' || r == '\'':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\r':
			b.WriteString(`\r`)
		case !strconv.IsPrint(r):
			// Every byte of the character, which is what $'\xHH' gives in
			// every shell that has ANSI-C quotes ($'\u' is newer).
			for j := range n {
				fmt.Fprintf(&b, `\x%02x`, s[i+j])
			}
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	b.WriteByte('\'')
	return b.String()
}

// printable reports whether s is valid UTF-8 with only printable characters
// (spaces included, tabs not).
func printable(s string) bool {
	for i, r := range s {
		if r == utf8.RuneError && !strings.HasPrefix(s[i:], "\uFFFD") {
			return false
		}
		if r != ' ' && !strconv.IsPrint(r) {
			return false
		}
	}
	return true
}

// ProjectVar is the variable Claude Code sets to the project a hook runs
// for.
const ProjectVar = "CLAUDE_PROJECT_DIR"

// ProjectSep joins a command that refers to the project directory and the
// directory it ran for, in a key.
const ProjectSep = " @ "

// ProjectKey makes a command that refers to $CLAUDE_PROJECT_DIR (in any
// quoting) one circuit per project: "CMD @ /the/project". The same hook
// line in settings.json runs a different script in each project, and a
// failing one in one project must not skip a healthy one in another. A
// directory that is not UTF-8 is written as ValidKey writes keys.
func ProjectKey(command, projectDir string) string {
	if projectDir == "" || !strings.Contains(command, ProjectVar) {
		return command
	}
	return command + ProjectSep + ValidKey(projectDir)
}

// KeyProject returns the project a key belongs to, if ProjectKey made it.
func KeyProject(key string) string {
	i := strings.LastIndex(key, ProjectSep)
	if i < 0 || !strings.Contains(key[:i], ProjectVar) || strings.HasPrefix(key[i:], SessionSep) {
		return ""
	}
	return key[i+len(ProjectSep):]
}

// ValidKey returns the key guard keeps the command line (or name) raw
// under: a string a JSON document can hold, and a different one for every
// raw, so that two commands never share a circuit.
//
// A raw that is valid UTF-8 is its own key, except that a run of
// backslashes just before an "x" and two hex digits from 80 to ff (the
// text \xce) is doubled (\\xce). A raw that is not valid UTF-8 has each
// byte that is not part of a character written as \xHH (lower-case hex,
// 80 to ff) and every backslash doubled. So a key holds a \xHH after an
// odd run of backslashes if and only if its raw was not UTF-8, and the two
// kinds never meet: guard run --name $'a\xceb' (a byte) keys a\xceb, and
// guard run --name 'a\xceb' (the text) keys a\\xceb.
//
// Keys written by earlier versions keep their meaning, but for a UTF-8
// command whose text holds a backslash before x and two such hex digits
// (printf '\xce'): its key now has that backslash doubled, so its circuit
// starts afresh once, and the old entry (closed, or open until reset) is
// pruned after retention like any idle key.
func ValidKey(raw string) string {
	if utf8.ValidString(raw) {
		if !strings.Contains(raw, `\x`) {
			return raw
		}
		var b strings.Builder
		for i := 0; i < len(raw); {
			if raw[i] != '\\' {
				b.WriteByte(raw[i])
				i++
				continue
			}
			j := i
			for j < len(raw) && raw[j] == '\\' {
				j++
			}
			run := raw[i:j]
			b.WriteString(run)
			if byteEscapeAt(raw, j) {
				b.WriteString(run)
			}
			i = j
		}
		return b.String()
	}
	var b strings.Builder
	for i := 0; i < len(raw); {
		r, n := utf8.DecodeRuneInString(raw[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, `\x%02x`, raw[i])
		case r == '\\':
			b.WriteString(`\\`)
		default:
			b.WriteString(raw[i : i+n])
		}
		i += n
	}
	return b.String()
}

// byteEscapeAt reports whether s[i:] starts with "x" and two lower-case
// hex digits from 80 to ff: what ValidKey writes for a byte that is not
// part of a character, after a backslash.
func byteEscapeAt(s string, i int) bool {
	if i+3 > len(s) || s[i] != 'x' {
		return false
	}
	hi, lo := s[i+1], s[i+2]
	return strings.IndexByte("89abcdef", hi) >= 0 && strings.IndexByte("0123456789abcdef", lo) >= 0
}

// RawKey undoes ValidKey: it returns the command line (or name) raw that
// ValidKey(raw) is key, and whether there is one. There is none for a key
// ValidKey never writes, such as one put together from a command and a
// project directory keyed apart.
func RawKey(key string) (string, bool) {
	if !strings.Contains(key, `\x`) {
		return key, true
	}
	var b strings.Builder
	odd := false // a byte escape after an odd run: the raw was not UTF-8
	for i := 0; i < len(key); {
		if key[i] != '\\' {
			b.WriteByte(key[i])
			i++
			continue
		}
		j := i
		for j < len(key) && key[j] == '\\' {
			j++
		}
		n := j - i
		if !byteEscapeAt(key, j) {
			b.WriteString(key[i:j])
			i = j
			continue
		}
		if n%2 == 1 {
			odd = true
		}
		b.WriteString(strings.Repeat(`\`, n/2))
		if n%2 == 1 {
			v, _ := strconv.ParseUint(key[j+1:j+3], 16, 8)
			b.WriteByte(byte(v))
			i = j + 3
		} else {
			i = j
		}
	}
	raw := b.String()
	if odd {
		// Not UTF-8: every backslash was doubled, not only those before
		// a byte escape. Read it again that way.
		raw = unescapeBytes(key)
	}
	return raw, ValidKey(raw) == key
}

// unescapeBytes reads a key ValidKey wrote for a raw that is not UTF-8:
// \\ is a backslash and \xHH a byte.
func unescapeBytes(key string) string {
	var b strings.Builder
	for i := 0; i < len(key); i++ {
		switch {
		case key[i] == '\\' && i+1 < len(key) && key[i+1] == '\\':
			b.WriteByte('\\')
			i++
		case key[i] == '\\' && byteEscapeAt(key, i+1):
			v, _ := strconv.ParseUint(key[i+2:i+4], 16, 8)
			b.WriteByte(byte(v))
			i += 3
		default:
			b.WriteByte(key[i])
		}
	}
	return b.String()
}

// Unescape reads the escapes that guard's text output writes for what
// cannot be printed (\n, \t, \x1b, \u202e, and \xce for a byte that is not
// part of a character), and \\ for a backslash, so that a key may be typed
// as guard status shows it. It reports whether s had any such escape.
func Unescape(s string) (string, bool) {
	if !strings.Contains(s, `\`) {
		return s, false
	}
	var b strings.Builder
	changed := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 == len(s) {
			b.WriteByte(c)
			continue
		}
		if v, ok := simpleEscapes[s[i+1]]; ok {
			b.WriteByte(v)
			i++
			changed = true
			continue
		}
		width := map[byte]int{'x': 2, 'u': 4, 'U': 8}[s[i+1]]
		if width == 0 || i+2+width > len(s) {
			b.WriteByte(c)
			continue
		}
		v, err := strconv.ParseUint(s[i+2:i+2+width], 16, 32)
		if err != nil || (width > 2 && !utf8.ValidRune(rune(v))) {
			b.WriteByte(c)
			continue
		}
		if width == 2 && v >= 0x80 {
			b.WriteByte(byte(v)) // a byte, as ValidKey writes it
		} else {
			b.WriteRune(rune(v))
		}
		i += 1 + width
		changed = true
	}
	return b.String(), changed
}

// simpleEscapes are the one-letter escapes of strconv.Quote, which guard's
// text output uses for control characters.
var simpleEscapes = map[byte]byte{'a': '\a', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t', 'v': '\v', '\\': '\\'}

// An AmbiguousKeyError is a KEY argument that names two or more keys with
// state in different readings (as guard run keys it, as guard status
// --json shows it, as guard status shows it), none of them the first.
type AmbiguousKeyError struct {
	Arg  string
	Keys []string
}

func (e *AmbiguousKeyError) Error() string {
	args := make([]string, len(e.Keys))
	for i, k := range e.Keys {
		args[i] = KeyArg(k)
	}
	return fmt.Sprintf("%s names %d keys; give one of them exactly: %s", shellArg(e.Arg), len(e.Keys), strings.Join(args, " or "))
}

// ResolveKey returns the key a KEY argument of guard reset, trip, probe,
// status or log names, given which keys have state. It is, first, the key
// guard run makes of arg as a command line or --name (ValidKey). If that
// key has no state, arg may also be the key as guard status --json shows
// it, or as guard status and the notices show it, with \n, \x1b, \u202e
// and the like for what cannot be printed (see Unescape): if one of those
// readings has state, that is the key; if several do, ResolveKey returns
// an *AmbiguousKeyError. With none, it is the first reading, which has no
// state (yet).
func ResolveKey(arg string, has func(string) bool) (string, error) {
	key := ValidKey(arg)
	if has(key) {
		return key, nil
	}
	var found []string
	add := func(k string) {
		if k != key && has(k) && !contains(found, k) {
			found = append(found, k)
		}
	}
	if utf8.ValidString(arg) {
		add(arg)
	}
	if u, ok := Unescape(arg); ok {
		add(ValidKey(u))
	}
	switch len(found) {
	case 0:
		return key, nil
	case 1:
		return found[0], nil
	}
	return "", &AmbiguousKeyError{Arg: arg, Keys: found}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
