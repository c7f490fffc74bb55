package bash

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"mvdan.cc/sh/v3/expand"

	"guard/internal/shell"
	"guard/internal/shell/sh"
)

// dispatch reads the command words (lit[i]: words[i] is what the program
// receives) as run in sc: a function, a builtin that runs a string (eval,
// trap), or a program that runs other commands (sudo, sh -c, xargs, find
// -exec, ...); any other is one Run. inShell is false for a command that
// exec runs directly (xargs's, find's), where functions and builtins do
// not exist.
func (r *reader) dispatch(sc *scope, words []string, lit []bool, text string, stdin input, inShell bool) *Node {
	if !r.step() {
		return r.exhausted(text)
	}
	if len(words) == 0 {
		return nil
	}
	if !lit[0] {
		// $HOME/bin/docker is docker, whatever HOME is.
		if b := literalBase(words[0]); b != "" {
			words = append([]string{b}, words[1:]...)
			lit = append([]bool{true}, lit[1:]...)
		} else {
			n := r.program(words, lit, text, stdin)
			n.Hidden = mayBeCommand(words[0])
			return n
		}
	}
	name := shell.BaseName(words[0])
	if inShell && name == words[0] {
		if fs, ok := sc.funcs[name]; ok {
			return r.callFunction(sc, fs, words, lit, text, stdin)
		}
		switch name {
		case "eval":
			n := r.runString(sc.eval, sc, words[1:], lit[1:], " ", text, stdin, "eval")
			if n != nil && n.Kind == Unread {
				sc.unreadable() // a string guard cannot read may set anything
			}
			return n
		case "trap":
			return r.trap(sc, words, lit, text)
		case "alias":
			for i, w := range words[1:] {
				if k, v, ok := strings.Cut(w, "="); ok && lit[i+1] {
					sc.aliases[k] = []string{v}
				}
			}
			return nil
		case "unalias":
			for _, w := range words[1:] {
				if w == "-a" {
					clear(sc.aliases)
				}
				delete(sc.aliases, w)
			}
			return nil
		case "unset":
			fn := slices.Contains(words[1:], "-f")
			ref := slices.Contains(words[1:], "-n")
			for i, w := range words[1:] {
				switch {
				case !lit[i+1]:
					// unset $V: any variable may be unset now.
					sc.forgetAll()
				case strings.HasPrefix(w, "-"):
				case ref: // unset -n R: R itself, not what it refers to
					delete(sc.refs, w)
					sc.vars[w] = expand.Variable{}
				case fn:
					delete(sc.funcs, w)
				case strings.Contains(w, "["): // unset 'a[N=2]': an element, and its index's arithmetic
					sc.forgetName(w)
				default:
					sc.unset(w)
				}
			}
			return nil
		case "read", "mapfile", "readarray", "getopts":
			for i, w := range words[1:] {
				if !lit[i+1] { // read $V: any variable
					sc.forgetAll()
				} else if !strings.HasPrefix(w, "-") {
					sc.forgetName(w)
				}
			}
			return nil
		case "set":
			for i, w := range words[1:] {
				if w == "--" {
					sc.params, sc.paramLit = words[i+2:], lit[i+2:]
				}
			}
			return nil
		case "shift":
			n := 1
			if len(words) > 1 {
				n, _ = strconv.Atoi(words[1])
			}
			if n > 0 && n <= len(sc.params) {
				sc.params, sc.paramLit = sc.params[n:], sc.paramLit[n:]
			}
			return nil
		case "source", ".":
			if len(words) > 1 {
				if in, ok := r.scriptFile(words[1], stdin); ok {
					return r.stdinScript(sc.eval, sc, in, text, name)
				}
			}
			sc.unreadable() // a file guard does not read may set anything
			if len(words) > 1 {
				if n := r.diskFile(name, words[1]); n != nil {
					return seq(r.program(words, lit, text, stdin), n)
				}
			}
			return r.program(words, lit, text, stdin)
		case "printf":
			for i := 1; i+1 < len(words) && strings.HasPrefix(words[i], "-"); i++ {
				if words[i] == "-v" && !lit[i+1] {
					sc.forgetAll()
				} else if words[i] == "-v" {
					sc.forgetName(words[i+1])
				}
			}
		}
	}
	if rn, ok := shell.LookupRunner(name); ok && !rn.Own {
		if rn.Data {
			return r.dataProgram(sc, name, rn, words, lit, text, stdin)
		}
		return r.wrapper(sc, name, rn, words, lit, text, stdin, inShell)
	}
	if strings.Contains(words[0], "/") {
		if in, ok := r.fileMark(words[0]); ok { // echo CMD > x.sh; chmod +x x.sh; ./x.sh
			return r.wroteScript(sc, words, in, text)
		}
		if n := r.diskFile(words[0], "itself"); n != nil {
			return seq(r.program(words, lit, text, stdin), n)
		}
	}
	switch name {
	case "sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "yash", "posh", "rbash", "fish", "csh", "tcsh", "ksh93", "oksh", "loksh":
		return r.shellCommand(sc, words, lit, text, stdin)
	case "tee":
		r.tee(words, lit, stdin, text)
		return runNode(words, lit, text)
	case "cp", "mv", "install", "ln":
		r.copyMarks(words, lit)
		return runNode(words, lit, text)
	case "dd":
		// dd if=X of=Y copies X to Y.
		var from, to string
		for i, w := range words[1:] {
			if lit[i+1] {
				if v, ok := strings.CutPrefix(w, "if="); ok {
					from = v
				} else if v, ok := strings.CutPrefix(w, "of="); ok {
					to = v
				}
			}
		}
		if in, ok := r.fileMark(from); ok && to != "" {
			r.copyTo(to, in, text)
		}
		return runNode(words, lit, text)
	case "make", "gmake":
		return r.make(sc, words, lit, text, stdin)
	case "crontab":
		return r.crontab(sc, words, lit, text, stdin)
	case "su", "runuser":
		return r.su(sc, words, lit, text, stdin)
	case "xargs":
		return r.xargs(sc, words, lit, text, stdin)
	case "find":
		return r.find(sc, words, lit, text)
	case "watch":
		return r.watch(sc, words, lit, text)
	case "ssh":
		return r.ssh(sc, words, lit, text, stdin)
	case "parallel":
		return r.parallel(sc, words, lit, text, stdin)
	case "guard":
		return r.guard(sc, words, lit, text, stdin)
	case "script":
		return r.scriptCmd(sc, words, lit, text, stdin)
	case "tmux":
		return r.tmux(sc, words, lit, text)
	case "screen":
		i := 1
		for ; i < len(words) && lit[i] && strings.HasPrefix(words[i], "-"); i++ {
			if shell.OptionTakesValue(words[i], shell.Set("-S", "-c", "-e", "-h", "-L", "-Logfile", "-p", "-s", "-t", "-T", "-X")) {
				i++
			}
		}
		if i < len(words) {
			return r.dispatch(sc.fork(), words[i:], lit[i:], text, input{what: "screen's stdin"}, false)
		}
		return nil
	case "sg":
		// sg GROUP [-c] COMMAND runs COMMAND with /bin/sh -c.
		i := 2
		if i < len(words) && words[i] == "-c" {
			i++
		}
		if i < len(words) {
			return r.runString(sc.shellOf, sc, words[i:], lit[i:], " ", text, stdin, "sg")
		}
		return nil
	case "newgrp":
		// newgrp GROUP starts a shell, which reads its script from stdin.
		if stdin.known || stdin.src != "" && !stdin.file {
			return seq(runNode(words, lit, text), r.stdinScript(sc.shellOf, sc, stdin, text, name))
		}
		return runNode(words, lit, text)
	case "busybox":
		if len(words) > 1 {
			return r.dispatch(sc, words[1:], lit[1:], text, stdin, false)
		}
	case "at", "batch":
		for i := 1; i+1 < len(words); i++ {
			if words[i] == "-f" {
				if in, ok := r.fileMark(words[i+1]); ok {
					return r.stdinScript(sc.shellOf, sc, in, text, name)
				}
				return seq(runNode(words, lit, text), r.diskFile(name, words[i+1])) // a script in a file guard does not read
			}
		}
		return r.stdinScript(sc.shellOf, sc, stdin, text, name)
	case "git":
		return r.git(sc, words, lit, text)
	case "entr":
		return r.entr(sc, words, lit, text)
	case "sem":
		return r.sem(sc, words, lit, text, stdin)
	case "ansible":
		return r.ansible(sc, words, lit, text)
	case "pssh", "parallel-ssh", "clush":
		return r.remoteString(sc, name, words, lit, text, stdin)
	case "salt", "salt-ssh":
		return r.salt(sc, words, lit, text)
	}
	if code, ok := interpreterCode(name, words, lit); ok {
		// The code's arguments are searched with it: the code may run
		// them (python3 -c 'os.system(sys.argv[1])' "docker restart web").
		if args := codeArgs(name, words, code); args != "" {
			code += "\n" + args
		}
		return &Node{Kind: Unread, Text: code, Reason: name + " code, which guard does not read", Opaque: true}
	}
	if n := r.interpreterFile(name, words, lit, text); n != nil {
		return n
	}
	if readsCode(name, words) {
		// python3 <<EOF ... EOF, echo CODE | perl: the program is its stdin.
		switch {
		case stdin.known:
			if strings.TrimSpace(stdin.text) != "" {
				return seq(runNode(words, lit, text), &Node{Kind: Unread, Text: stdin.text, Reason: name + " code from its stdin, which guard does not read", Opaque: true})
			}
		case !stdin.file && stdin.src != "":
			return &Node{Kind: Unread, Text: stdin.src + " | " + text, Reason: name + " runs the code another command writes, which guard cannot see", Hidden: true}
		}
	}
	if dataOnly()[name] {
		return runNode(words, lit, text)
	}
	if in, ok := r.bases[name]; ok && name == words[0] {
		// A program the line wrote into a directory of PATH (echo CMD >
		// ~/bin/foo; chmod +x ~/bin/foo; foo): read as the script it is.
		return r.wroteScript(sc, words, in, text)
	}
	if more := r.wroteArgs(name, words, lit); len(more) > 0 {
		return seq(append([]*Node{r.program(words, lit, text, stdin)}, more...)...)
	}
	return r.program(words, lit, text, stdin)
}

func runNode(words []string, lit []bool, text string) *Node {
	return &Node{Kind: Run, Cmd: shell.Command{Words: words, Literal: lit}, Text: text}
}

var simpleName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[\w.+-]+$`) })

// literalBase returns the literal base name of a program word written
// with a variable in its directory ($HOME/bin/docker), or "".
func literalBase(src string) string {
	i := strings.LastIndexByte(src, '/')
	if i < 0 {
		return ""
	}
	if b := src[i+1:]; simpleName().MatchString(b) {
		return b
	}
	return ""
}

// callFunction reads a call of a function defined in the line: its body,
// in the same shell, with the words as its parameters.
func (r *reader) callFunction(sc *scope, fs []function, words []string, lit []bool, text string, stdin input) *Node {
	if sc.depth >= MaxDepth {
		return &Node{Kind: Unread, Text: text, Limit: true, Reason: "it calls functions more than " + strconv.Itoa(MaxDepth) + " deep, more than guard reads"}
	}
	if len(fs) == 1 && fs[0].body != nil { // the usual case: one definition
		locals := map[string]*expand.Variable{}
		inner := &scope{state: sc.state, src: fs[0].src, depth: sc.depth + 1, locals: &locals}
		saved, savedLit := sc.params, sc.paramLit
		sc.params, sc.paramLit = words[1:], lit[1:]
		n := r.stmt(inner, fs[0].body, stdin)
		sc.params, sc.paramLit = saved, savedLit
		sc.restore(locals)
		return n
	}
	var alts []*Node
	var scopes []*scope
	for _, f := range fs {
		b := sc.fork()
		scopes = append(scopes, b)
		if f.body == nil { // maybe not defined: the program of that name runs
			alts = append(alts, r.program(words, lit, text, stdin))
			continue
		}
		locals := map[string]*expand.Variable{}
		inner := &scope{state: b.state, src: f.src, depth: sc.depth + 1, locals: &locals}
		saved, savedLit := b.params, b.paramLit
		b.params, b.paramLit = words[1:], lit[1:]
		alts = append(alts, r.stmt(inner, f.body, stdin))
		b.params, b.paramLit = saved, savedLit
		b.restore(locals)
	}
	sc.join(scopes...)
	return alt(alts...)
}

// runString reads the words joined by sep as a script, in the scope
// newScope makes (eval: the same shell; sh -c: a new one).
func (r *reader) runString(newScope func(string) *scope, sc *scope, words []string, lit []bool, sep, text string, stdin input, what string) *Node {
	s, ok := r.holeScript(words, lit, sep)
	if !ok {
		return &Node{Kind: Unread, Text: text, Reason: what + " runs a string guard cannot know before it runs", Hidden: true}
	}
	if sc.depth >= MaxDepth {
		return &Node{Kind: Unread, Text: s, Limit: true, Reason: what + " nests more than " + strconv.Itoa(MaxDepth) + " deep, more than guard reads"}
	}
	inner := newScope(s)
	return r.unhole(r.script(inner, s, stdin), text)
}

// shellOf is the scope of a new shell (sh -c) with no parameters.
func (sc *scope) shellOf(s string) *scope { return sc.shell(s, nil, nil) }

// stdinScript reads the script a shell reads from in.
func (r *reader) stdinScript(newScope func(string) *scope, sc *scope, in input, text, what string) *Node {
	if !in.known {
		why := what + " runs commands from " + in.describe() + ", which guard cannot see"
		if in.src != "" {
			why = what + " runs the commands another command writes, which guard cannot see"
			text = in.src + " | " + text
		}
		// A script in a file is a program guard does not read (bash
		// deploy.sh); one from a pipe or a string may be anything.
		return &Node{Kind: Unread, Text: text, Reason: why, Hidden: !in.file}
	}
	if strings.TrimSpace(in.text) == "" {
		return nil
	}
	return r.runString(newScope, sc, []string{in.text}, []bool{true}, "", text, input{what: "the script's own stdin"}, what)
}

// scriptFile returns what a shell reading the file path reads, if guard
// can tell: a <(...) or /dev/stdin.
func (r *reader) scriptFile(path string, stdin input) (input, bool) {
	if m, ok := r.fileMark(path); ok {
		return m, true
	}
	switch path {
	case "/dev/stdin", "/proc/self/fd/0", "/dev/fd/0":
		return stdin, true
	}
	return input{}, false
}

// wrapper reads the command of a program of shell's Runner table (sudo,
// env, timeout, flock, ...), read from its words as shell.Runner.Use reads
// them, which Command.Program shares.
func (r *reader) wrapper(sc *scope, name string, rn shell.Runner, words []string, lit []bool, text string, stdin input, inShell bool) *Node {
	if len(rn.Stdin) > 0 && stdin.known { // gdb prog <<< 'shell CMD': gdb reads its stdin
		var cmds []*Node
		for _, c := range rn.StdinCommands(stdin.text) {
			cmds = append(cmds, r.runString(sc.shellOf, sc, []string{c}, []bool{true}, "", text, input{}, name))
		}
		if code := rn.StdinCode(stdin.text); strings.TrimSpace(code) != "" {
			cmds = append(cmds, &Node{Kind: Unread, Text: code, Reason: name + " reads its own commands from its stdin, which guard does not read", Opaque: true, Lang: true})
		}
		rest := rn
		rest.Stdin = nil
		return seq(append(cmds, r.wrapper(sc, name, rest, words, lit, text, input{known: true}, inShell))...)
	}
	use := rn.Use(words, lit)
	if len(rn.Options) > 0 {
		end := len(words)
		if use.How == shell.Words {
			end = use.I // its options, not its command's
		}
		if opts := r.optionCommands(sc, name, rn, words[:end], lit[:end], text); len(opts) > 0 {
			rest := rn
			rest.Options = nil
			return seq(append(opts, r.wrapper(sc, name, rest, words, lit, text, stdin, inShell))...)
		}
	}
	switch use.How {
	case shell.Nothing:
		if use.Option != "" { // command -v docker: a command that runs no other
			return runNode(words, lit, text)
		}
		return nil
	case shell.Shell: // sudo -s [CMD]
		if use.I >= len(words) {
			return r.stdinScript(sc.shellOf, sc, stdin, text, name+" -s")
		}
		return r.runString(sc.shellOf, sc, words[use.I:], lit[use.I:], " ", text, stdin, name+" -s")
	case shell.Script:
		return r.runString(sc.shellOf, sc, []string{use.Value(words)}, lit[use.I:use.I+1], "", text, stdin, name+" "+use.Option)
	case shell.Split:
		if !lit[use.I] {
			return &Node{Kind: Unread, Text: text, Reason: name + " " + use.Option + " splits a string guard cannot know before it runs", Hidden: true}
		}
		inner := r.splitWords(use.Value(words))
		rest := append(inner, words[use.I+1:]...)
		restLit := append(trues(len(inner)), lit[use.I+1:]...)
		return r.dispatch(sc, rest, restLit, text, stdin, false)
	}
	// The command runs in the same shell for builtin, command, exec and
	// time; as a program (no functions) for the others.
	return r.dispatch(sc, words[use.I:], lit[use.I:], text, stdin, inShell && rn.Same)
}

// dataProgram reads a program of shell's Runner table whose words are
// data (rsync, tar, vim, psql, ...): it runs the commands its options
// hold (rsync -e CMD, tar --to-command=CMD, vim -c '!CMD'), and those its
// stdin holds after one of its escapes (psql reading '\! CMD').
func (r *reader) dataProgram(sc *scope, name string, rn shell.Runner, words []string, lit []bool, text string, stdin input) *Node {
	out := []*Node{runNode(words, lit, text)}
	out = append(out, r.optionCommands(sc, name, rn, words, lit, text)...)
	if len(rn.Options) > 0 || len(rn.Stdin) > 0 {
		out = append(out, r.wroteArgs(name, words, lit)...) // vim -S x.vim, sqlite3 db -init x.sql
	}
	if len(rn.Stdin) > 0 {
		switch {
		case stdin.known:
			for _, c := range rn.StdinCommands(stdin.text) {
				out = append(out, r.runString(sc.shellOf, sc, []string{c}, []bool{true}, "", text, input{}, name))
			}
			if code := rn.StdinCode(stdin.text); strings.TrimSpace(code) != "" {
				out = append(out, &Node{Kind: Unread, Text: code, Reason: name + " reads its own commands from its stdin, which guard does not read", Opaque: true, Lang: true})
			}
		case !stdin.file && stdin.src != "":
			// Its own language from a pipe guard cannot read: what the
			// pipe's commands name decides.
			out = append(out, &Node{Kind: Unread, Text: stdin.src + " | " + text,
				Reason: name + " reads commands from " + stdin.describe() + ", which guard cannot see, and may run one in a shell"})
		}
	}
	return seq(out...)
}

// optionCommands reads the commands the options of rn.Options hold among
// words (see shell.Runner.Commands): each as a string a shell runs, once,
// or a number of times guard cannot count.
func (r *reader) optionCommands(sc *scope, name string, rn shell.Runner, words []string, lit []bool, text string) []*Node {
	var out []*Node
	// The program gives the command what it needs (rsync -e ssh: a host
	// and rsync's own command), not a script on its stdin.
	none := input{known: true}
	for _, f := range rn.Commands(words, lit) {
		what := name + " " + f.Option
		var n *Node
		if f.Code {
			n = &Node{Kind: Unread, Text: f.Command, Reason: what + " holds " + name + "'s own commands, which guard does not read", Opaque: true, Lang: true}
		} else if f.Literal {
			n = r.runString(sc.shellOf, sc, []string{f.Command}, []bool{true}, "", text, none, what)
		} else if s, ok := r.holeScript([]string{f.Command}, []bool{false}, ""); ok {
			n = r.unhole(r.runString(sc.shellOf, sc, []string{s}, []bool{true}, "", text, none, what), text)
		} else {
			n = &Node{Kind: Unread, Text: text, Reason: what + " runs a string guard cannot know before it runs", Hidden: true}
		}
		if f.Repeats != "" {
			n = loop(Unknown, f.Repeats, n)
		}
		out = append(out, n)
	}
	return out
}

func trues(n int) []bool {
	out := make([]bool, n)
	for i := range out {
		out[i] = true
	}
	return out
}

// splitWords splits s into words as a shell would (env -S), without
// expansions.
func (r *reader) splitWords(s string) []string {
	cs, err := sh.Commands(s)
	if err != nil || len(cs) == 0 {
		return strings.Fields(s)
	}
	return cs[0].Words
}

// shellCommand reads sh, bash, zsh, ...: sh -c STRING [ARG0 ARG...],
// sh FILE, or a script read from stdin.
func (r *reader) shellCommand(sc *scope, words []string, lit []bool, text string, stdin input) *Node {
	name := shell.BaseName(words[0])
	byString, fromStdin := false, false
	i := 1
	for i < len(words) {
		a := words[i]
		if !lit[i] {
			if byString || r.notOption(a) {
				break // the string, or a script file guard does not read
			}
			return &Node{Kind: Unread, Text: text, Reason: name + " has options guard cannot know before it runs", Hidden: true}
		}
		if a == "--" || a == "-" {
			i++
			break
		}
		if strings.HasPrefix(a, "--") {
			if v, ok := strings.CutPrefix(a, "--command="); ok { // fish --command=STRING
				words = append(append(slices.Clone(words[:i]), v), words[i+1:]...)
				lit = append(append(slices.Clone(lit[:i]), true), lit[i+1:]...)
				byString = true
				break
			}
			i++
			if a == "--rcfile" || a == "--init-file" {
				i++
			}
			if a == "--command" { // fish
				byString = true
			}
			continue
		}
		if len(a) > 1 && (a[0] == '-' || a[0] == '+') {
			i++
			for _, c := range a[1:] {
				switch c {
				case 'c':
					byString = byString || a[0] == '-'
				case 's':
					fromStdin = true
				case 'o', 'O':
					i++
				}
			}
			continue
		}
		break
	}
	rest, restLit := words[min(i, len(words)):], lit[min(i, len(words)):]
	switch {
	case byString:
		if len(rest) == 0 {
			return nil
		}
		script, ok := r.holeScript(rest[:1], restLit[:1], "")
		if !ok {
			return &Node{Kind: Unread, Text: text, Reason: name + " -c runs a string guard cannot know before it runs", Hidden: true}
		}
		if sc.depth >= MaxDepth {
			return &Node{Kind: Unread, Text: rest[0], Limit: true, Reason: name + " -c nests more than " + strconv.Itoa(MaxDepth) + " deep, more than guard reads"}
		}
		inner := sc.shell(script, rest[1:], restLit[1:])
		return r.unhole(r.script(inner, script, stdin), text)
	case len(rest) > 0 && !fromStdin:
		if in, ok := r.scriptFile(rest[0], stdin); ok {
			return r.stdinScript(func(s string) *scope { return sc.shell(s, rest, restLit) }, sc, in, text, name)
		}
		if n := r.diskFile(name, rest[0]); n != nil {
			return seq(r.program(words, lit, text, stdin), n)
		}
		return r.program(words, lit, text, stdin) // a script file guard does not read, with its arguments
	}
	// bash -s ARG...: the script on stdin, with ARG... as $1...
	params := append([]string{name}, rest...)
	paramLit := append([]bool{true}, restLit...)
	return r.stdinScript(func(s string) *scope { return sc.shell(s, params, paramLit) }, sc, stdin, text, name)
}

// su reads su and runuser: -c STRING runs in a new shell; runuser -u
// USER CMD runs CMD; with neither, the shell reads stdin.
func (r *reader) su(sc *scope, words []string, lit []bool, text string, stdin input) *Node {
	valued := shell.Set("-s", "--shell", "-g", "--group", "-G", "--supp-group", "-w", "--whitelist-environment", "-u", "--user")
	for i := 1; i < len(words); i++ {
		a := words[i]
		switch {
		case a == "-c" || a == "--command" || a == "--session-command":
			if i+1 < len(words) {
				return r.runString(sc.shellOf, sc, words[i+1:i+2], lit[i+1:i+2], "", text, stdin, words[0]+" -c")
			}
			return nil
		case strings.HasPrefix(a, "--command=") || strings.HasPrefix(a, "--session-command="):
			_, v, _ := strings.Cut(a, "=")
			return r.runString(sc.shellOf, sc, []string{v}, lit[i:i+1], "", text, stdin, words[0]+" -c")
		case a == "--":
			if shell.BaseName(words[0]) == "runuser" && i+1 < len(words) {
				return r.dispatch(sc, words[i+1:], lit[i+1:], text, stdin, false)
			}
		case valued[a]:
			if (a == "-u" || a == "--user") && shell.BaseName(words[0]) == "runuser" && i+2 < len(words) {
				j := i + 2
				if words[j] == "--" {
					j++
				}
				return r.dispatch(sc, words[j:], lit[j:], text, stdin, false)
			}
			i++
		}
	}
	return r.stdinScript(sc.shellOf, sc, stdin, text, words[0])
}

// xargs reads xargs CMD: CMD runs with the input's words, which guard
// knows when the input is literal (echo web | xargs docker restart).
func (r *reader) xargs(sc *scope, words []string, lit []bool, text string, stdin input) *Node {
	xr, _ := shell.LookupRunner("xargs")
	valued := xr.Valued
	replace, perRun, delim, noEmpty := "", 0, "", false
	in := stdin
	i := 1
	for ; i < len(words); i++ {
		a := words[i]
		if !lit[i] {
			return loop(Unknown, "by xargs, once per line of its input", runNode(words[i:], lit[i:], text))
		}
		if a == "--" {
			i++
			break
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			break
		}
		opt, val, hasVal := strings.Cut(a, "=")
		if !hasVal && valued[opt] && i+1 < len(words) {
			i++
			val = words[i]
		} else if !hasVal && len(opt) > 2 && opt[1] != '-' && valued[opt[:2]] {
			opt, val = opt[:2], opt[2:]
		}
		switch opt {
		case "-I", "--replace":
			replace = val
		case "-i":
			replace = "{}"
		case "-n", "--max-args", "-L", "--max-lines":
			perRun, _ = strconv.Atoi(val)
		case "-l":
			perRun = 1
		case "-0", "--null":
			delim = "\x00"
		case "-d", "--delimiter":
			delim = val
		case "-a", "--arg-file":
			if m, ok := r.fileMark(val); ok {
				in = m
			} else {
				in = input{what: "the file " + val, file: true}
			}
		case "-r", "--no-run-if-empty":
			noEmpty = true
		}
		if strings.HasPrefix(opt, "--replace") && replace == "" {
			replace = "{}"
		}
	}
	cmd, cmdLit := words[min(i, len(words)):], lit[min(i, len(words)):]
	if len(cmd) == 0 {
		cmd, cmdLit = []string{"echo"}, []bool{true}
	}
	if !in.known {
		hole := "{xargs input}"
		w, l := slices.Clone(cmd), slices.Clone(cmdLit)
		if replace != "" {
			for j := range w {
				if strings.Contains(w[j], replace) {
					if l[j] {
						w[j] = r.placeholder(w[j], replace, hole)
					} else {
						w[j] = strings.ReplaceAll(w[j], replace, hole)
					}
					l[j] = false
				}
			}
		} else {
			w, l = append(w, r.placeholder(hole, hole, hole)), append(l, false)
		}
		return loop(Unknown, "by xargs, once per line of "+in.describe(), r.dispatch(sc.fork(), w, l, text, input{what: in.describe()}, false))
	}
	var groups [][]string
	if replace != "" {
		for _, line := range strings.Split(in.text, "\n") {
			if line = strings.TrimLeft(line, " \t"); line != "" {
				groups = append(groups, []string{line})
			}
		}
	} else {
		items := xargsItems(in.text, delim)
		if perRun <= 0 {
			perRun = max(len(items), 1)
		}
		for len(items) > 0 {
			n := min(perRun, len(items))
			groups = append(groups, items[:n])
			items = items[n:]
		}
		if len(groups) == 0 && !noEmpty {
			groups = [][]string{nil}
		}
	}
	var out []*Node
	for _, g := range groups {
		var w []string
		if replace != "" {
			for _, c := range cmd {
				w = append(w, strings.ReplaceAll(c, replace, g[0]))
			}
		} else {
			w = append(slices.Clone(cmd), g...)
		}
		l := append(slices.Clone(cmdLit), trues(len(w)-len(cmdLit))...)
		out = append(out, r.dispatch(sc.fork(), w, l, text, input{what: "xargs's stdin"}, false))
	}
	return seq(out...)
}

// xargsItems splits xargs's input into arguments: by delim, or by blanks
// with xargs's quotes and backslashes.
func xargsItems(s, delim string) []string {
	if delim != "" {
		items := strings.Split(strings.TrimSuffix(s, "\n"), delim)
		if delim == "\x00" {
			items = strings.Split(strings.TrimSuffix(s, "\x00"), delim)
		}
		return items
	}
	var items []string
	var b strings.Builder
	in, quote := false, byte(0)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			} else {
				b.WriteByte(c)
			}
		case c == '\'' || c == '"':
			quote, in = c, true
		case c == '\\' && i+1 < len(s):
			i++
			b.WriteByte(s[i])
			in = true
		case c == ' ' || c == '\t' || c == '\n':
			if in {
				items = append(items, b.String())
				b.Reset()
				in = false
			}
		default:
			b.WriteByte(c)
			in = true
		}
	}
	if in {
		items = append(items, b.String())
	}
	return items
}

// find reads find's -exec, -execdir, -ok and -okdir commands: each runs
// once per file found (a number guard cannot tell), {} the file.
func (r *reader) find(sc *scope, words []string, lit []bool, text string) *Node {
	var out []*Node
	for i := 1; i < len(words); i++ {
		switch words[i] {
		case "-exec", "-execdir", "-ok", "-okdir":
		default:
			continue
		}
		j := i + 1
		for j < len(words) && !(lit[j] && (words[j] == ";" || words[j] == "+" && j > i+1 && words[j-1] == "{}")) {
			j++
		}
		cmd, l := slices.Clone(words[i+1:j]), slices.Clone(lit[i+1:j])
		for k := range cmd {
			if strings.Contains(cmd[k], "{}") {
				if l[k] {
					cmd[k] = r.placeholder(cmd[k], "{}", "{}")
				}
				l[k] = false
			}
		}
		out = append(out, loop(Unknown, "by find -exec, once for each file it finds", r.dispatch(sc.fork(), cmd, l, text, input{what: "find's stdin"}, false)))
		i = j
	}
	return seq(out...)
}

// watch reads watch CMD: sh -c "CMD" (or CMD itself with -x), again and
// again.
func (r *reader) watch(sc *scope, words []string, lit []bool, text string) *Node {
	valued := shell.Set("-n", "--interval", "-q", "--equexit")
	direct := false
	i := 1
	for ; i < len(words) && lit[i] && strings.HasPrefix(words[i], "-"); i++ {
		a := words[i]
		if a == "--" {
			i++
			break
		}
		if a == "-x" || a == "--exec" {
			direct = true
		}
		if valued[a] {
			i++
		}
	}
	if i >= len(words) {
		return nil
	}
	var n *Node
	if direct {
		n = r.dispatch(sc.fork(), words[i:], lit[i:], text, input{what: "watch's stdin"}, false)
	} else {
		n = r.runString(sc.shellOf, sc, words[i:], lit[i:], " ", text, input{what: "watch's stdin"}, "watch")
	}
	return loop(Unknown, "by watch, again every few seconds", n)
}

// ssh reads ssh HOST CMD: the remote shell runs the words of CMD joined
// by spaces, or the script on ssh's stdin. Service names are the same
// names on every host.
func (r *reader) ssh(sc *scope, words []string, lit []bool, text string, stdin input) *Node {
	valued := shell.Set("-b", "-c", "-D", "-E", "-e", "-F", "-I", "-i", "-J", "-L", "-l", "-m", "-O", "-o", "-p", "-Q", "-R", "-S", "-W", "-w", "-B")
	i := 1
	for ; i < len(words) && lit[i] && strings.HasPrefix(words[i], "-"); i++ {
		a := words[i]
		if a == "--" {
			i++
			break
		}
		if a == "-N" {
			return nil
		}
		if shell.OptionTakesValue(a, valued) {
			i++
		}
	}
	i++ // the host
	rn, _ := shell.LookupRunner("ssh")
	local := r.optionCommands(sc, "ssh", rn, words[:min(i, len(words))], lit[:min(i, len(words))], text)
	local = append(local, r.wroteArgs("ssh", words[:min(i, len(words))], lit[:min(i, len(words))])...) // ssh -F cfg
	if i >= len(words) {
		return seq(append(local, r.stdinScript(sc.remote, sc, stdin, text, "ssh"))...)
	}
	return seq(append(local, r.runString(sc.remote, sc, words[i:], lit[i:], " ", text, stdin, "ssh"))...)
}

// parallel reads GNU parallel: CMD ::: ARG... runs CMD ARG (or CMD with
// {} replaced) through a shell for each argument; with no CMD, each
// argument is a command.
func (r *reader) parallel(sc *scope, words []string, lit []bool, text string, stdin input) *Node {
	i := 1
	for ; i < len(words) && lit[i] && strings.HasPrefix(words[i], "-") && words[i] != ":::"; i++ {
		if words[i] == "--" {
			i++
			break
		}
		if (words[i] == "-a" || words[i] == "--arg-file") && i+1 < len(words) {
			// parallel -a FILE: its lines are the input, as stdin's are.
			stdin = input{what: "the file " + words[i+1], file: true}
			if m, ok := r.fileMark(words[i+1]); ok && lit[i+1] {
				stdin = m
			}
			i++
			continue
		}
		if shell.Set("-j", "--jobs", "-S", "--sshlogin", "--colsep", "-C", "-d", "--delimiter", "-n", "-N", "--max-args", "--timeout", "--joblog", "--results", "--tmpdir")[words[i]] {
			i++
		}
	}
	var tmpl []string
	for ; i < len(words) && words[i] != ":::" && words[i] != "::::"; i++ {
		if !lit[i] {
			return loop(Unknown, "by parallel, once for each argument", runNode(words[i:], lit[i:], text))
		}
		tmpl = append(tmpl, words[i])
	}
	var args []string
	r.placeholder("{parallel input}", "{parallel input}", "{parallel input}")
	if i >= len(words) {
		if !stdin.known {
			return loop(Unknown, "by parallel, once per line of "+stdin.describe(), r.runString(sc.shellOf, sc, append(tmpl, "{parallel input}"), append(trues(len(tmpl)), false), " ", text, input{}, "parallel"))
		}
		if len(tmpl) == 0 {
			// No command: each line of the input is a command.
			for _, l := range strings.Split(stdin.text, "\n") {
				if strings.TrimSpace(l) != "" {
					args = append(args, l)
				}
			}
		} else {
			args = strings.Fields(stdin.text)
		}
	} else {
		if words[i] == "::::" {
			return loop(Unknown, "by parallel, once per line of a file", r.runString(sc.shellOf, sc, append(tmpl, "{parallel input}"), append(trues(len(tmpl)), false), " ", text, input{}, "parallel"))
		}
		for i++; i < len(words) && words[i] != ":::"; i++ {
			if !lit[i] {
				return loop(Unknown, "by parallel, once for each argument", runNode(words, lit, text))
			}
			args = append(args, words[i])
		}
	}
	var out []*Node
	for _, a := range args {
		line := a
		if len(tmpl) > 0 {
			line = strings.Join(tmpl, " ")
			if strings.Contains(line, "{}") {
				line = strings.ReplaceAll(line, "{}", a)
			} else {
				line += " " + a
			}
		}
		out = append(out, r.runString(sc.shellOf, sc, []string{line}, []bool{true}, "", text, input{}, "parallel"))
	}
	return seq(out...)
}

// trap reads trap STRING SIGNAL...: STRING runs when a signal comes, and
// surely at the shell's exit for EXIT.
func (r *reader) trap(sc *scope, words []string, lit []bool, text string) *Node {
	if len(words) < 3 || words[1] == "-" || strings.HasPrefix(words[1], "-") {
		return nil
	}
	n := r.runString(sc.eval, sc, words[1:2], lit[1:2], "", text, input{}, "trap")
	for _, s := range words[2:] {
		if s == "EXIT" || s == "0" || s == "SIGEXIT" {
			return n
		}
	}
	return alt(n, nil)
}

// guard reads guard run, which runs its command; guard cooldown run
// counts its own actions, and the rest run none.
func (r *reader) guard(sc *scope, words []string, lit []bool, text string, stdin input) *Node {
	i := 1
	for i < len(words) && strings.HasPrefix(words[i], "-") {
		if shell.Set("--config", "--state", "--cooldown-state")[words[i]] {
			i++
		}
		i++
	}
	if i >= len(words) || words[i] != "run" {
		return runNode(words, lit, text)
	}
	valued := shell.Set("-c", "--command", "--name", "--timeout", "--failure-threshold", "--success-threshold", "--cooldown",
		"--cooldown-seconds", "--from-python", "--config", "--state", "--on-skip")
	for i++; i < len(words); i++ {
		a := words[i]
		if !lit[i] {
			return runNode(words, lit, text)
		}
		opt := strings.TrimPrefix(a, "-")
		opt = "-" + opt
		name, val, hasVal := strings.Cut(opt, "=")
		switch {
		case a == "--":
			return r.dispatch(sc, words[i+1:], lit[i+1:], text, stdin, false)
		case name == "-c" || name == "--command":
			if !hasVal {
				if i+1 >= len(words) {
					return nil
				}
				return r.runString(sc.shellOf, sc, words[i+1:i+2], lit[i+1:i+2], "", text, stdin, "guard run -c")
			}
			return r.runString(sc.shellOf, sc, []string{val}, []bool{true}, "", text, stdin, "guard run -c")
		case !strings.HasPrefix(a, "-"):
			return r.dispatch(sc, words[i:], lit[i:], text, stdin, false)
		case !hasVal && valued[name]:
			i++
		}
	}
	return nil
}

// interpreterCode returns the code a command runs in another language
// (python -c CODE, perl -e CODE, node -e, ruby -e, awk PROGRAM), which
// guard does not read.
func interpreterCode(name string, words []string, lit []bool) (string, bool) {
	var flags []string
	switch {
	case strings.HasPrefix(name, "python"), name == "pypy", name == "pypy3":
		flags = []string{"-c"}
	case name == "perl", name == "ruby", name == "node", name == "nodejs", name == "lua":
		flags = []string{"-e", "-E", "--eval", "-p", "--print"}
	case name == "php":
		flags = []string{"-r"}
	case name == "pwsh", name == "powershell":
		flags = []string{"-c", "-Command", "-command"}
	case name == "expect":
		flags = []string{"-c"}
	case name == "sed", name == "gsed":
		return sedCode(words)
	case name == "awk", name == "gawk", name == "mawk", name == "nawk":
		for i := 1; i < len(words); i++ {
			a := words[i]
			switch {
			case a == "-f" || a == "--file":
				return "", false
			case a == "-v" || a == "-F":
				i++
			case strings.HasPrefix(a, "-"):
			default:
				return words[i], true
			}
		}
		return "", false
	default:
		return "", false
	}
	for i := 1; i+1 < len(words); i++ {
		if slices.Contains(flags, words[i]) {
			return words[i+1], true
		}
	}
	return "", false
}

// wroteArgs reads the words of a program that name files the line wrote
// (vim -S x.vim, ssh -F cfg, mytool --config x.yml): the program may take
// commands from them in its own language, which guard does not read, so
// their text is searched as code is.
func (r *reader) wroteArgs(name string, words []string, lit []bool) []*Node {
	var out []*Node
	for i := 1; i < len(words); i++ {
		w := words[i]
		if !lit[i] {
			continue
		}
		if _, v, ok := strings.Cut(w, "="); ok && strings.HasPrefix(w, "-") {
			w = v // --config=x.yml
		}
		if m, ok := r.fileMark(w); ok && m.known && strings.TrimSpace(m.text) != "" {
			out = append(out, &Node{Kind: Unread, Text: m.text, Opaque: true, Lang: true,
				Reason: name + " is given " + w + ", a file the command wrote, and may run what it holds"})
		}
	}
	return out
}

// codeArgs returns the words of an interpreter's command that its code
// may use (sys.argv, ARGV, awk -v NAME=VALUE), joined: every word but its
// name, its code and its bare options. sed's words are files.
func codeArgs(name string, words []string, code string) string {
	if name == "sed" || name == "gsed" {
		return ""
	}
	var rest []string
	skipped := false
	for _, w := range words[1:] {
		switch {
		case w == code && !skipped:
			skipped = true
		case strings.HasPrefix(w, "-") && !strings.ContainsAny(w, " \t\n"):
		default:
			rest = append(rest, w)
		}
	}
	return strings.Join(rest, " ")
}

// readsCode reports whether the interpreter words run takes its program
// from its stdin: it is given no code, no module and no file to run, or
// "-" or /dev/stdin for the file (python3 - <<EOF, echo CODE | perl).
func readsCode(name string, words []string) bool {
	switch {
	case strings.HasPrefix(name, "python"), strings.HasPrefix(name, "pypy"), strings.HasPrefix(name, "lua"),
		name == "perl", name == "ruby", name == "node", name == "nodejs", name == "php", name == "tclsh",
		name == "wish", name == "expect", name == "pwsh", name == "powershell", name == "Rscript", name == "irb", name == "bun", name == "deno":
	default:
		return false
	}
	for _, w := range words[1:] {
		switch {
		case w == "-" || w == "/dev/stdin" || w == "/dev/fd/0" || w == "/proc/self/fd/0":
			return true
		case w == "-m" || strings.HasPrefix(w, "-m") && strings.HasPrefix(name, "python"), w == "--version", w == "-V", w == "--help", w == "-h":
			return false // a module, or no program at all
		case strings.HasPrefix(w, "-"):
		default:
			return false // a file, or deno's and Rscript's subcommand
		}
	}
	return true
}

// scriptCmd reads script -c COMMAND [FILE], which runs COMMAND with a
// shell.
func (r *reader) scriptCmd(sc *scope, words []string, lit []bool, text string, stdin input) *Node {
	for i := 1; i < len(words); i++ {
		a := words[i]
		switch {
		case strings.HasPrefix(a, "--command="):
			return r.runString(sc.shellOf, sc, []string{a[len("--command="):]}, lit[i:i+1], "", text, stdin, "script -c")
		case a == "--command" || len(a) > 1 && a[0] == '-' && a[1] != '-' && strings.HasSuffix(a, "c"):
			if i+1 < len(words) {
				return r.runString(sc.shellOf, sc, words[i+1:i+2], lit[i+1:i+2], "", text, stdin, "script -c")
			}
		}
	}
	return runNode(words, lit, text)
}

// tmux reads the tmux commands that run a shell command: new-session,
// new-window, split-window, respawn-pane and run-shell take it as their
// last word; send-keys types keys into a shell, which guard does not read.
func (r *reader) tmux(sc *scope, words []string, lit []bool, text string) *Node {
	i := 1
	for ; i < len(words) && strings.HasPrefix(words[i], "-"); i++ {
		if shell.Set("-L", "-S", "-f", "-c", "-T")[words[i]] {
			i++
		}
	}
	if i >= len(words) {
		return nil
	}
	switch words[i] {
	case "new-session", "new", "new-window", "neww", "split-window", "splitw", "respawn-pane", "respawnp", "respawn-window", "respawnw", "run-shell", "run":
		valued := shell.Set("-c", "-e", "-F", "-l", "-n", "-s", "-t", "-x", "-y", "-f", "-p")
		j := i + 1
		for ; j < len(words) && strings.HasPrefix(words[j], "-"); j++ {
			if valued[words[j]] {
				j++
			}
		}
		if j < len(words) {
			return r.runString(sc.shellOf, sc, words[j:], lit[j:], " ", text, input{}, "tmux")
		}
	case "send-keys", "send":
		return &Node{Kind: Unread, Text: text, Reason: "tmux send-keys types into a shell guard does not see", Hidden: true}
	}
	return nil
}
