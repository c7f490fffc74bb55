// Package sh reads shell command lines with mvdan.cc/sh's parser, for
// package shell: the simple commands of a bash line (Commands), and the
// one simple command of an sh -c string, expanded (SimpleCommand). Linking
// it registers it with package shell (shell.Register), whose own reader
// takes only plain lines: guard-cli, guard-pg and guard-web link it (through
// install, doctor and the budgets' reader); guard, which runs hooks, does
// not, so that no hook call pays for the parser's start-up.
package sh

import (
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"

	"guard/internal/shell"
)

func init() { shell.Register(shell.Parser{Commands: Commands, Simple: SimpleCommand}) }

// Commands returns the simple commands of line, in the order they appear.
func Commands(line string) ([]shell.Command, error) {
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(line), "")
	if err != nil {
		return nil, err
	}
	var out []shell.Command
	syntax.Walk(f, func(n syntax.Node) bool {
		call, ok := n.(*syntax.CallExpr)
		if !ok {
			return true
		}
		var c shell.Command
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
				b.WriteString(shell.Unescape(x.Value))
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
					b.WriteString(shell.UnescapeDouble(l.Value))
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

func source(n syntax.Node) string {
	var b strings.Builder
	_ = syntax.NewPrinter().Print(&b, n)
	return b.String()
}

// SimpleCommand is shell.SimpleCommand for any line: it returns the words that sh -c line runs, expanded as sh
// would expand them with the environment env, if line is one simple
// command (optionally after exec) whose words are plain: literals, quotes,
// $VARIABLES and a leading ~. For anything else (a list, a pipeline, a
// redirection, a command substitution, a glob, an unset variable) it
// returns nil: guard cannot then tell what ran from the line alone.
func SimpleCommand(line string, env []string) []string {
	f, err := syntax.NewParser(syntax.Variant(syntax.LangPOSIX)).Parse(strings.NewReader(line), "")
	if err != nil || len(f.Stmts) != 1 {
		return nil
	}
	st := f.Stmts[0]
	call, ok := st.Cmd.(*syntax.CallExpr)
	if !ok || st.Negated || st.Background || st.Coprocess || len(st.Redirs) > 0 || len(call.Args) == 0 {
		return nil
	}
	lookup := func(name string) (string, bool) {
		for i := len(env) - 1; i >= 0; i-- {
			if k, v, ok := strings.Cut(env[i], "="); ok && k == name {
				return v, true
			}
		}
		return "", false
	}
	words := make([]string, 0, len(call.Args))
	for i, w := range call.Args {
		s, ok := expandWord(w, lookup)
		if !ok {
			return nil
		}
		if i == 0 && s == "exec" && len(call.Args) > 1 {
			continue
		}
		words = append(words, s)
	}
	return words
}

// expandWord expands w as one field, or reports false if it cannot be sure
// of the result.
func expandWord(w *syntax.Word, lookup func(string) (string, bool)) (string, bool) {
	var b strings.Builder
	param := func(p *syntax.ParamExp, quoted bool) bool {
		if p.Param == nil || p.Excl || p.Length || p.Width || p.Index != nil || p.Slice != nil ||
			p.Repl != nil || p.Names != 0 || p.Exp != nil || p.Flags != nil || len(p.Modifiers) > 0 {
			return false
		}
		v, ok := lookup(p.Param.Value)
		if !ok || (!quoted && (v == "" || strings.ContainsAny(v, " \t\n*?["))) {
			return false // unset, or split and globbed by the shell
		}
		b.WriteString(v)
		return true
	}
	for i, part := range w.Parts {
		switch x := part.(type) {
		case *syntax.Lit:
			v := x.Value
			if i == 0 && (v == "~" || strings.HasPrefix(v, "~/")) {
				home, ok := lookup("HOME")
				if !ok {
					return "", false
				}
				v = home + v[1:]
			} else if strings.HasPrefix(v, "~") && i == 0 {
				return "", false // ~user
			}
			if strings.ContainsAny(v, "*?[") {
				return "", false
			}
			b.WriteString(shell.Unescape(v))
		case *syntax.SglQuoted:
			if x.Dollar {
				return "", false
			}
			b.WriteString(x.Value)
		case *syntax.DblQuoted:
			if x.Dollar {
				return "", false
			}
			for _, q := range x.Parts {
				switch y := q.(type) {
				case *syntax.Lit:
					b.WriteString(shell.UnescapeDouble(y.Value))
				case *syntax.ParamExp:
					if !param(y, true) {
						return "", false
					}
				default:
					return "", false
				}
			}
		case *syntax.ParamExp:
			if !param(x, false) {
				return "", false
			}
		default:
			return "", false
		}
	}
	return b.String(), true
}
