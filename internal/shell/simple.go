// Expanding one simple command as sh would, with a given environment:
// what a hook's sh -c string runs, for the message of a hook that could
// not start (package supervise).

package shell

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// SimpleCommand returns the words that sh -c line runs, expanded as sh
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
			b.WriteString(unescape(v))
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
					b.WriteString(unescapeDouble(y.Value))
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
