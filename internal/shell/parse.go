// Package shell reads a shell command line the way a shell would, with
// mvdan.cc/sh's parser, and finds the simple commands it runs: through
// pipelines, lists (;, &&, ||), subshells, command substitutions and
// wrappers such as sudo and env. guard uses it to tell which program a hook
// runs (is it guard already?) and which actions a command takes on which
// services (docker restart web), so that quoting, flags and words that are
// only arguments (echo docker restart web) cannot fool it.
//
// Parse does no expansion but quotes and $'...': a word that is not
// literal (a $VARIABLE, a command substitution, a glob) is kept as
// written and marked. Read goes further: it expands words as bash does,
// and follows what runs other commands (sh -c, eval, xargs, functions...),
// for the budgets of guard cooldown.
// It also quotes words for sh (Quote, Join), the way guard writes keys and
// the hook commands it installs.
package shell

import (
	"strings"
	"sync"

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

// wrappers are programs that run the command in their arguments, with the
// options of theirs that take a value. Built on first use, as options are.
var wrappers = sync.OnceValue(func() map[string]map[string]bool {
	return map[string]map[string]bool{
		"sudo":    {"-u": true, "-g": true, "-C": true, "-h": true, "-p": true, "-U": true, "-r": true, "-t": true, "-D": true, "--user": true, "--group": true, "--host": true, "--prompt": true, "--chdir": true},
		"doas":    {"-u": true, "-C": true},
		"env":     {"-u": true, "-C": true, "-S": true, "--unset": true, "--chdir": true},
		"nice":    {"-n": true, "--adjustment": true},
		"ionice":  {"-c": true, "-n": true, "-p": true, "--class": true, "--classdata": true},
		"nohup":   {},
		"time":    {"-f": true, "-o": true, "--format": true, "--output": true},
		"command": {},
		"exec":    {"-a": true},
		"stdbuf":  {"-i": true, "-o": true, "-e": true},
		"timeout": {"-s": true, "-k": true, "--signal": true, "--kill-after": true},
		"builtin": {},
	}
})

// Program returns the words of the command c runs, with wrappers (sudo,
// env VAR=value, nice, timeout 5, ...) and their options taken off: for
// "sudo -u root env A=1 docker restart web", the words of "docker restart
// web".
func (c Command) Program() []string {
	w := c.Words
	for len(w) > 0 {
		opts, ok := wrappers()[baseName(w[0])]
		if !ok {
			break
		}
		name := baseName(w[0])
		w = w[1:]
		for len(w) > 0 {
			a := w[0]
			switch {
			case a == "--":
				w = w[1:]
			case strings.HasPrefix(a, "-") && a != "-":
				w = w[1:]
				if opts[a] && len(w) > 0 {
					w = w[1:]
				}
				continue
			case name == "env" && strings.Contains(a, "=") || a == "-":
				w = w[1:]
				continue
			case name == "timeout":
				w = w[1:] // the duration
			}
			break
		}
	}
	return w
}

func baseName(s string) string {
	return s[strings.LastIndexByte(s, '/')+1:]
}
