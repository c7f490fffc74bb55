package bash

import (
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"guard/internal/shell"
)

// Limits that keep reading one command line fast whatever it holds (a
// PreToolUse hook must answer at once). A part over them is not read: an
// Unread node says why.
const (
	// MaxLength is the longest string read as commands, in bytes.
	MaxLength = 256 << 10
	// MaxNesting is how deep brackets, braces and compound commands may
	// nest in one string; it is checked before the string is parsed.
	MaxNesting = 100
	// MaxDepth is how deep strings run as commands (sh -c, eval, su -c,
	// ssh, watch, trap) and function and alias calls may nest.
	MaxDepth = 16
	// maxSteps bounds the statements and commands read in all, loops
	// unrolled and functions called.
	maxSteps = 50000
	// maxUnroll is the most words a for loop is unrolled over; beyond, its
	// body is read once and counted that many times.
	maxUnroll = 256
	// maxLevel bounds the syntax tree's depth as it is read.
	maxLevel = 400
)

// A Kind is what a Node is.
type Kind uint8

// The kinds of Node.
const (
	Run    Kind = iota // one simple command: Cmd
	Seq                // Kids, one after the other
	Alt                // one of Kids (the branches of if and case)
	Loop               // Kids in sequence, Times times
	Unread             // a part guard cannot read: Text, Reason
)

// Unknown is the Times of a Loop whose count guard cannot tell (a while
// loop, xargs over input it cannot see, watch, find -exec).
const Unknown = -1

// A Node is a part of what a command line runs, as Read finds it.
type Node struct {
	Kind Kind
	// Cmd is a Run's command, its wrappers (sudo, env, timeout, ...) taken
	// off; a word that is not literal is kept as written.
	Cmd shell.Command
	// Text is the Run or Unread part as written, unshortened.
	Text string
	// Reason says why an Unread part cannot be read, or why a Loop's
	// count is Unknown.
	Reason string
	// Opaque marks an Unread part that is code in another language
	// (python -c, awk): guard does not read it at all.
	Opaque bool
	// Lang marks an Opaque part in a program's own language, read for
	// its data (vim -c, psql -c, gdb -ex, sqlite3's words, what they read
	// from stdin or from a file the line wrote): that language may run a
	// command in ways no escape shows (vim's system(), psql's \o |CMD),
	// but naming a program is no command there (SELECT ... FROM docker).
	// Its caller judges it by whether it spells a command that takes an
	// action.
	Lang bool
	// Limit marks an Unread part over one of the limits above: what guard
	// did not read may be anything in the line.
	Limit bool
	// Failed marks a Limit part guard's own reader failed on (a bug), not
	// one over a limit.
	Failed bool
	// Hidden marks a part that runs commands guard cannot see at all: an
	// Unread string or script whose text comes from a variable, a
	// command's output or a pipe (eval "$CMD", sh -c "$(curl ...)", curl
	// ... | bash), or a Run whose program is an unquoted expansion, which
	// may split into a whole command ($CMD). It may run anything. (A
	// script in a file, bash deploy.sh or bash < deploy.sh, is a program
	// guard does not read, not Hidden.)
	Hidden bool
	// MayRun marks a Run whose program guard does not know (strace,
	// chronic, valgrind, a script): it may run a command among its words,
	// which ArgCommand and ArgScript read. A program known to take its
	// words as data (echo, grep, git commit) is not marked.
	MayRun bool
	Kids   []*Node
	Times  int   // Loop
	stdin  input // a MayRun's stdin
	steps  *int  // a MayRun's reader's steps
}

// Read returns what bash would run for line, as far as guard can tell
// without running anything: see the package doc for what it follows,
// expands and marks. Read never fails and is bounded by the limits above.
func Read(line string) *Node {
	return read(func(r *reader) *Node {
		return r.script(newScope(line), line, input{known: true})
	})
}

// ReadArgv returns what the command argv runs, as exec would run it (guard
// cooldown run's CMD): its words are literal, and its stdin is unknown.
func ReadArgv(argv []string) *Node {
	return read(func(r *reader) *Node {
		sc := newScope(strings.Join(argv, " "))
		lit := make([]bool, len(argv))
		for i := range lit {
			lit[i] = true
		}
		return r.dispatch(sc, argv, lit, sc.src, input{what: "guard's stdin"}, false)
	})
}

func read(fn func(r *reader) *Node) *Node {
	steps := maxSteps
	return readWith(&steps, fn)
}

// readWith reads with the steps left at *steps, and leaves there those it
// did not take: ArgCommand and ArgScript share the steps of the Read that
// found their node.
func readWith(steps *int, fn func(r *reader) *Node) (n *Node) {
	r := &reader{steps: steps, marks: map[string]input{}, bases: map[string]input{}, templates: map[string]func() (string, bool){}}
	defer func() {
		if len(r.tokens) > 0 {
			// A stand-in may have reached a variable or a function (eval
			// "S=$X"), and from there a command outside the string.
			n = r.unhole(n, "")
		}
	}()
	defer func() {
		if v := recover(); v != nil {
			n = &Node{Kind: Unread, Limit: true, Failed: true, Reason: fmt.Sprintf("guard could not read it (%v)", v)}
		}
	}()
	return fn(r)
}

// A reader reads one command line. It is not safe for concurrent use.
type reader struct {
	steps *int             // statements and commands still to read
	out   bool             // the steps ran out (reported once)
	level int              // syntax tree depth
	marks map[string]input // what each <(...) path holds
	bases map[string]input // what the line wrote, by the files' base names
	// later are what the files the statement being read writes where a
	// program runs them later (.git/hooks, ~/.bashrc) will run.
	later   []*Node
	nmarks  int
	scratch strings.Builder
	// templates maps a word guard cannot read, as it stands among a
	// command's words, to what makes it with a stand-in (token) for each
	// part guard cannot know: "cd $DIR" is "cd guardhole0x". A string run
	// as a script is read so (holeScript).
	templates map[string]func() (string, bool)
	// tokens maps each stand-in to what it stands for, as written ($DIR,
	// $(curl ...), {}).
	tokens  map[string]string
	tokenOf map[string]string // the other way round
}

// An input is what a command reads on its stdin.
type input struct {
	text  string
	known bool   // text is all of it
	what  string // if not known: where it comes from ("the file x")
	src   string // if not known: the commands that write it, as written
	file  bool   // if not known: it is a file (< FILE), a script guard does not read
}

// describe says where an unknown input comes from.
func (in input) describe() string {
	switch {
	case in.what != "":
		return in.what
	case in.src != "":
		return "the output of " + clip(in.src, 80)
	}
	return "its stdin"
}

// clip shortens s to about n bytes for a message.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xc0 == 0x80 {
		n--
	}
	return s[:n] + "..."
}

// pipeline returns the stages of the pipeline x, in order.
func pipeline(x *syntax.BinaryCmd) []*syntax.Stmt {
	var out []*syntax.Stmt
	todo := []*syntax.Stmt{x.Y, x.X} // a stack: the next stage last
	for len(todo) > 0 {
		st := todo[len(todo)-1]
		todo = todo[:len(todo)-1]
		if b, ok := st.Cmd.(*syntax.BinaryCmd); ok && (b.Op == syntax.Pipe || b.Op == syntax.PipeAll) &&
			len(st.Redirs) == 0 && !st.Negated && !st.Background {
			todo = append(todo, b.Y, b.X)
			continue
		}
		out = append(out, st)
	}
	return out
}

// step takes one step, and reports false when there are none left.
func (r *reader) step() bool {
	if *r.steps <= 0 {
		return false
	}
	*r.steps--
	return true
}

// exhausted is the node for what is not read once the steps ran out.
func (r *reader) exhausted(text string) *Node {
	if r.out {
		return nil
	}
	r.out = true
	return &Node{Kind: Unread, Text: text, Limit: true, Reason: fmt.Sprintf("it runs more than %d commands, more than guard reads", maxSteps)}
}

// script reads the string s as a shell script run in sc, whose src must be
// s. Statements on lines before a syntax error are read: bash runs them
// before it meets the error.
func (r *reader) script(sc *scope, s string, stdin input) *Node {
	if len(s) > MaxLength {
		return &Node{Kind: Unread, Text: s, Limit: true, Reason: fmt.Sprintf("it is %d KiB long, more than the %d KiB guard reads", len(s)>>10, MaxLength>>10)}
	}
	if d := nesting(s); d > MaxNesting {
		return &Node{Kind: Unread, Text: s, Limit: true, Reason: fmt.Sprintf("it nests more than %d deep, more than guard reads", MaxNesting)}
	}
	var stmts []*syntax.Stmt
	var perr error
	p := syntax.NewParser(syntax.Variant(syntax.LangBash))
	// Not a break on the error: the parser's iterator may yield again
	// after it (mvdan.cc/sh v3.14), which a break would make panic.
	for st, err := range p.StmtsSeq(strings.NewReader(s)) {
		switch {
		case err != nil:
			if perr == nil {
				perr = err
			}
		case perr == nil && st != nil:
			stmts = append(stmts, st)
		}
	}
	var rest *Node
	if perr != nil {
		// bash runs each line as soon as it has read it whole, so what
		// ends on a line before the error has run.
		line := uint(0)
		var pe syntax.ParseError
		if errors.As(perr, &pe) {
			line = pe.Pos.Line()
		}
		keep := 0
		for keep < len(stmts) && stmts[keep].End().Line() < line {
			keep++
		}
		from := 0
		if keep > 0 {
			from = int(stmts[keep-1].End().Offset())
		}
		stmts = stmts[:keep]
		rest = &Node{Kind: Unread, Text: strings.TrimSpace(s[min(from, len(s)):]), Reason: "it does not parse: " + perr.Error()}
	}
	return seq(r.stmts(sc, stmts, stdin), rest)
}

// nesting returns roughly how deep brackets, braces and compound commands
// nest in s, in one pass: quotes are followed, so that brackets in a
// quoted string do not count, but it is not a parser.
func nesting(s string) int {
	depth, most := 0, 0
	inSingle, inDouble := false, false
	open := func() {
		depth++
		most = max(most, depth)
	}
	closeOne := func() {
		if depth > 0 {
			depth--
		}
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case inSingle:
			if c == '\'' {
				inSingle = false
			}
		case c == '\\':
			i++
		case c == '\'' && !inDouble:
			inSingle = true
		case c == '"':
			inDouble = !inDouble
		case c == '$' && i+1 < len(s) && (s[i+1] == '(' || s[i+1] == '{'):
			open()
			i++
		case inDouble:
		case c == '(' || c == '{':
			open()
		case c == ')' || c == '}':
			closeOne()
		case isWordStart(s, i):
			switch keyword(s, i) {
			case "if", "while", "until", "for", "case", "select":
				open()
			case "fi", "done", "esac":
				closeOne()
			}
		}
	}
	return most
}

func isWordStart(s string, i int) bool {
	c := s[i]
	return c >= 'a' && c <= 'z' && (i == 0 || strings.IndexByte(" \t\n;&|(", s[i-1]) >= 0)
}

func keyword(s string, i int) string {
	j := i
	for j < len(s) && s[j] >= 'a' && s[j] <= 'z' {
		j++
	}
	if j < len(s) && strings.IndexByte(" \t\n;&|)", s[j]) < 0 {
		return ""
	}
	return s[i:j]
}

// seq returns the nodes as one, dropping empty ones.
func seq(nodes ...*Node) *Node {
	var kids []*Node
	for _, n := range nodes {
		switch {
		case n == nil:
		case n.Kind == Seq:
			kids = append(kids, n.Kids...)
		default:
			kids = append(kids, n)
		}
	}
	switch len(kids) {
	case 0:
		return nil
	case 1:
		return kids[0]
	}
	return &Node{Kind: Seq, Kids: kids}
}

// alt returns a node that runs one of nodes; a nil one runs nothing.
func alt(nodes ...*Node) *Node {
	some := false
	for _, n := range nodes {
		some = some || n != nil
	}
	if !some {
		return nil
	}
	if len(nodes) == 1 {
		return nodes[0]
	}
	kids := make([]*Node, len(nodes))
	for i, n := range nodes {
		if n == nil {
			n = &Node{Kind: Seq}
		}
		kids[i] = n
	}
	return &Node{Kind: Alt, Kids: kids}
}

func loop(times int, why string, body *Node) *Node {
	if body == nil || times == 0 {
		return nil
	}
	if times == 1 {
		return body
	}
	return &Node{Kind: Loop, Times: times, Reason: why, Kids: []*Node{body}}
}

func unread(text, reason string) *Node {
	return &Node{Kind: Unread, Text: text, Reason: reason}
}

// stmts reads statements run one after the other.
func (r *reader) stmts(sc *scope, list []*syntax.Stmt, stdin input) *Node {
	var out []*Node
	for _, st := range list {
		out = append(out, r.stmt(sc, st, stdin))
	}
	return seq(out...)
}

func (r *reader) stmt(sc *scope, st *syntax.Stmt, stdin input) *Node {
	if !r.step() {
		return r.exhausted(sc.text(st))
	}
	r.level++
	defer func() { r.level-- }()
	if r.level > maxLevel {
		return &Node{Kind: Unread, Text: sc.text(st), Limit: true, Reason: fmt.Sprintf("it nests more than %d deep, more than guard reads", maxLevel)}
	}
	var pre []*Node
	in := stdin
	for _, rd := range st.Redirs {
		sc.forgetAssigned(rd) // > $((N=2)), <<EOF ${N:=3}
	}
	for _, rd := range st.Redirs {
		pre = append(pre, r.substs(sc, rd.Word)...)
		switch rd.Op {
		case syntax.Hdoc, syntax.DashHdoc:
			pre = append(pre, r.substs(sc, rd.Hdoc)...)
			in = r.heredoc(sc, rd)
		case syntax.WordHdoc:
			if s, ok := r.literal(sc, rd.Word); ok {
				in = input{text: s + "\n", known: true}
			} else {
				in = input{what: "the here-string " + clip(sc.text(rd.Word), 80), src: "<<< " + sc.text(rd.Word)}
			}
		case syntax.RdrIn, syntax.RdrInOut:
			if rd.N == nil || rd.N.Value == "0" {
				in = input{what: "the file " + sc.text(rd.Word), file: true}
				if s, ok := r.literal(sc, rd.Word); ok {
					if m, ok := r.fileMark(s); ok {
						in = m
					}
				}
			}
		}
	}
	if st.Background || st.Coprocess || st.Disown {
		sc = sc.subshell() // its assignments stay in it
	}
	n := seq(append(pre, r.command(sc, st.Cmd, in))...)
	r.noteWrites(sc, st, stdin)
	if len(r.later) > 0 {
		n = seq(append([]*Node{n}, r.later...)...)
		r.later = nil
	}
	return n
}

// noteWrites notes what st writes to the files its output redirections
// name (echo CMD > x.sh, cat > x.sh <<EOF), so that a script the line
// writes and then runs (bash x.sh, ./x.sh, source x.sh, crontab x) is read
// as the script it is; one whose text guard cannot tell is a script it
// cannot see.
func (r *reader) noteWrites(sc *scope, st *syntax.Stmt, stdin input) {
	for i, rd := range st.Redirs {
		switch rd.Op {
		case syntax.RdrOut, syntax.AppOut, syntax.ClbOut, syntax.RdrAll, syntax.AppAll:
		default:
			continue
		}
		if rd.N != nil && rd.N.Value != "1" {
			continue
		}
		path, ok := r.literal(sc, rd.Word)
		rest := *st
		rest.Redirs = append(slices.Clone(st.Redirs[:i]), st.Redirs[i+1:]...)
		out := r.output(sc, &rest, stdin)
		if !ok { // ~/.bashrc, $HOME/bin/foo: a name guard cannot know, but where it is
			if runsLater(sc.text(rd.Word)) != "" {
				r.later = append(r.later, r.installed(sc.text(rd.Word), out, sc.text(st)))
			}
			r.noteBase(unquoted(sc.text(rd.Word)), out)
			continue
		}
		r.write(path, out, rd.Op == syntax.AppOut || rd.Op == syntax.AppAll, sc.text(st))
		if m, ok := r.fileMark(path); ok {
			r.noteBase(path, m)
		}
		if runsLater(path) != "" { // what this command adds: the rest was there before
			r.later = append(r.later, r.installed(path, out, sc.text(st)))
		}
	}
}

// write notes that the line writes out to the file path (appends, if
// add), by the command src.
func (r *reader) write(path string, out input, add bool, src string) {
	key := cleanPath(path)
	if old, ok := r.marks[key]; add && ok && old.known && out.known {
		out.text = old.text + out.text
	} else if add && (!ok || !old.known) {
		out = input{}
	}
	if !out.known {
		out = input{what: "the file " + path + ", which the command writes with " + clip(strings.TrimRight(src, "; \t\n&"), 80)}
	}
	r.marks[key] = out
}

// fileMark returns what the line wrote to the file path, if it did (or
// what a <(...) path holds).
func (r *reader) fileMark(path string) (input, bool) {
	if m, ok := r.marks[path]; ok {
		return m, true
	}
	m, ok := r.marks[cleanPath(path)]
	return m, ok
}

// cleanPath is path as a key of the files the line writes: ./x.sh is x.sh.
func cleanPath(p string) string {
	if p == "" || strings.HasPrefix(p, "/dev/") {
		return p
	}
	return filepath.Clean(p)
}

// heredoc returns what the here-document rd feeds its command.
func (r *reader) heredoc(sc *scope, rd *syntax.Redirect) input {
	if rd.Hdoc == nil || rd.Word == nil {
		return input{known: true}
	}
	quoted := false
	for _, p := range rd.Word.Parts {
		if _, ok := p.(*syntax.Lit); !ok {
			quoted = true
		}
	}
	if strings.Contains(sc.text(rd.Word), `\`) {
		quoted = true
	}
	if quoted {
		var b strings.Builder
		for _, p := range rd.Hdoc.Parts {
			if l, ok := p.(*syntax.Lit); ok {
				b.WriteString(l.Value)
			}
		}
		return input{text: b.String(), known: true}
	}
	if s, ok := r.document(sc, rd.Hdoc); ok {
		return input{text: s, known: true}
	}
	return input{what: "a here-document guard cannot expand", src: "<<" + sc.text(rd.Hdoc)}
}

func (r *reader) command(sc *scope, cmd syntax.Command, stdin input) *Node {
	switch x := cmd.(type) {
	case nil:
		return nil
	case *syntax.CallExpr:
		return r.call(sc, x, stdin)
	case *syntax.Block:
		return r.stmts(sc, x.Stmts, stdin)
	case *syntax.Subshell:
		return r.stmts(sc.subshell(), x.Stmts, stdin)
	case *syntax.BinaryCmd:
		switch x.Op {
		case syntax.Pipe, syntax.PipeAll:
			stages := pipeline(x)
			var out []*Node
			in := stdin
			for i, st := range stages {
				out = append(out, r.stmt(sc.subshell(), st, in))
				if i+1 < len(stages) {
					in = r.output(sc, st, in)
					if !in.known {
						in.src = sc.src[stages[0].Pos().Offset():st.End().Offset()]
					}
				}
			}
			return seq(out...)
		default: // && and ||: Y may not run; it is read as if it does
			left := r.stmt(sc, x.X, stdin)
			skipped, ran := sc.fork(), sc.fork()
			right := r.stmt(ran, x.Y, stdin)
			sc.join(skipped, ran)
			return seq(left, right)
		}
	case *syntax.IfClause:
		return r.ifClause(sc, x, stdin)
	case *syntax.WhileClause:
		body := sc.fork()
		n := seq(r.stmts(body, x.Cond, stdin), r.stmts(body, x.Do, stdin))
		sc.join(sc.fork(), body)
		what := "a while loop"
		if x.Until {
			what = "an until loop"
		}
		return loop(Unknown, "in "+what, n)
	case *syntax.ForClause:
		return r.forClause(sc, x, stdin)
	case *syntax.CaseClause:
		sc.forgetAssigned(x.Word) // case ${N:=3} in
		for _, item := range x.Items {
			for _, p := range item.Patterns { // a pattern may be expanded
				sc.forgetAssigned(p)
			}
		}
		pre := r.substs(sc, x.Word)
		branches := []*Node{nil} // no pattern matches
		scopes := []*scope{sc.fork()}
		for _, item := range x.Items {
			b := sc.fork()
			var n []*Node
			for _, p := range item.Patterns {
				n = append(n, r.substs(b, p)...)
			}
			branches = append(branches, seq(append(n, r.stmts(b, item.Stmts, stdin))...))
			scopes = append(scopes, b)
		}
		sc.join(scopes...)
		return seq(append(pre, alt(branches...))...)
	case *syntax.FuncDecl:
		if x.Name != nil {
			sc.define(x.Name.Value, x.Body, sc.src)
		}
		for _, name := range x.Names {
			sc.define(name.Value, x.Body, sc.src)
		}
		return nil
	case *syntax.ArithmCmd:
		sc.forgetAssigned(x)
		return seq(r.substs(sc, x)...)
	case *syntax.LetClause:
		return r.let(sc, x)
	case *syntax.TestClause:
		sc.forgetAssigned(x) // [[ $((N=5)) ]]
		return seq(r.substs(sc, x)...)
	case *syntax.DeclClause:
		return r.decl(sc, x)
	case *syntax.TimeClause:
		if x.Stmt == nil {
			return nil
		}
		return r.stmt(sc, x.Stmt, stdin)
	case *syntax.CoprocClause:
		return r.stmt(sc.subshell(), x.Stmt, stdin)
	case *syntax.TestDecl:
		return nil
	}
	return unread(sc.text(cmd), fmt.Sprintf("guard does not read %T", cmd))
}

func (r *reader) ifClause(sc *scope, x *syntax.IfClause, stdin input) *Node {
	cond := r.stmts(sc, x.Cond, stdin)
	then := sc.fork()
	thenN := r.stmts(then, x.Then, stdin)
	other := sc.fork()
	var otherN *Node
	switch {
	case x.Else == nil:
	case len(x.Else.Cond) == 0: // else
		otherN = r.stmts(other, x.Else.Then, stdin)
	default: // elif
		otherN = r.ifClause(other, x.Else, stdin)
	}
	sc.join(then, other)
	return seq(cond, alt(thenN, otherN))
}

func (r *reader) forClause(sc *scope, x *syntax.ForClause, stdin input) *Node {
	sc.forgetAssigned(x.Loop) // for x in ${N:=3}; the C-style loop's parts
	if x.Select {
		body := sc.fork()
		n := r.stmts(body, x.Do, stdin)
		sc.join(sc.fork(), body)
		return loop(Unknown, "in a select loop", n)
	}
	switch l := x.Loop.(type) {
	case *syntax.WordIter:
		var pre []*Node
		var items []string
		known := true
		if l.Items == nil && !l.InPos.IsValid() {
			items, known = sc.params, sc.paramsKnown()
		} else {
			var lit []bool
			items, lit = r.fields(sc, l.Items, &pre)
			for _, ok := range lit {
				known = known && ok
			}
		}
		name := l.Name.Value
		if known && len(items) <= maxUnroll {
			for _, it := range items {
				sc.set(name, it, false)
				pre = append(pre, r.stmts(sc, x.Do, stdin))
			}
			return seq(pre...)
		}
		body := sc.fork()
		body.forget(name)
		n := r.stmts(body, x.Do, stdin)
		sc.join(sc.fork(), body)
		if known {
			return seq(append(pre, loop(len(items), "in a for loop", n))...)
		}
		return seq(append(pre, loop(Unknown, "in a for loop over words guard cannot read", n))...)
	case *syntax.CStyleLoop:
		pre := r.substs(sc, l)
		body := sc.fork()
		n := r.stmts(body, x.Do, stdin)
		sc.join(sc.fork(), body)
		return seq(append(pre, loop(Unknown, "in a for ((...)) loop", n))...)
	}
	return unread(sc.text(x), "guard does not read this loop")
}

// call reads a simple command: its assignments, the commands its words'
// substitutions run, then the command.
func (r *reader) call(sc *scope, x *syntax.CallExpr, stdin input) *Node {
	// What its words' arithmetic and ${N:=W} assign, in the shell, before
	// any word is expanded: N=1; docker restart $((N=2)) web$N restarts
	// web2.
	sc.forgetAssigned(x)
	var pre []*Node
	for _, a := range x.Assigns {
		pre = append(pre, r.substs(sc, a)...)
	}
	if len(x.Args) == 0 {
		for _, a := range x.Assigns {
			r.assign(sc, a, false)
			pre = append(pre, r.commandVar(sc, a)...)
		}
		return seq(pre...)
	}
	env := sc
	if len(x.Assigns) > 0 { // VAR=x cmd: for cmd's environment only
		env = sc.fork()
		for _, a := range x.Assigns {
			r.assign(env, a, true)
			pre = append(pre, r.commandVar(env, a)...)
		}
	}
	// An alias is expanded as text, before the words are.
	if name, ok := plainWord(x.Args[0]); ok {
		if values, ok := sc.aliases[name]; ok && name != sc.aliasing && sc.depth < MaxDepth {
			rest := ""
			if len(x.Args) > 1 {
				rest = sc.src[x.Args[1].Pos().Offset():x.Args[len(x.Args)-1].End().Offset()]
			}
			var alts []*Node
			scopes := []*scope{}
			for _, v := range values {
				b := env.fork()
				inner := b.eval(v + " " + rest)
				inner.aliasing = name
				alts = append(alts, r.script(inner, inner.src, stdin))
				scopes = append(scopes, b)
			}
			// bash expands aliases only with expand_aliases, and not on
			// the line that defines them: the word may run as it is.
			b := env.fork()
			words, lit := r.fields(b, x.Args, &pre)
			alts = append(alts, r.dispatch(b, words, lit, sc.text(x), stdin, true))
			scopes = append(scopes, b)
			if env == sc {
				sc.join(scopes...)
			}
			return seq(append(pre, alt(alts...))...)
		}
	}
	words, lit := r.fields(sc, x.Args, &pre)
	return seq(append(pre, r.dispatch(env, words, lit, sc.text(x), stdin, true))...)
}

// plainWord returns w if it is a plain unquoted word, as an alias name
// must be.
func plainWord(w *syntax.Word) (string, bool) {
	if len(w.Parts) != 1 {
		return "", false
	}
	l, ok := w.Parts[0].(*syntax.Lit)
	if !ok || strings.ContainsAny(l.Value, `\/$`) {
		return "", false
	}
	return l.Value, true
}

// substs reads the commands that the command and process substitutions
// in node run, each in a subshell; nested ones are read with them.
func (r *reader) substs(sc *scope, node syntax.Node) []*Node {
	if node == nil || reflect.ValueOf(node).IsNil() { // a *Word that is nil, too
		return nil
	}
	var out []*Node
	syntax.Walk(node, func(n syntax.Node) bool {
		switch x := n.(type) {
		case *syntax.CmdSubst:
			out = append(out, r.stmts(sc.subshell(), x.Stmts, input{known: true}))
			return false
		case *syntax.ProcSubst:
			out = append(out, r.stmts(sc.subshell(), x.Stmts, input{what: "a process substitution"}))
			return false
		}
		return true
	})
	return out
}

// let reads let's words: each one's text, quoted or not, is arithmetic
// bash evaluates once the words are expanded (let "N=2" assigns N).
func (r *reader) let(sc *scope, x *syntax.LetClause) *Node {
	pre := r.substs(sc, x)
	sc.forgetAssigned(x) // let N=2, and what expanding the words assigns
	var texts []string
	unknown := false
	for _, e := range x.Exprs {
		w, ok := e.(*syntax.Word)
		if !ok {
			continue
		}
		// As a command's words: split, quotes and backslashes removed
		// (let N\=2).
		fs, ok := r.expand(sc, w)
		if !ok { // let "$(cat f)": a text guard cannot know may assign anything
			unknown = true
		}
		texts = append(texts, fs...)
	}
	if unknown {
		sc.forgetAll()
		return seq(pre...)
	}
	for _, s := range texts {
		sc.forgetArith(s)
	}
	return seq(pre...)
}

// decl reads declare, local, export, readonly and typeset.
func (r *reader) decl(sc *scope, x *syntax.DeclClause) *Node {
	sc.forgetAssigned(x) // declare x=$((N=2)), a[N=2]=x
	var pre []*Node
	variant := ""
	if x.Variant != nil {
		variant = x.Variant.Value
	}
	isExport := variant == "export"
	typed := variant == "declare" || variant == "typeset" || variant == "local"
	exported, unexported := isExport, false
	// declare -i, typeset -i, local -i: what is assigned to its names is
	// arithmetic. declare -n: its names are namerefs.
	integer, nameref, display := false, false, false
	// In a function, local, declare and typeset make their variables the
	// function's own (but declare -g).
	local := typed
	// A word guard cannot read (declare "$X", local $X) may be any
	// option or assignment: code guard cannot read.
	var words []*syntax.Assign
	for _, a := range x.Args {
		pre = append(pre, r.substs(sc, a)...)
		if !a.Naked || a.Name != nil {
			words = append(words, a)
			continue
		}
		s, ok := r.literal(sc, a.Value)
		switch {
		case !ok:
			sc.unreadable()
			continue
		case strings.HasPrefix(s, "-") || strings.HasPrefix(s, "+"):
		default: // declare "N=2": an assignment, as bash reads the word
			at := 0 // declare "a[N=2]=x": the = after the index
			if i := strings.IndexAny(s, "[="); i >= 0 && s[i] == '[' {
				at = max(strings.IndexByte(s, ']'), 0)
			}
			name, value, assigns := strings.Cut(s[at:], "=")
			name = strings.TrimSuffix(s[:at]+name, "+")
			base, _, _ := strings.Cut(name, "[")
			if !validName(base) {
				continue // bash rejects it
			}
			if !assigns {
				words = append(words, &syntax.Assign{Naked: true, Name: &syntax.Lit{Value: base}})
				continue
			}
			if local {
				sc.local(base)
			}
			sc.forgetName(name)
			if !strings.Contains(name, "[") && !strings.HasSuffix(s[:len(name)+1], "+") && !integer && !nameref {
				sc.set(base, value, exported)
			}
			continue
		}
		on := strings.HasPrefix(s, "-")
		if on && typed && strings.Contains(s, "i") {
			integer = true
		}
		if on && typed && strings.Contains(s, "n") {
			nameref = true
		}
		if on && strings.ContainsAny(s, "pfF") {
			display = true // declare -p, -f: it shows, and sets nothing
		}
		if on && strings.Contains(s, "g") {
			local = false
		}
		switch {
		case isExport && on && strings.Contains(s, "n"),
			!isExport && !on && strings.Contains(s, "x"):
			// export -n NAME, declare +x NAME: NAME stays, no longer
			// in the environment of what the line runs next.
			unexported = true
		case on && strings.Contains(s, "x"):
			exported = true
		}
	}
	if unexported {
		exported = false
	}
	for _, a := range words {
		if a.Name == nil {
			continue
		}
		name := a.Name.Value
		if local {
			sc.local(name)
		}
		if integer {
			sc.ints[name] = true
		}
		switch {
		case nameref:
			// declare -n R=N: R refers to N; assigning R assigns N.
			t := ""
			if a.Value != nil && a.Index == nil {
				if s, ok := r.literal(sc, a.Value); ok {
					t = s
				}
			}
			sc.refs[name] = t
			delete(sc.vars, name)
			delete(sc.nums, name)
		case a.Naked && unexported:
			sc.unexport(name)
		case a.Naked && local && sc.locals != nil && !display:
			// local N: a new variable of the function's, unset (or
			// the caller's value, with localvar_inherit).
			delete(sc.vars, name)
			delete(sc.nums, name)
			sc.export(name, exported)
		case a.Naked:
			sc.export(name, exported)
		default:
			r.assign(sc, a, exported)
			if unexported {
				sc.unexport(name)
			}
			pre = append(pre, r.commandVar(sc, a)...)
		}
	}
	return seq(pre...)
}

// commandVar reads the command a program may run from the variable a sets,
// if it is one of those (shell.CommandVar: GIT_SSH_COMMAND, EDITOR,
// LESSOPEN, BASH_ENV, ...): a program the line runs may run it, so it is
// read as if it ran, once.
func (r *reader) commandVar(sc *scope, a *syntax.Assign) []*Node {
	if a.Name == nil || a.Value == nil || a.Index != nil || a.Array != nil {
		return nil
	}
	how := shell.CommandVar(a.Name.Value)
	if how == "" {
		return nil
	}
	what := "the command in " + a.Name.Value
	v, ok := r.literal(sc, a.Value)
	if !ok {
		return []*Node{{Kind: Unread, Text: sc.text(a), Reason: what + " cannot be known before it runs", Hidden: true}}
	}
	if how == "file" {
		if in, ok := r.fileMark(v); ok {
			return []*Node{r.stdinScript(sc.shellOf, sc, in, sc.text(a), a.Name.Value)}
		}
		return nil
	}
	v = strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(v), "|"), "%s")) // LESSOPEN="|cmd %s"
	if v == "" {
		return nil
	}
	return []*Node{r.runString(sc.shellOf, sc, []string{v}, []bool{true}, "", sc.text(a), input{}, a.Name.Value)}
}
