// Reading one simple command of plain words without a shell parser: what a
// hook's sh -c string runs, expanded as sh would with a given environment,
// for the message of a hook that could not start (package supervise), and
// the one command a runner hands a shell (flock -c STRING) for
// Command.Program. guard run needs only these, and takes them without
// mvdan.cc/sh, whose package initialisation would cost every call; a line
// outside the plain subset goes to the full parser when one is linked in
// (package shell/sh registers it: guard-cli, guard-pg and guard-web),
// and is otherwise taken as one guard cannot be sure of.

package shell

import (
	"strings"
	"unicode/utf8"
)

// A Parser is the full shell parser, mvdan.cc/sh's, for the lines the plain
// reader of this file cannot be sure of (see Register).
type Parser struct {
	// Commands returns the simple commands of a bash line (see
	// shell/sh.Commands).
	Commands func(line string) ([]Command, error)
	// Simple is SimpleCommand for any line.
	Simple func(line string, env []string) []string
}

var full Parser

// Register links the full shell parser in: package shell/sh calls it
// when it is linked. Without it, a line outside the plain subset is one
// guard cannot read (SimpleCommand returns nil, Program stops at the
// runner that hands the line to a shell), which is the cautious answer:
// guard run then keeps a hook's own exit status.
func Register(p Parser) { full = p }

// SimpleCommand returns the words that sh -c line runs, expanded as sh
// would expand them with the environment env, if line is one simple
// command (optionally after exec) whose words are plain: literals, quotes,
// $VARIABLES and a leading ~. For anything else (a list, a pipeline, a
// redirection, a command substitution, a glob, an unset variable) it
// returns nil: guard cannot then tell what ran from the line alone.
func SimpleCommand(line string, env []string) []string {
	words, sure := lex(line)
	if !sure {
		if full.Simple != nil {
			return full.Simple(line, env)
		}
		return nil
	}
	return simple(words, env)
}

// simple is SimpleCommand for the words of a plain line.
func simple(words []plainWord, env []string) []string {
	for len(words) > 0 && words[0].assigns() {
		words = words[1:] // the command's environment, not its words
	}
	lookup := func(name string) (string, bool) {
		for i := len(env) - 1; i >= 0; i-- {
			if k, v, ok := strings.Cut(env[i], "="); ok && k == name {
				return v, true
			}
		}
		return "", false
	}
	out := make([]string, 0, len(words))
	for i, w := range words {
		s, ok := w.expand(lookup)
		if !ok {
			return nil
		}
		if i == 0 && s == "exec" && len(words) > 1 {
			continue
		}
		out = append(out, s)
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// parse returns the simple commands of line: the full parser's, when it is
// linked in; else the one command of a plain line of literal words, or an
// error for any other line.
func parse(line string) ([]Command, error) {
	if full.Commands != nil {
		return full.Commands(line)
	}
	cs, ok := plainCommands(line)
	if !ok {
		return nil, errNotPlain
	}
	return cs, nil
}

// plainCommands returns the one command of a plain line of literal words
// (none for a blank line), or false for any other line.
func plainCommands(line string) ([]Command, bool) {
	words, sure := lex(line)
	if !sure || len(words) > 0 && words[0].assigns() {
		return nil, false // the parser writes assignments out its own way
	}
	var c Command
	for _, w := range words {
		s, ok := w.literal()
		if !ok {
			return nil, false
		}
		c.Words = append(c.Words, s)
		c.Literal = append(c.Literal, true)
	}
	if len(c.Words) == 0 {
		return nil, true
	}
	return []Command{c}, true
}

// errNotPlain is parse's error for a line outside the plain subset, with no
// full parser linked in.
var errNotPlain = plainError{}

type plainError struct{}

func (plainError) Error() string { return "not a plain command line, and no shell parser is linked in" }

// A part is a piece of a word as the shell reads it.
type part struct {
	kind  partKind
	value string // lit: as written (backslashes kept); sgl: the text; param: the name
	inner []part // dbl: its literal pieces (as written) and parameters
}

type partKind uint8

const (
	litPart   partKind = iota // unquoted text
	sglPart                   // '...'
	dblPart                   // "..."
	paramPart                 // $NAME or ${NAME}
)

// A plainWord is a word of a plain line: its parts, in order.
type plainWord []part

// lex splits line into its words if it is one simple command of plain
// words, and reports whether it is sure of that: a line of words made of
// unquoted text without the shell's operators, globs, braces or a leading
// #, single quotes, double quotes, and $NAME or ${NAME}, after any
// variable assignments (NAME=...), the first not a reserved word. Anything else (a newline, a
// backslash before one, $(...), `...`, $'...', ${NAME:-x}, $1, an
// unclosed quote, a control character, invalid UTF-8) it is not sure of.
// The words it returns are those mvdan.cc/sh reads from the line, in
// POSIX and in bash mode alike (FuzzPlainMatchesParser holds it to that).
func lex(line string) (words []plainWord, sure bool) {
	if !utf8.ValidString(line) {
		return nil, false
	}
	i := 0
	for {
		for i < len(line) && (line[i] == ' ' || line[i] == '\t') {
			i++
		}
		if i == len(line) {
			break
		}
		if line[i] == '#' {
			return nil, false // a comment
		}
		var w plainWord
		var lit strings.Builder
		flush := func() {
			if lit.Len() > 0 {
				w = append(w, part{kind: litPart, value: lit.String()})
				lit.Reset()
			}
		}
		for i < len(line) && line[i] != ' ' && line[i] != '\t' {
			c := line[i]
			switch {
			case c == '\\':
				if i+1 == len(line) || line[i+1] < ' ' || line[i+1] == 0x7f || strings.IndexByte("*?[", line[i+1]) >= 0 {
					return nil, false // a continued line; a glob character the parser keeps escaped
				}
				_, size := utf8.DecodeRuneInString(line[i+1:])
				lit.WriteString(line[i : i+1+size])
				i += 1 + size
			case c == '\'':
				end := strings.IndexByte(line[i+1:], '\'')
				if end < 0 || !printable(line[i+1:i+1+end]) {
					return nil, false
				}
				flush()
				w = append(w, part{kind: sglPart, value: line[i+1 : i+1+end]})
				i += end + 2
			case c == '"':
				p, n, ok := lexDouble(line[i:])
				if !ok {
					return nil, false
				}
				flush()
				w = append(w, p)
				i += n
			case c == '$':
				p, n, ok := lexParam(line[i:])
				if !ok {
					return nil, false
				}
				flush()
				w = append(w, p)
				i += n
			case c < ' ' || c == 0x7f || strings.IndexByte(";&|<>()`*?[{}!", c) >= 0:
				return nil, false
			default:
				lit.WriteByte(c)
				i++
			}
		}
		flush()
		words = append(words, w)
	}
	n := 0 // the variable assignments before the command
	for n < len(words) && words[n].assigns() {
		n++
	}
	if n < len(words) && (words[n].reserved() || words[n].appends()) {
		return nil, false
	}
	return words, true
}

// lexDouble reads the double-quoted string s starts with: it returns the
// part and its length, or false if it is not plain (`...`, $(...), an
// unclosed quote, a control character).
func lexDouble(s string) (part, int, bool) {
	p := part{kind: dblPart}
	var lit strings.Builder
	flush := func() {
		if lit.Len() > 0 {
			p.inner = append(p.inner, part{kind: litPart, value: lit.String()})
			lit.Reset()
		}
	}
	for i := 1; i < len(s); {
		c := s[i]
		switch {
		case c == '"':
			flush()
			return p, i + 1, true
		case c == '\\':
			if i+1 == len(s) || s[i+1] < ' ' || s[i+1] == 0x7f {
				return p, 0, false
			}
			_, size := utf8.DecodeRuneInString(s[i+1:])
			lit.WriteString(s[i : i+1+size])
			i += 1 + size
		case c == '$':
			q, n, ok := lexParam(s[i:])
			if !ok {
				return p, 0, false
			}
			flush()
			p.inner = append(p.inner, q)
			i += n
		case c == '`' || c < ' ' || c == 0x7f:
			return p, 0, false
		default:
			lit.WriteByte(c)
			i++
		}
	}
	return p, 0, false
}

// lexParam reads the $NAME or ${NAME} s starts with, and its length; false
// for any other use of $.
func lexParam(s string) (part, int, bool) {
	braced := len(s) > 1 && s[1] == '{'
	start := 1
	if braced {
		start = 2
	}
	end := start
	for end < len(s) && (s[end] == '_' || isLetter(s[end]) || end > start && isDigit(s[end])) {
		end++
	}
	if end == start {
		return part{}, 0, false
	}
	name := s[start:end]
	if braced {
		if end == len(s) || s[end] != '}' {
			return part{}, 0, false
		}
		end++
	}
	return part{kind: paramPart, value: name}, end, true
}

func isLetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

// printable reports whether s has no control characters.
func printable(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < ' ' || s[i] == 0x7f {
			return false
		}
	}
	return true
}

// assigns reports whether w is a variable assignment (NAME=...), which the
// shell takes off the command's words.
func (w plainWord) assigns() bool {
	if len(w) == 0 || w[0].kind != litPart {
		return false
	}
	name, _, ok := strings.Cut(w[0].value, "=")
	if !ok || name == "" || isDigit(name[0]) {
		return false
	}
	for i := 0; i < len(name); i++ {
		if name[i] != '_' && !isLetter(name[i]) && !isDigit(name[i]) {
			return false
		}
	}
	return true
}

// appends reports whether w starts NAME+=, an assignment in bash and a
// word in sh.
func (w plainWord) appends() bool {
	if len(w) == 0 || w[0].kind != litPart {
		return false
	}
	name, _, ok := strings.Cut(w[0].value, "+=")
	return ok && plainWord{{kind: litPart, value: name + "="}}.assigns()
}

// reserved reports whether w, the first word, is one the shells read as
// something other than a program's name.
func (w plainWord) reserved() bool {
	if len(w) != 1 || w[0].kind != litPart {
		return false
	}
	switch w[0].value {
	case "if", "then", "else", "elif", "fi", "do", "done", "case", "esac", "while", "until", "for", "in",
		"function", "select", "time", "coproc", "declare", "local", "export", "readonly", "typeset",
		"nameref", "let", "]]":
		return true
	}
	return false
}

// expand returns w expanded as sh would expand it as one field, or false
// if guard cannot be sure of that: an unset variable, or an unquoted one
// that the shell would split or glob; ~USER.
func (w plainWord) expand(lookup func(string) (string, bool)) (string, bool) {
	var b strings.Builder
	param := func(name string, quoted bool) bool {
		v, ok := lookup(name)
		if !ok || (!quoted && (v == "" || strings.ContainsAny(v, " \t\n*?["))) {
			return false // unset, or split and globbed by the shell
		}
		b.WriteString(v)
		return true
	}
	for i, p := range w {
		switch p.kind {
		case litPart:
			v := p.value
			if i == 0 && (v == "~" || strings.HasPrefix(v, "~/")) {
				home, ok := lookup("HOME")
				if !ok {
					return "", false
				}
				v = home + v[1:]
			} else if i == 0 && strings.HasPrefix(v, "~") {
				return "", false // ~user
			}
			b.WriteString(Unescape(v))
		case sglPart:
			b.WriteString(p.value)
		case dblPart:
			for _, q := range p.inner {
				if q.kind == paramPart {
					if !param(q.value, true) {
						return "", false
					}
					continue
				}
				b.WriteString(UnescapeDouble(q.value))
			}
		case paramPart:
			if !param(p.value, false) {
				return "", false
			}
		}
	}
	return b.String(), true
}

// literal returns w as the program receives it, if it has no variable
// and no glob character.
func (w plainWord) literal() (string, bool) {
	var b strings.Builder
	for _, p := range w {
		switch p.kind {
		case litPart:
			b.WriteString(Unescape(p.value))
		case sglPart:
			b.WriteString(p.value)
		case dblPart:
			for _, q := range p.inner {
				if q.kind == paramPart {
					return "", false
				}
				b.WriteString(UnescapeDouble(q.value))
			}
		case paramPart:
			return "", false
		}
	}
	if strings.ContainsAny(b.String(), "*?[") {
		return "", false // the parser marks a word with a glob character, even quoted, as not literal
	}
	return b.String(), true
}
