package bash

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// A scope is where a command is read: the shell's state (what guard knows
// of its variables, functions and aliases), and the string its syntax
// nodes point into.
type scope struct {
	*state
	src      string
	depth    int    // strings run as commands, and calls, around it
	aliasing string // the alias being expanded, which is not expanded again
	// locals, in a function's body, are the variables it made local
	// (local, declare) with what they held before, given back when the
	// call returns; nil outside a function.
	locals *map[string]*expand.Variable
}

// local makes name local to the function being read, if any.
func (sc *scope) local(name string) {
	if sc.locals == nil {
		return
	}
	if _, ok := (*sc.locals)[name]; ok {
		return
	}
	var old *expand.Variable
	if v, ok := sc.vars[name]; ok {
		old = &v
	}
	(*sc.locals)[name] = old
}

// restore gives back what the variables a call made local held before it.
func (sc *scope) restore(locals map[string]*expand.Variable) {
	for name, old := range locals {
		if old == nil {
			delete(sc.vars, name)
		} else {
			sc.vars[name] = *old
		}
	}
}

type state struct {
	// vars holds the variables whose value guard knows (an unset one, as
	// after unset, too); any other is unknown: it comes from outside.
	vars    map[string]expand.Variable
	funcs   map[string][]function // the bodies a name may have; a zero one: maybe undefined
	aliases map[string][]string
	// ints are the variables that may have the integer attribute
	// (declare -i): bash evaluates what is assigned to them as
	// arithmetic.
	ints   map[string]bool
	params []string // $1, $2, ...
	// paramLit[i] reports whether params[i] is known; nil: none is known.
	paramLit []bool
	arg0     string
}

// A function is a function's body and the string it was defined in.
type function struct {
	body *syntax.Stmt
	src  string
}

func newScope(src string) *scope {
	return &scope{src: src, state: &state{
		vars: map[string]expand.Variable{}, funcs: map[string][]function{}, aliases: map[string][]string{},
		ints: map[string]bool{},
	}}
}

// text returns the source of node.
func (sc *scope) text(node syntax.Node) string {
	if node == nil || !node.Pos().IsValid() {
		return ""
	}
	from, to := int(node.Pos().Offset()), int(node.End().Offset())
	if from > to || to > len(sc.src) {
		return ""
	}
	return sc.src[from:to]
}

// fork returns a copy of sc whose changes do not reach sc (a branch, a
// subshell).
func (sc *scope) fork() *scope {
	c := *sc
	st := *sc.state
	st.vars = maps.Clone(sc.vars)
	st.funcs = maps.Clone(sc.funcs)
	st.aliases = maps.Clone(sc.aliases)
	st.ints = maps.Clone(sc.ints)
	c.state = &st
	return &c
}

// subshell is fork: a subshell's assignments stay in it.
func (sc *scope) subshell() *scope { return sc.fork() }

// eval returns the scope in which the string s runs in the same shell
// (eval, an alias, a trap): sc's state, s's text.
func (sc *scope) eval(s string) *scope {
	return &scope{state: sc.state, src: s, depth: sc.depth + 1}
}

// shell returns the scope of a new shell running s (sh -c): it knows only
// the variables sc exports, and has params as $0, $1, ...
func (sc *scope) shell(s string, params []string, lit []bool) *scope {
	n := newScope(s)
	n.depth = sc.depth + 1
	for k, v := range sc.vars {
		if v.Exported {
			n.vars[k] = v
		}
	}
	if len(params) > 0 {
		n.arg0 = params[0]
		n.params = params[1:]
		n.paramLit = lit[1:]
		if !lit[0] {
			n.arg0 = ""
		}
	} else {
		n.paramLit = []bool{}
	}
	return n
}

// remote returns the scope of a shell on another host running s (ssh): it
// knows no variable.
func (sc *scope) remote(s string) *scope {
	n := newScope(s)
	n.depth = sc.depth + 1
	n.paramLit = []bool{}
	return n
}

// join makes sc's state what is known after one of outs ran: a variable
// keeps its value only if every one gives it the same; a function may be
// any of theirs.
func (sc *scope) join(outs ...*scope) {
	if len(outs) == 0 {
		return
	}
	vars := map[string]expand.Variable{}
	for k, v := range outs[0].vars {
		same := true
		for _, o := range outs[1:] {
			w, ok := o.vars[k]
			same = same && ok && sameVar(v, w)
		}
		if same {
			vars[k] = v
		}
	}
	funcs := map[string][]function{}
	aliases := map[string][]string{}
	for _, o := range outs {
		for k := range o.ints { // an integer in any branch may be one after
			sc.ints[k] = true
		}
		for k := range o.funcs {
			funcs[k] = nil
		}
		for k := range o.aliases {
			aliases[k] = nil
		}
	}
	for k := range funcs {
		for _, o := range outs {
			fs, ok := o.funcs[k]
			if !ok {
				fs = []function{{}}
			}
			for _, f := range fs {
				if !slices.Contains(funcs[k], f) {
					funcs[k] = append(funcs[k], f)
				}
			}
		}
	}
	for k := range aliases {
		for _, o := range outs {
			for _, v := range o.aliases[k] {
				if !slices.Contains(aliases[k], v) {
					aliases[k] = append(aliases[k], v)
				}
			}
		}
	}
	sc.vars, sc.funcs, sc.aliases = vars, funcs, aliases
	sc.params, sc.paramLit, sc.arg0 = outs[0].params, outs[0].paramLit, outs[0].arg0
}

func sameVar(a, b expand.Variable) bool {
	return a.Set == b.Set && a.Exported == b.Exported && a.Kind == b.Kind && a.Str == b.Str && slices.Equal(a.List, b.List) && maps.Equal(a.Map, b.Map)
}

func (sc *scope) define(name string, body *syntax.Stmt, src string) {
	sc.funcs[name] = []function{{body: body, src: src}}
}

// set gives name a known value; an integer variable (declare -i) is
// given it only if it is a plain decimal, which bash's arithmetic leaves
// as it is, and is unknown otherwise.
func (sc *scope) set(name, value string, exported bool) {
	if sc.ints[name] && !plainDecimal(value) {
		sc.forget(name)
		return
	}
	old := sc.vars[name]
	sc.vars[name] = expand.Variable{Set: true, Kind: expand.String, Str: value, Exported: exported || old.Exported}
}

// unset makes name known to be unset.
func (sc *scope) unset(name string) { sc.vars[name] = expand.Variable{} }

// forgetAll makes every variable unknown.
func (sc *scope) forgetAll() { clear(sc.vars) }

// forget makes name unknown.
func (sc *scope) forget(name string) { delete(sc.vars, name) }

// export marks name exported, keeping what guard knows of its value.
func (sc *scope) export(name string, exported bool) {
	if !exported {
		return
	}
	if v, ok := sc.vars[name]; ok {
		v.Exported = true
		sc.vars[name] = v
	}
}

// unexport takes name out of the environment of the programs the line
// runs next (export -n, declare +x), keeping what guard knows of its value.
func (sc *scope) unexport(name string) {
	if v, ok := sc.vars[name]; ok {
		v.Exported = false
		sc.vars[name] = v
	}
}

// forgetAssigned makes the variables that node's expansions assign as
// they run unknown: arithmetic's assignments (N=2, N+=1, N++, a[0]=5), in
// (( )), let, $((...)) or an array's index (a[N=2]=x, ${a[N=2]}), and
// ${N:=W} and ${N=W}. A command's words are expanded one after the other,
// each seeing what the ones before it assigned: its caller forgets before
// it expands any of them.
func (sc *scope) forgetAssigned(node syntax.Node) {
	if node == nil || reflect.ValueOf(node).IsNil() {
		return
	}
	syntax.Walk(node, func(n syntax.Node) bool {
		switch x := n.(type) {
		case *syntax.BinaryArithm:
			switch x.Op { // not a range: Assgn comes after ShrAssgn among the operators
			case syntax.Assgn, syntax.AddAssgn, syntax.SubAssgn, syntax.MulAssgn, syntax.QuoAssgn, syntax.RemAssgn,
				syntax.AndAssgn, syntax.OrAssgn, syntax.XorAssgn, syntax.ShlAssgn, syntax.ShrAssgn, syntax.PowAssgn:
				sc.forget(arithName(x.X))
			}
		case *syntax.UnaryArithm:
			if x.Op == syntax.Inc || x.Op == syntax.Dec {
				sc.forget(arithName(x.X))
			}
		case *syntax.ParamExp:
			if x.Exp == nil || x.Exp.Op != syntax.AssignUnset && x.Exp.Op != syntax.AssignUnsetOrNull {
				break
			}
			switch {
			case x.Excl: // ${!R=W} assigns the variable R names
				sc.forgetAll()
			case x.Param != nil:
				sc.forget(x.Param.Value)
			}
		}
		return true
	})
}

// arithName returns the variable that arithmetic assigns to in x: N, or a
// in a[i].
func arithName(x syntax.ArithmExpr) string {
	w, ok := x.(*syntax.Word)
	if !ok {
		return ""
	}
	if len(w.Parts) == 1 {
		if p, ok := w.Parts[0].(*syntax.ParamExp); ok && p.Param != nil {
			return p.Param.Value
		}
	}
	return w.Lit()
}

// forgetArith makes the variables that the arithmetic text s assigns
// unknown (let's words, an index given as text: unset 'a[N=2]'); if s
// does not parse, every name in it.
func (sc *scope) forgetArith(s string) {
	x, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Arithmetic(strings.NewReader(s))
	if err != nil {
		for _, name := range names(s) {
			sc.forget(name)
		}
		return
	}
	sc.forgetAssigned(x)
}

// names returns the words of s that could name a variable (and some that
// do not, as x in 0x1F: forgetting one more is safe).
func names(s string) []string {
	var out []string
	for i := 0; i < len(s); {
		if !isNameByte(s[i], true) {
			i++
			continue
		}
		j := i + 1
		for j < len(s) && isNameByte(s[j], false) {
			j++
		}
		out = append(out, s[i:j])
		i = j
	}
	return out
}

func isNameByte(c byte, first bool) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || !first && c >= '0' && c <= '9'
}

// forgetName makes the variable a builtin's word names unknown (read,
// unset, printf -v): NAME, or NAME[INDEX], whose index is arithmetic
// that may assign too.
func (sc *scope) forgetName(w string) {
	name, index, ok := strings.Cut(w, "[")
	if ok {
		sc.forgetArith(strings.TrimSuffix(index, "]"))
	}
	sc.forget(name)
}

// plainDecimal reports whether s is a number that bash's arithmetic
// leaves as it is (not 012, which is octal, nor 1+1).
func plainDecimal(s string) bool {
	if s == "0" {
		return true
	}
	if s == "" || len(s) > 18 || s[0] < '1' || s[0] > '9' {
		return false
	}
	for i := 1; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// paramsKnown reports whether every positional parameter is known.
func (sc *scope) paramsKnown() bool {
	if sc.paramLit == nil {
		return false
	}
	for _, ok := range sc.paramLit {
		if !ok {
			return false
		}
	}
	return true
}

// assign reads a=b, a+=b or a=(b c) in sc.
func (r *reader) assign(sc *scope, a *syntax.Assign, exported bool) {
	if a.Name == nil {
		return
	}
	name := a.Name.Value
	if a.Index != nil || sc.ints[name] && (a.Append || a.Array != nil) {
		// An element; N+=1 or a=(1+1) of an integer variable, arithmetic.
		sc.forget(name)
		return
	}
	old, known := sc.vars[name]
	if a.Append && !known {
		sc.forget(name)
		return
	}
	if a.Array != nil {
		var list []string
		var pre []*Node
		for _, el := range a.Array.Elems {
			if el.Index != nil || el.Value == nil {
				sc.forget(name)
				return
			}
			fs, lit := r.fields(sc, []*syntax.Word{el.Value}, &pre)
			for _, ok := range lit {
				if !ok {
					sc.forget(name)
					return
				}
			}
			list = append(list, fs...)
		}
		if a.Append {
			list = append(slices.Clone(old.List), list...)
		}
		sc.vars[name] = expand.Variable{Set: true, Kind: expand.Indexed, List: list, Exported: exported || old.Exported}
		return
	}
	s, ok := r.literal(sc, a.Value)
	if !ok {
		sc.forget(name)
		return
	}
	if a.Append {
		s = old.Str + s
	}
	sc.set(name, s, exported)
}

// errUnknown stops an expansion that needs what guard cannot know.
var errUnknown = errors.New("unknown")

// env is what expand sees of a scope. It notes when an expansion reads a
// variable guard does not know.
type env struct {
	sc      *scope
	unknown bool
	// tokens, if set, gives a variable guard does not know a stand-in for
	// its value (template), instead of noting it unknown.
	tokens *reader
}

func (e *env) Get(name string) expand.Variable {
	if v, ok := e.sc.vars[name]; ok {
		return v
	}
	switch name {
	case "IFS", "PWD": // the default word splitting; no globbing
		return expand.Variable{}
	case "@", "*", "#":
		if e.sc.paramsKnown() {
			if name == "#" {
				return expand.Variable{Set: true, Kind: expand.String, Str: strconv.Itoa(len(e.sc.params))}
			}
			return expand.Variable{Set: true, Kind: expand.Indexed, List: e.sc.params}
		}
	case "0":
		if e.sc.arg0 != "" {
			return expand.Variable{Set: true, Kind: expand.String, Str: e.sc.arg0}
		}
	default:
		if n, err := strconv.Atoi(name); err == nil && n > 0 && e.sc.paramLit != nil {
			switch {
			case n > len(e.sc.params):
				return expand.Variable{}
			case e.sc.paramLit[n-1]:
				return expand.Variable{Set: true, Kind: expand.String, Str: e.sc.params[n-1]}
			}
		}
	}
	if e.tokens != nil {
		return expand.Variable{Set: true, Kind: expand.String, Str: e.tokens.token("$" + name)}
	}
	e.unknown = true
	return expand.Variable{Set: true, Kind: expand.String}
}

func (e *env) Each(func(name string, vr expand.Variable) bool) {}

func (r *reader) config(sc *scope, e *env) *expand.Config {
	return &expand.Config{
		Env: e,
		CmdSubst: func(w io.Writer, cs *syntax.CmdSubst) error {
			in := r.outputOf(sc, cs.Stmts)
			if !in.known {
				return errUnknown
			}
			_, err := io.WriteString(w, in.text)
			return err
		},
		ProcSubst: func(ps *syntax.ProcSubst) (string, error) {
			r.nmarks++
			path := fmt.Sprintf("/dev/fd/guard-%d", r.nmarks)
			if ps.Op == syntax.CmdIn {
				r.marks[path] = r.outputOf(sc, ps.Stmts)
			} else {
				r.marks[path] = input{what: "a process substitution"}
			}
			return path, nil
		},
	}
}

// fields expands words as bash does: a word may become several fields, or
// none. A word guard cannot expand (it needs a variable from outside, a
// command's output, or a glob) stays one field, as written, and is marked
// not literal. The commands the words' substitutions run are added to
// *pre.
func (r *reader) fields(sc *scope, words []*syntax.Word, pre *[]*Node) (out []string, lit []bool) {
	for _, w := range words {
		if s, ok := plain(w); ok {
			out = append(out, s)
			lit = append(lit, true)
			continue
		}
		*pre = append(*pre, r.substs(sc, w)...)
		fs, ok := r.expand(sc, w)
		if !ok {
			text := sc.text(w)
			r.templates[text] = func() (string, bool) { return r.template(sc, w) }
			out = append(out, text)
			lit = append(lit, false)
			continue
		}
		for _, f := range fs {
			out = append(out, f)
			lit = append(lit, true)
		}
	}
	return out, lit
}

// plain returns the word w if it needs no expansion: one unquoted word
// without $, `, \, braces, ~ or globs, or one in single quotes.
func plain(w *syntax.Word) (string, bool) {
	if len(w.Parts) != 1 {
		return "", false
	}
	switch x := w.Parts[0].(type) {
	case *syntax.Lit:
		if !strings.ContainsAny(x.Value, "$`\\{}~*?[") {
			return x.Value, true
		}
	case *syntax.SglQuoted:
		if !x.Dollar {
			return x.Value, true
		}
	}
	return "", false
}

func (r *reader) expand(sc *scope, w *syntax.Word) (fs []string, ok bool) {
	if hasGlob(w) || braceFields(w) > maxBraceFields {
		return nil, false
	}
	e := &env{sc: sc}
	defer func() {
		if recover() != nil {
			fs, ok = nil, false
		}
	}()
	fs, err := expand.Fields(r.config(sc, e), w)
	if err != nil || e.unknown {
		return nil, false
	}
	return fs, true
}

// template expands w as one string with a stand-in (reader.token) for
// each variable and command output guard cannot know: what a shell would
// run if w were a script (sh -c "cd $DIR && make"). It reports false for
// a word it cannot expand so.
func (r *reader) template(sc *scope, w *syntax.Word) (s string, ok bool) {
	if hasGlob(w) || braceFields(w) > 1 {
		return "", false
	}
	e := &env{sc: sc, tokens: r}
	cfg := r.config(sc, e)
	cfg.CmdSubst = func(out io.Writer, cs *syntax.CmdSubst) error {
		in := r.outputOf(sc, cs.Stmts)
		if !in.known {
			in.text = r.token("$(" + clip(sc.textOf(cs.Stmts), 60) + ")")
		}
		_, err := io.WriteString(out, in.text)
		return err
	}
	defer func() {
		if recover() != nil {
			s, ok = "", false
		}
	}()
	s, err := expand.Literal(cfg, w)
	if err != nil {
		return "", false
	}
	return s, true
}

// notOption reports whether the word a, which guard cannot read, is surely
// no option: its template starts with something known that is not "-".
func (r *reader) notOption(a string) bool {
	tmpl, ok := r.templates[a]
	if !ok {
		return false
	}
	s, ok := tmpl()
	return ok && s != "" && !strings.HasPrefix(s, "-") && !strings.HasPrefix(s, tokenHead)
}

// literal expands w as one string (an assignment's value, a here-string),
// and reports whether guard knows it.
func (r *reader) literal(sc *scope, w *syntax.Word) (s string, ok bool) {
	if w == nil {
		return "", true
	}
	e := &env{sc: sc}
	defer func() {
		if recover() != nil {
			s, ok = "", false
		}
	}()
	s, err := expand.Literal(r.config(sc, e), w)
	if err != nil || e.unknown {
		return "", false
	}
	return s, true
}

// document expands a here-document's body.
func (r *reader) document(sc *scope, w *syntax.Word) (s string, ok bool) {
	e := &env{sc: sc}
	defer func() {
		if recover() != nil {
			s, ok = "", false
		}
	}()
	s, err := expand.Document(r.config(sc, e), w)
	if err != nil || e.unknown {
		return "", false
	}
	return s, true
}

// maxBraceFields is the most words guard expands one word's braces to
// ({1..100000} is read as a word guard cannot know).
const maxBraceFields = 4096

// braceFields returns about how many words the braces of w expand to, at
// most maxBraceFields+1.
func braceFields(w *syntax.Word) int {
	c := *w
	if !syntax.SplitBraces(&c) {
		return 1
	}
	n := 1
	for _, p := range c.Parts {
		b, ok := p.(*syntax.BraceExp)
		if !ok {
			continue
		}
		k := 0
		switch {
		case b.Sequence && len(b.Elems) >= 2:
			from, to := b.Elems[0].Lit(), b.Elems[1].Lit()
			x, err1 := strconv.Atoi(from)
			y, err2 := strconv.Atoi(to)
			switch {
			case err1 == nil && err2 == nil:
				k = min(abs(y-x), maxBraceFields) + 1
			case len(from) == 1 && len(to) == 1:
				k = abs(int(to[0])-int(from[0])) + 1
			default:
				k = 1
			}
		default:
			for _, e := range b.Elems {
				k += braceFields(e)
				if k > maxBraceFields {
					break
				}
			}
		}
		n *= max(k, 1)
		if n > maxBraceFields {
			return maxBraceFields + 1
		}
	}
	return n
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// hasGlob reports whether w has an unquoted glob (*, ?, [...]), which
// bash would match against files.
func hasGlob(w *syntax.Word) bool {
	for _, p := range w.Parts {
		switch x := p.(type) {
		case *syntax.Lit:
			v := x.Value
			for i := 0; i < len(v); i++ {
				switch v[i] {
				case '\\':
					i++
				case '*', '?':
					return true
				case '[':
					if strings.IndexByte(v[i+1:], ']') >= 0 {
						return true
					}
				}
			}
		case *syntax.ExtGlob:
			return true
		}
	}
	return false
}

// outputOf returns what stmts write to stdout, when guard can tell: a
// lone echo, printf, cat of a here-document, or a pipeline of those.
func (r *reader) outputOf(sc *scope, stmts []*syntax.Stmt) input {
	if len(stmts) != 1 {
		return input{src: sc.textOf(stmts)}
	}
	return r.output(sc, stmts[0], input{known: true})
}

func (sc *scope) textOf(stmts []*syntax.Stmt) string {
	if len(stmts) == 0 {
		return ""
	}
	from, to := int(stmts[0].Pos().Offset()), int(stmts[len(stmts)-1].End().Offset())
	if from > to || to > len(sc.src) {
		return ""
	}
	return sc.src[from:to]
}

// output returns what st writes to stdout, reading stdin, when guard can
// tell.
func (r *reader) output(sc *scope, st *syntax.Stmt, stdin input) input {
	unknown := input{src: sc.text(st)}
	if st.Background || st.Negated {
		return unknown
	}
	in := stdin
	for _, rd := range st.Redirs {
		switch {
		case rd.Op == syntax.Hdoc || rd.Op == syntax.DashHdoc:
			in = r.heredoc(sc, rd)
		case rd.Op == syntax.WordHdoc:
			s, ok := r.literal(sc, rd.Word)
			in = input{text: s + "\n", known: ok, what: "a here-string"}
		case rd.N != nil && rd.N.Value == "2": // stderr goes elsewhere
		default:
			return unknown
		}
	}
	switch x := st.Cmd.(type) {
	case *syntax.BinaryCmd:
		if x.Op == syntax.Pipe && len(st.Redirs) == 0 {
			for _, stage := range pipeline(x) {
				if in = r.output(sc, stage, in); !in.known {
					return unknown
				}
			}
			return in
		}
	case *syntax.CallExpr:
		if len(x.Assigns) > 0 {
			return unknown
		}
		var ignore []*Node
		*r.steps -= len(x.Args) // expansion is work too
		words, lit := r.fields(sc, x.Args, &ignore)
		for _, ok := range lit {
			if !ok {
				return unknown
			}
		}
		if len(words) == 0 {
			return unknown
		}
		switch words[0] {
		case "echo":
			return echo(words[1:])
		case "printf":
			return printf(words[1:])
		case "cat":
			if len(words) == 1 || len(words) == 2 && words[1] == "-" {
				return in
			}
		case "tee": // its stdin, to the files and on
			return in
		case "true", ":":
			return input{known: true}
		}
	}
	return unknown
}

func echo(args []string) input {
	newline, escapes := true, false
	for len(args) > 0 && len(args[0]) > 1 && args[0][0] == '-' && strings.Trim(args[0][1:], "neE") == "" {
		newline = newline && !strings.Contains(args[0], "n")
		escapes = strings.ContainsRune(args[0], 'e')
		args = args[1:]
	}
	s := strings.Join(args, " ")
	if escapes {
		out, _, err := expand.Format(nil, "%b", []string{s})
		if err != nil {
			return input{src: "echo -e"}
		}
		s = out
	}
	if newline {
		s += "\n"
	}
	return input{text: s, known: true}
}

func printf(args []string) input {
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		return input{src: "printf"}
	}
	format, rest := args[0], args[1:]
	var b strings.Builder
	for {
		out, n, err := expand.Format(nil, format, rest)
		if err != nil {
			return input{src: "printf"}
		}
		b.WriteString(out)
		if n <= 0 || n >= len(rest) || b.Len() > MaxLength {
			break
		}
		rest = rest[n:]
	}
	return input{text: b.String(), known: true}
}
