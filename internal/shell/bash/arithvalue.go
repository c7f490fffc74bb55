package bash

import (
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// The value of arithmetic in a word ($((X)), ${a[i]}, ${s:X:1}): guard
// expands words with mvdan.cc/sh's expand, whose arithmetic follows a
// name to its value and reads that as a number (0 when it is not one),
// where bash evaluates the value as arithmetic in turn, and substitutes
// the text of $X into the expression before it parses it. So X=1+1;
// $((X)) is 0 to expand and 2 to bash, $(( $X * 2 )) 0 and 3. Guard
// expands arithmetic only when every operand it reads is a number both
// read alike; any other word with arithmetic is one guard cannot know
// (hostile-user-3 M4's class, issue 35).

// arithKnown reports whether expand gives the arithmetic in node (a word,
// and the words nested in it) bash's value: every operand is a number
// bash reads as expand does, or a name whose value is one (or names
// one, and on). Command substitutions are not looked into: their output
// is checked where arithmetic reads it.
func (r *reader) arithKnown(sc *scope, node syntax.Node, depth int) bool {
	if node == nil || depth > maxArith {
		return node == nil
	}
	known := true
	syntax.Walk(node, func(n syntax.Node) bool {
		if !known {
			return false
		}
		switch x := n.(type) {
		case *syntax.CmdSubst, *syntax.ProcSubst:
			return false
		case *syntax.ArithmExp:
			known = r.arithExprKnown(sc, x.X, depth)
			return false
		case *syntax.ParamExp:
			known = r.paramArithKnown(sc, x, depth)
			return false
		}
		return true
	})
	return known
}

// paramArithKnown is arithKnown of the parameter expansion x: its index
// (arithmetic, but for an associative array, @ and *), its slice, and the
// words in it.
func (r *reader) paramArithKnown(sc *scope, x *syntax.ParamExp, depth int) bool {
	if x.Index != nil {
		e := &env{sc: sc}
		v := e.Get(paramName(x))
		switch lit := wordLit(x.Index); {
		case lit == "@" || lit == "*":
		case v.Kind == expand.Associative: // a key: text
			if !r.arithKnown(sc, x.Index, depth) {
				return false
			}
		case !r.arithExprKnown(sc, x.Index, depth):
			return false
		}
	}
	if x.Slice != nil && (!r.arithExprKnown(sc, x.Slice.Offset, depth) || !r.arithExprKnown(sc, x.Slice.Length, depth)) {
		return false
	}
	if x.Exp != nil && x.Exp.Word != nil && !r.arithKnown(sc, x.Exp.Word, depth) {
		return false
	}
	if x.Repl != nil && (x.Repl.Orig != nil && !r.arithKnown(sc, x.Repl.Orig, depth) || x.Repl.With != nil && !r.arithKnown(sc, x.Repl.With, depth)) {
		return false
	}
	return true
}

func wordLit(x syntax.ArithmExpr) string {
	if w, ok := x.(*syntax.Word); ok {
		return w.Lit()
	}
	return ""
}

// arithExprKnown is arithKnown of the arithmetic expression x.
func (r *reader) arithExprKnown(sc *scope, x syntax.ArithmExpr, depth int) bool {
	switch x := x.(type) {
	case nil:
		return true
	case *syntax.Word:
		return r.operandKnown(sc, x, depth)
	case *syntax.ParenArithm:
		return r.arithExprKnown(sc, x.X, depth)
	case *syntax.UnaryArithm:
		return r.arithExprKnown(sc, x.X, depth)
	case *syntax.BinaryArithm:
		switch x.Op {
		case syntax.Shl, syntax.Shr, syntax.ShlAssgn, syntax.ShrAssgn:
			// bash shifts by the count modulo 64 (1<<64 is 1, 1<<-1 the
			// least integer), expand's Go shift gives 0 past 63: only a
			// count written as 0 to 63 is read alike.
			if n, err := strconv.Atoi(wordLit(x.Y)); err != nil || n < 0 || n > 63 {
				return false
			}
		}
		return r.arithExprKnown(sc, x.X, depth) && r.arithExprKnown(sc, x.Y, depth)
	}
	return false
}

// operandKnown reports whether expand reads the operand w of arithmetic
// as bash does. A name (N, or a[i]) is read as its value, which bash
// evaluates as arithmetic; other text ($X, $(cmd), 0x1F) bash puts into
// the expression as it is: it must be one number, unsigned (1-$X with
// X=-3 is 1--3 to bash).
func (r *reader) operandKnown(sc *scope, w *syntax.Word, depth int) bool {
	if !r.arithKnown(sc, w, depth+1) {
		return false
	}
	named := false
	if len(w.Parts) == 1 {
		switch p := w.Parts[0].(type) {
		case *syntax.Lit:
			named = validName(p.Value)
		case *syntax.ParamExp:
			named = !p.Dollar.IsValid()
		}
	}
	s, ok := r.literalOf(sc, w)
	if !ok {
		return false
	}
	if named && !validName(s) { // a[i]: the element's value
		return s == "" || bashNumber(s, true)
	}
	if validName(s) {
		return r.nameKnown(sc, s, depth+1)
	}
	return bashNumber(s, false)
}

// nameKnown reports whether expand reads the variable name in arithmetic
// as bash does: unset or empty (0), a number, or the name of a variable
// that is so in turn.
func (r *reader) nameKnown(sc *scope, name string, depth int) bool {
	if depth > maxArith {
		return false
	}
	e := &env{sc: sc}
	v := e.Get(name)
	if e.unknown {
		return false
	}
	s := v.String()
	switch {
	case s == "":
		return true
	case validName(s):
		return r.nameKnown(sc, s, depth+1)
	}
	return bashNumber(s, true)
}

// bashNumber reports whether s, blanks around it, is one integer constant
// bash reads as expand does: decimal, octal (010), hexadecimal (0x10) or
// BASE#DIGITS up to base 36, small enough not to overflow; with a leading
// - or + if signed.
func bashNumber(s string, signed bool) bool {
	s = strings.Trim(s, " \t\n")
	if signed && s != "" && (s[0] == '-' || s[0] == '+') {
		s = s[1:]
	}
	if s == "" || len(s) > 18 {
		return false
	}
	var err error
	switch {
	case s == "0":
	case strings.HasPrefix(s, "0x") || strings.HasPrefix(s, "0X"):
		if len(s) == 2 {
			return false
		}
		_, err = strconv.ParseUint(s[2:], 16, 63)
	case s[0] == '0':
		_, err = strconv.ParseUint(s[1:], 8, 63)
	case strings.Contains(s, "#"):
		b, digits, _ := strings.Cut(s, "#")
		base, err1 := strconv.Atoi(b)
		if err1 != nil || base < 2 || base > 36 || digits == "" || strings.ContainsAny(digits, "+-_") {
			return false
		}
		_, err = strconv.ParseUint(digits, base, 63)
	default:
		_, err = strconv.ParseUint(s, 10, 63)
	}
	return err == nil
}
