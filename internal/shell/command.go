package shell

import (
	"slices"
	"strings"
)

// A Command is one simple command: its words, unquoted where they are
// literal, after its variable assignments (which are in Assigns).
type Command struct {
	Assigns []string // VAR=value prefixes, as written
	Words   []string
	Literal []bool // Literal[i]: Words[i] is what the program receives
}

// Unescape removes the backslashes of an unquoted literal, as the shell does.
func Unescape(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			i++
			if s[i] == '\n' {
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// UnescapeDouble removes the backslashes that escape inside double quotes.
func UnescapeDouble(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("$`\"\\\n", s[i+1]) >= 0 {
			i++
			if s[i] == '\n' {
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// Program returns the words of the command c runs, with the programs that
// run a command given in their arguments (sudo, env VAR=value, nice,
// timeout 5, setsid, flock -w 5 FILE, ...: the Runner table) and their
// options taken off: for "sudo -u root env A=1 docker restart web", the
// words of "docker restart web". A string such a program hands a shell
// (flock FILE -c STRING, env -S STRING) is read for the program of its
// one simple command. A program that runs no command by one of its options
// (command -v, sudo -l) is where Program stops; one given no command
// (nice alone) runs nothing: Program returns no words.
func (c Command) Program() []string {
	w, lit := c.Words, c.Literal
	for depth := 0; len(w) > 0 && depth < 16; depth++ {
		rn, ok := LookupRunner(BaseName(w[0]))
		if !ok || rn.Data || rn.Remote {
			break
		}
		use := rn.Use(w, lit)
		switch use.How {
		case Nothing:
			if use.Option == "" { // no command given
				return nil
			}
			return w
		case Shell:
			if use.I >= len(w) {
				return nil // a shell reading stdin
			}
		case Script, Split:
			inner, err := parse(use.Value(w))
			if err != nil || len(inner) != 1 || lit != nil && !lit[use.I] {
				return w
			}
			if use.How == Script {
				return inner[0].Program()
			}
			w, lit = append(slices.Clone(inner[0].Words), w[use.I+1:]...), nil
			continue
		}
		w = w[use.I:]
		if lit != nil {
			lit = lit[use.I:]
		}
	}
	return w
}

func baseName(s string) string { return BaseName(s) }
