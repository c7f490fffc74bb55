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
	"unicode/utf8"

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
		delete(sc.nums, name)
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
	ints map[string]bool
	// nums are variables guard does not know whose value is a number
	// (arithmetic assigned them, or each branch gave them one): arithmetic
	// that reads one assigns nothing through it.
	nums map[string]bool
	// refs are the variables that may be namerefs (declare -n R=N), each
	// with the variable it refers to ("": one guard cannot tell). A
	// nameref is unknown, and assigning to it assigns what it refers to.
	refs map[string]string
	// wild reports that code guard cannot read (eval "$X", declare $X)
	// ran in this shell: any variable may be a nameref or an integer.
	wild   bool
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
		ints: map[string]bool{}, nums: map[string]bool{}, refs: map[string]string{},
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
	st.nums = maps.Clone(sc.nums)
	st.refs = maps.Clone(sc.refs)
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
	// A variable each branch leaves a number, known or not, is a number.
	nums := map[string]bool{}
	for _, o := range outs {
		for k := range o.nums {
			nums[k] = true
		}
		for k := range o.vars {
			nums[k] = true
		}
	}
	for k := range nums {
		_, drop := vars[k]
		for _, o := range outs {
			v, ok := o.vars[k]
			drop = drop || !(o.nums[k] || ok && v.Kind == expand.String && number(v.Str))
		}
		if drop {
			delete(nums, k)
		}
	}
	sc.nums = nums
	funcs := map[string][]function{}
	aliases := map[string][]string{}
	for _, o := range outs {
		for k := range o.ints { // an integer in any branch may be one after
			sc.ints[k] = true
		}
		for k, t := range o.refs { // a nameref in any branch may be one after
			if old, ok := sc.refs[k]; ok && old != t {
				t = ""
			}
			sc.refs[k] = t
		}
		sc.wild = sc.wild || o.wild
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
// as it is, and is unknown otherwise (and what that arithmetic assigns,
// too); a nameref stays unknown, and what it refers to becomes unknown.
func (sc *scope) set(name, value string, exported bool) {
	if (sc.ints[name] || sc.wild) && !plainDecimal(value) {
		sc.arithText(value, 0)
		sc.forget(name)
		if sc.ints[name] {
			sc.nums[name] = true
		}
		return
	}
	sc.through(name)
	old := sc.vars[name]
	delete(sc.nums, name)
	sc.vars[name] = expand.Variable{Set: true, Kind: expand.String, Str: value, Exported: exported || old.Exported}
}

// unset makes name known to be unset (and, if it is a nameref, what it
// refers to unknown).
func (sc *scope) unset(name string) {
	sc.through(name)
	delete(sc.nums, name)
	sc.vars[name] = expand.Variable{}
}

// forgetAll makes every variable unknown.
func (sc *scope) forgetAll() {
	clear(sc.vars)
	clear(sc.nums)
}

// unreadable notes that code guard cannot read ran in this shell (eval
// "$X", declare $X): it may have assigned any variable and made any one a
// nameref or an integer.
func (sc *scope) unreadable() {
	sc.forgetAll()
	sc.wild = true
}

// forget makes name unknown, as something assigned it (and, if it is a
// nameref, what it refers to).
func (sc *scope) forget(name string) {
	sc.through(name)
	delete(sc.vars, name)
	delete(sc.nums, name)
}

// through makes unknown what an assignment to name assigns if name is a
// nameref: the variable it refers to (and on, along namerefs), or, when
// guard cannot tell which, every variable.
func (sc *scope) through(name string) {
	if sc.wild {
		sc.forgetAll()
		return
	}
	for range MaxDepth {
		t, ok := sc.refs[name]
		if !ok {
			return
		}
		target, index, _ := strings.Cut(t, "[")
		if !validName(target) {
			break
		}
		if index != "" { // declare -n R='a[N=2]'
			sc.arithText(strings.TrimSuffix(index, "]"), 0)
		}
		delete(sc.vars, target)
		delete(sc.nums, target)
		name = target
	}
	sc.forgetAll()
}

// validName reports whether s is a variable's name.
func validName(s string) bool {
	if s == "" || !isNameByte(s[0], true) {
		return false
	}
	for i := 1; i < len(s); i++ {
		if !isNameByte(s[i], false) {
			return false
		}
	}
	return true
}

// number reports whether s is a number, which arithmetic reading it
// evaluates to itself: it assigns nothing.
func number(s string) bool {
	s = strings.TrimSpace(s)
	s = strings.TrimPrefix(strings.TrimPrefix(s, "-"), "+")
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

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
// (( )), let, $((...)), a C-style for, an array's index or a slice's
// offset (a[N=2]=x, ${a[N=2]}), or [[ X -eq Y ]]; what the values
// arithmetic reads assign when bash evaluates them as arithmetic in turn
// (X='N=2'; (( X )), (( $X ))); and ${N:=W} and ${N=W}. A command's words
// are expanded one after the other, each seeing what the ones before it
// assigned: its caller forgets before it expands any of them.
func (sc *scope) forgetAssigned(node syntax.Node) {
	if node == nil || reflect.ValueOf(node).IsNil() {
		return
	}
	syntax.Walk(node, func(n syntax.Node) bool {
		switch x := n.(type) {
		case *syntax.ArithmCmd:
			sc.arith(x.X, 0)
		case *syntax.ArithmExp:
			sc.arith(x.X, 0)
		case *syntax.LetClause:
			for _, e := range x.Exprs {
				sc.arith(e, 0)
			}
		case *syntax.CStyleLoop:
			sc.arith(x.Init, 0)
			sc.arith(x.Cond, 0)
			sc.arith(x.Post, 0)
		case *syntax.Assign:
			sc.arith(x.Index, 0)
		case *syntax.ParamExp:
			sc.paramAssigns(x)
			if v, ok := sc.vars[paramName(x)]; !ok || v.Kind != expand.Associative {
				sc.arith(x.Index, 0)
			}
			if x.Slice != nil {
				sc.arith(x.Slice.Offset, 0)
				sc.arith(x.Slice.Length, 0)
			}
		case *syntax.BinaryTest:
			switch x.Op {
			case syntax.TsEql, syntax.TsNeq, syntax.TsLeq, syntax.TsGeq, syntax.TsLss, syntax.TsGtr:
				// [[ X -eq 1 ]] evaluates both sides as arithmetic.
				for _, side := range []syntax.TestExpr{x.X, x.Y} {
					if w, ok := side.(*syntax.Word); ok {
						sc.arith(w, 0)
					}
				}
			}
		}
		return true
	})
}

// paramAssigns makes what ${N:=W} and ${N=W} assign unknown.
func (sc *scope) paramAssigns(x *syntax.ParamExp) {
	if x.Exp == nil || x.Exp.Op != syntax.AssignUnset && x.Exp.Op != syntax.AssignUnsetOrNull {
		return
	}
	switch {
	case x.Excl: // ${!R=W} assigns the variable R names
		sc.forgetAll()
	case x.Param != nil:
		sc.forget(x.Param.Value)
	}
}

func paramName(x *syntax.ParamExp) string {
	if x.Param == nil {
		return ""
	}
	return x.Param.Value
}

// maxArith is how deep guard follows values that arithmetic reads and
// evaluates as arithmetic in turn (X='Y', Y='N=2').
const maxArith = 8

// arith makes unknown what bash's evaluation of the arithmetic x
// assigns: its own assignments (a plain name they assign holds a number
// after), and, for each value it reads, what that value's text assigns as
// arithmetic. A value guard does not know, and that is not known to be a
// number, may assign any variable: every one becomes unknown. (So may one
// from outside the line: (( X )) with X='N=2' assigns N.)
func (sc *scope) arith(x syntax.ArithmExpr, depth int) {
	if x == nil || reflect.ValueOf(x).IsNil() {
		return
	}
	if depth > maxArith {
		sc.forgetAll()
		return
	}
	// What it reads first (the values are read before they are
	// assigned): every word but the name that a plain = assigns.
	assigned := map[*syntax.Word]bool{}
	syntax.Walk(x, func(n syntax.Node) bool {
		switch x := n.(type) {
		case *syntax.BinaryArithm:
			if w, ok := x.X.(*syntax.Word); ok && x.Op == syntax.Assgn {
				assigned[w] = true
			}
		case *syntax.Word:
			if !assigned[x] {
				sc.arithWord(x, depth)
			}
		}
		return true
	})
	syntax.Walk(x, func(n syntax.Node) bool {
		switch x := n.(type) {
		case *syntax.BinaryArithm:
			switch x.Op { // not a range: Assgn comes after ShrAssgn among the operators
			case syntax.Assgn, syntax.AddAssgn, syntax.SubAssgn, syntax.MulAssgn, syntax.QuoAssgn, syntax.RemAssgn,
				syntax.AndAssgn, syntax.OrAssgn, syntax.XorAssgn, syntax.ShlAssgn, syntax.ShrAssgn, syntax.PowAssgn:
				sc.arithAssigned(x.X)
			}
		case *syntax.UnaryArithm:
			if x.Op == syntax.Inc || x.Op == syntax.Dec {
				sc.arithAssigned(x.X)
			}
		case *syntax.ParamExp:
			sc.paramAssigns(x)
		}
		return true
	})
}

// arithAssigned makes the variable arithmetic assigns to in x unknown: a
// plain name holds a number after.
func (sc *scope) arithAssigned(x syntax.ArithmExpr) {
	name := arithName(x)
	sc.forget(name)
	if w, ok := x.(*syntax.Word); ok && len(w.Parts) == 1 {
		if _, ok := w.Parts[0].(*syntax.Lit); ok && validName(name) {
			sc.nums[name] = true
		}
	}
}

// arithWord makes unknown what evaluating the word w of arithmetic
// assigns through what it reads: a name's value, or the text w expands to.
func (sc *scope) arithWord(w *syntax.Word, depth int) {
	if len(w.Parts) == 1 {
		switch p := w.Parts[0].(type) {
		case *syntax.Lit:
			if validName(p.Value) {
				sc.arithRead(p.Value, depth)
			}
			return // a number
		case *syntax.ParamExp:
			if !p.Dollar.IsValid() && p.Param != nil { // a[i]: an element's value
				sc.arithRead(p.Param.Value, depth)
				return
			}
		}
	}
	e := &env{sc: sc, numbers: true}
	s, err := func() (s string, err error) {
		defer func() {
			if recover() != nil {
				err = errUnknown
			}
		}()
		return expand.Document(&expand.Config{Env: e}, unescaped(w))
	}()
	if err != nil || e.unknown {
		sc.forgetAll()
		return
	}
	sc.arithText(s, depth+1)
}

// arithRead makes unknown what arithmetic reading the variable name
// assigns as its value is evaluated: what the text of each of its values
// assigns, or, for a value guard does not know and that is not known to
// be a number, every variable.
func (sc *scope) arithRead(name string, depth int) {
	if _, ok := sc.refs[name]; ok || sc.wild {
		sc.forgetAll()
		return
	}
	v, ok := sc.vars[name]
	switch {
	case ok:
		vals := append([]string{v.Str}, v.List...)
		for _, s := range v.Map {
			vals = append(vals, s)
		}
		for _, s := range vals {
			if !number(s) {
				sc.arithText(s, depth+1)
			}
		}
	case sc.nums[name], numberVars[name]:
	default:
		sc.forgetAll()
	}
}

// numberVars are bash's own variables that hold a number.
var numberVars = map[string]bool{
	"RANDOM": true, "SRANDOM": true, "SECONDS": true, "LINENO": true, "EPOCHSECONDS": true,
	"BASHPID": true, "PPID": true, "UID": true, "EUID": true, "OPTIND": true, "COLUMNS": true, "LINES": true,
	"SHLVL": true, "HISTCMD": true,
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
// unknown (let's words, an index given as text: unset 'a[N=2]').
func (sc *scope) forgetArith(s string) { sc.arithText(s, 0) }

// arithText makes unknown what bash's evaluation of the arithmetic text s
// assigns (see arith); if s does not parse, every name in it, and what
// reading each assigns.
func (sc *scope) arithText(s string, depth int) {
	if depth > maxArith {
		sc.forgetAll()
		return
	}
	x, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Arithmetic(strings.NewReader(s))
	if err != nil {
		for _, name := range names(s) {
			sc.arithRead(name, depth)
			sc.forget(name)
		}
		return
	}
	sc.arith(x, depth)
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
	if _, ok := sc.refs[name]; a.Array != nil && (ok || sc.wild) {
		sc.forget(name) // R=(x): what R refers to
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
	// numbers, if set, gives one known to hold a number 0 (arithmetic
	// reads it: it assigns nothing).
	numbers bool
}

func (e *env) Get(name string) expand.Variable {
	if _, ref := e.sc.refs[name]; !ref { // a nameref reads what it refers to
		if v, ok := e.sc.vars[name]; ok {
			return v
		}
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
	if e.numbers && (e.sc.nums[name] || numberVars[name]) {
		return expand.Variable{Set: true, Kind: expand.String, Str: "0"}
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
	if hasGlob(w) || braceFields(w) > maxBraceFields || !r.arithKnown(sc, w, 0) {
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
	if hasGlob(w) || braceFields(w) > 1 || !r.arithKnown(sc, w, 0) {
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
	s, err := expand.Literal(cfg, unescaped(w))
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
	if !r.arithKnown(sc, w, 0) {
		return "", false
	}
	return r.literalOf(sc, w)
}

// literalOf is literal of a word whose arithmetic arithKnown has checked.
func (r *reader) literalOf(sc *scope, w *syntax.Word) (s string, ok bool) {
	e := &env{sc: sc}
	defer func() {
		if recover() != nil {
			s, ok = "", false
		}
	}()
	s, err := expand.Literal(r.config(sc, e), unescaped(w))
	if err != nil || e.unknown {
		return "", false
	}
	return s, true
}

// unescaped returns w with each unquoted backslash and the character it
// quotes as that character in single quotes: expand.Literal keeps an
// unquoted backslash (we\b), where bash takes it off (web), as
// expand.Fields does. Inside double quotes expand.Literal already takes
// one off only before $, `, " and \ (and the parser drops a backslash
// before a newline everywhere).
func unescaped(w *syntax.Word) *syntax.Word {
	var parts []syntax.WordPart
	for i, p := range w.Parts {
		l, ok := p.(*syntax.Lit)
		if !ok || !strings.Contains(l.Value, `\`) {
			if parts != nil {
				parts = append(parts, p)
			}
			continue
		}
		if parts == nil {
			parts = slices.Clone(w.Parts[:i])
		}
		v := l.Value
		for {
			j := strings.IndexByte(v, '\\')
			if j < 0 || j == len(v)-1 { // a trailing backslash stays
				break
			}
			_, size := utf8.DecodeRuneInString(v[j+1:])
			parts = append(parts, &syntax.Lit{Value: v[:j]}, &syntax.SglQuoted{Value: v[j+1 : j+1+size]})
			v = v[j+1+size:]
		}
		parts = append(parts, &syntax.Lit{Value: v})
	}
	if parts == nil {
		return w
	}
	return &syntax.Word{Parts: parts}
}

// document expands a here-document's body.
func (r *reader) document(sc *scope, w *syntax.Word) (s string, ok bool) {
	if !r.arithKnown(sc, w, 0) {
		return "", false
	}
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
