package shell

import (
	"slices"
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// A Command is one simple command: its words, unquoted where they are
// literal, after its variable assignments (which are in Assigns).
type Command struct {
	Assigns []string // VAR=value prefixes, as written
	Words   []string
	Literal []bool // Literal[i]: Words[i] is what the program receives
}

// Parse returns the simple commands of line, in the order they appear.
func Parse(line string) ([]Command, error) {
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(line), "")
	if err != nil {
		return nil, err
	}
	var out []Command
	syntax.Walk(f, func(n syntax.Node) bool {
		call, ok := n.(*syntax.CallExpr)
		if !ok {
			return true
		}
		var c Command
		for _, a := range call.Assigns {
			c.Assigns = append(c.Assigns, source(a))
		}
		for _, w := range call.Args {
			s, lit := word(w)
			c.Words = append(c.Words, s)
			c.Literal = append(c.Literal, lit)
		}
		if len(c.Words) > 0 || len(c.Assigns) > 0 {
			out = append(out, c)
		}
		return true
	})
	return out, nil
}

// word returns the value of w as the program would receive it, and true,
// if w is literal; else its source text and false.
func word(w *syntax.Word) (string, bool) {
	var b strings.Builder
	var lit func(parts []syntax.WordPart) bool
	lit = func(parts []syntax.WordPart) bool {
		for _, p := range parts {
			switch x := p.(type) {
			case *syntax.Lit:
				b.WriteString(unescape(x.Value))
			case *syntax.SglQuoted:
				v := x.Value
				if x.Dollar { // $'...': ANSI-C escapes, as bash reads them
					s, _, err := expand.Format(nil, v, nil)
					if err != nil {
						return false
					}
					v, _, _ = strings.Cut(s, "\x00")
				}
				b.WriteString(v)
			case *syntax.DblQuoted:
				for _, q := range x.Parts {
					l, ok := q.(*syntax.Lit)
					if !ok {
						return false
					}
					b.WriteString(unescapeDouble(l.Value))
				}
			default:
				return false
			}
		}
		return true
	}
	if lit(w.Parts) && !strings.ContainsAny(b.String(), "*?[") {
		return b.String(), true
	}
	return source(w), false
}

// unescape removes the backslashes of an unquoted literal.
func unescape(s string) string {
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

// unescapeDouble removes the backslashes that escape inside double quotes.
func unescapeDouble(s string) string {
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

func source(n syntax.Node) string {
	var b strings.Builder
	_ = syntax.NewPrinter().Print(&b, n)
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
			inner, err := Parse(use.Value(w))
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
