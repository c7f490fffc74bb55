package bash

import (
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"mvdan.cc/sh/v3/syntax"

	"guard/internal/shell"
)

// program is the Run of a program guard does not know: it may run a
// command among its words (strace -f docker restart web, chronic CMD, a
// script that runs "$@"), which ArgCommand reads.
func (r *reader) program(words []string, lit []bool, text string, stdin input) *Node {
	n := runNode(words, lit, text)
	n.MayRun = true
	n.stdin = stdin
	n.steps = r.steps
	return n
}

// ArgCommand reads the words of the Run n from i on as a command its
// program runs, as exec would run it (strace -f -o log docker restart
// web: from docker on). Its stdin is n's, if guard knows it, else none:
// a program guard does not know is not taken to hand its stdin on. It
// takes its steps from those of the Read that found n.
func ArgCommand(n *Node, i int) *Node {
	if n == nil || i <= 0 || i >= len(n.Cmd.Words) {
		return nil
	}
	return readWith(stepsOf(n), func(r *reader) *Node {
		in := n.stdin
		if !in.known {
			in = input{known: true}
		}
		sc := newScope(strings.Join(n.Cmd.Words[i:], " "))
		return r.dispatch(sc, n.Cmd.Words[i:], n.Cmd.Literal[i:], n.Text, in, false)
	})
}

// ArgScript reads s, a word of the Run n, as a script its program runs
// with a shell (mytool --command 'docker restart web').
func ArgScript(n *Node, s string) *Node {
	if n == nil {
		return nil
	}
	return readWith(stepsOf(n), func(r *reader) *Node {
		in := n.stdin
		if !in.known {
			in = input{known: true}
		}
		return r.script(newScope(s), s, in)
	})
}

// stepsOf returns the steps left to the Read that found n.
func stepsOf(n *Node) *int {
	if n.steps == nil {
		s := maxSteps
		return &s
	}
	return n.steps
}

// Runs reports whether Read follows what the program name runs: a
// wrapper (sudo, timeout), a shell, ssh, xargs, find, an interpreter's
// code (python -c), and the others Read lists.
func Runs(name string) bool {
	if _, ok := shell.LookupRunner(name); ok {
		return true
	}
	switch name {
	case "sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "yash", "posh", "rbash", "fish", "csh", "tcsh", "ksh93", "oksh", "loksh",
		"su", "runuser", "xargs", "find", "watch", "ssh", "parallel", "guard", "script", "tmux", "screen", "sg", "busybox",
		"at", "batch", "git", "entr", "sem", "ansible", "pssh", "parallel-ssh", "clush", "salt", "salt-ssh",
		"perl", "ruby", "node", "nodejs", "lua", "php", "pwsh", "powershell", "expect", "awk", "gawk", "mawk", "nawk", "pypy", "pypy3":
		return true
	}
	return strings.HasPrefix(name, "python")
}

// dataOnly are programs that take their words as data and never run a
// command named in them: echo docker restart web restarts nothing. (sed
// with its e command, and git bisect run, submodule foreach and rebase
// --exec, are read apart.) A program not here, and not one Read follows,
// may run a command among its words (Node.MayRun).
var dataOnly = sync.OnceValue(func() map[string]bool {
	return shell.Set(
		// builtins
		":", "true", "false", "echo", "printf", "test", "[", "cd", "pushd", "popd", "dirs", "pwd", "type", "hash", "help",
		"history", "jobs", "wait", "kill", "umask", "ulimit", "shopt", "bind", "complete", "compgen", "compopt", "disown",
		"fg", "bg", "exit", "return", "logout", "break", "continue", "let", "times", "caller", "enable", "suspend",
		// text
		"cat", "tac", "nl", "head", "tail", "less", "more", "most", "wc", "sort", "uniq", "cut", "paste", "join", "comm",
		"tr", "fold", "fmt", "column", "expand", "unexpand", "rev", "tee", "grep", "egrep", "fgrep", "zgrep", "rg", "ag",
		"ack", "jq", "yq", "gojq", "sed", "gsed", "diff", "cmp", "sdiff", "base64", "base32", "xxd", "od", "hexdump",
		"strings", "md5sum", "sha1sum", "sha256sum", "sha512sum", "cksum", "b2sum", "iconv", "look",
		// files
		"ls", "tree", "stat", "file", "touch", "mkdir", "rmdir", "rm", "cp", "mv", "ln", "chmod", "chown", "chgrp", "du",
		"df", "realpath", "readlink", "basename", "dirname", "mktemp", "tar", "zip", "unzip", "gzip", "gunzip", "zcat",
		"xz", "unxz", "bzip2", "bunzip2", "zstd",
		// what there is
		"date", "sleep", "whoami", "id", "hostname", "uname", "printenv", "which", "whereis", "whatis", "man", "info",
		"apropos", "tldr", "locale", "tput", "clear", "pgrep", "pkill", "killall", "ps",
		// messages
		"logger", "wall", "notify-send", "git")
})

// mayBeCommand reports whether a program word guard cannot read, as
// written, may expand to several words, a whole command: an unquoted $X
// or $(...), or "$@".
func mayBeCommand(src string) bool {
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(src), "")
	if err != nil || len(f.Stmts) != 1 {
		return false
	}
	call, ok := f.Stmts[0].Cmd.(*syntax.CallExpr)
	if !ok || len(call.Args) == 0 {
		return false
	}
	for _, p := range call.Args[0].Parts {
		switch x := p.(type) {
		case *syntax.ParamExp, *syntax.CmdSubst:
			return true
		case *syntax.DblQuoted:
			for _, q := range x.Parts {
				if pe, ok := q.(*syntax.ParamExp); ok && (pe.Param != nil && (pe.Param.Value == "@" || pe.Param.Value == "*") || pe.Index != nil) {
					return true
				}
			}
		}
	}
	return false
}

// holeScript joins words by sep into a script, if guard knows it but for
// parts it reads as words it cannot know: every word is literal, or has a
// template (a variable or a command's output inside it, find's {}), whose
// stand-ins unhole marks as unknown again in what the script runs (sh -c
// "journalctl -u $SVC" runs journalctl with a word guard cannot know;
// eval "$CMD" runs a command guard cannot see at all).
func (r *reader) holeScript(words []string, lit []bool, sep string) (string, bool) {
	out := words
	for k, ok := range lit {
		if ok {
			continue
		}
		tmpl, known := r.templates[words[k]]
		if !known {
			return "", false
		}
		s, ok := tmpl()
		if !ok {
			return "", false
		}
		if len(out) > 0 && &out[0] == &words[0] {
			out = slices.Clone(words)
		}
		out[k] = s
	}
	return strings.Join(out, sep), true
}

// token returns the stand-in for what, a part guard cannot know.
func (r *reader) token(what string) string {
	if t, ok := r.tokenOf[what]; ok {
		return t
	}
	if r.tokens == nil {
		r.tokens, r.tokenOf = map[string]string{}, map[string]string{}
	}
	t := tokenHead + strconv.Itoa(len(r.tokens)) + "x"
	r.tokens[t], r.tokenOf[what] = what, t
	return t
}

const tokenHead = "guardhole"

var tokenRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(tokenHead + `[0-9]+x`) })

// hasToken reports whether s holds a stand-in.
func (r *reader) hasToken(s string) bool {
	if !strings.Contains(s, tokenHead) {
		return false
	}
	for _, t := range tokenRE().FindAllString(s, -1) {
		if _, ok := r.tokens[t]; ok {
			return true
		}
	}
	return false
}

// untoken puts back what the stand-ins in s stand for.
func (r *reader) untoken(s string) string {
	if !strings.Contains(s, tokenHead) {
		return s
	}
	return tokenRE().ReplaceAllStringFunc(s, func(t string) string {
		if w, ok := r.tokens[t]; ok {
			return w
		}
		return t
	})
}

// unhole marks the words with a stand-in, in what n runs, as unknown,
// with what they stand for back in their place. A program with one in its
// name is a command guard cannot see at all (eval "$CMD"): text says what
// runs it ("" for the command's own text). $DIR/bin/tool is tool, as at
// the top.
func (r *reader) unhole(n *Node, text string) *Node {
	if n == nil || len(r.tokens) == 0 {
		return n
	}
	var walk func(n *Node) *Node
	walk = func(n *Node) *Node {
		if n == nil {
			return nil
		}
		n.Text, n.Reason = r.untoken(n.Text), r.untoken(n.Reason)
		if n.Kind == Run {
			for i, w := range n.Cmd.Words {
				if !r.hasToken(w) {
					continue
				}
				if i == 0 && !r.hasToken(shell.BaseName(w)) {
					n.Cmd.Words[0] = shell.BaseName(w)
					continue
				}
				if i == 0 {
					t := text
					if t == "" {
						t = n.Text
					}
					return &Node{Kind: Unread, Text: r.untoken(t), Hidden: true,
						Reason: "it runs " + r.untoken(w) + " as a command, which guard cannot know before it runs"}
				}
				n.Cmd.Words[i], n.Cmd.Literal[i] = r.untoken(w), false
			}
		}
		for i, k := range n.Kids {
			n.Kids[i] = walk(k)
		}
		return n
	}
	return walk(n)
}

// placeholder makes word, in which find or xargs put their placeholder ph
// for what they pass (a file name, a line of input) in place of each
// from, a word guard cannot know, with its template.
func (r *reader) placeholder(orig, from, ph string) string {
	word := strings.ReplaceAll(orig, from, ph)
	r.templates[word] = func() (string, bool) { return strings.ReplaceAll(orig, from, r.token(ph)), true }
	return word
}

// git reads the git commands that run a command: bisect run CMD (once for
// each commit it tests), submodule foreach CMD (in a shell, once for each
// submodule) and rebase --exec CMD (once for each commit); git takes its
// other words as data.
func (r *reader) git(sc *scope, words []string, lit []bool, text string) *Node {
	rn, _ := shell.LookupRunner("git")
	if opts := r.optionCommands(sc, "git", rn, words, lit, text); len(opts) > 0 {
		// git -c alias.x='!CMD', -c core.sshCommand=CMD, --upload-pack=CMD
		return seq(append(opts, r.gitCommand(sc, words, lit, text))...)
	}
	return r.gitCommand(sc, words, lit, text)
}

// gitCommand reads git's subcommand.
func (r *reader) gitCommand(sc *scope, words []string, lit []bool, text string) *Node {
	i := 1
	for i < len(words) && strings.HasPrefix(words[i], "-") {
		if shell.Set("-C", "-c", "--git-dir", "--work-tree", "--namespace", "--config-env")[words[i]] {
			i++
		}
		i++
	}
	if i >= len(words) {
		return runNode(words, lit, text)
	}
	switch words[i] {
	case "config":
		if n := r.gitConfig(sc, words[i+1:], lit[i+1:], text); n != nil {
			return seq(runNode(words, lit, text), n)
		}
	case "bisect":
		if i+2 < len(words) && words[i+1] == "run" {
			return loop(Unknown, "by git bisect run, once for each commit it tests",
				r.dispatch(sc.fork(), words[i+2:], lit[i+2:], text, input{what: "git's stdin"}, false))
		}
	case "submodule":
		j := i + 1
		for j < len(words) && (words[j] == "--quiet" || words[j] == "-q") {
			j++
		}
		if j < len(words) && words[j] == "foreach" {
			j++
			for j < len(words) && strings.HasPrefix(words[j], "--") {
				j++
			}
			if j < len(words) {
				return loop(Unknown, "by git submodule foreach, once for each submodule",
					r.runString(sc.shellOf, sc, words[j:], lit[j:], " ", text, input{what: "git's stdin"}, "git submodule foreach"))
			}
		}
	case "rebase":
		var out []*Node
		for j := i + 1; j < len(words); j++ {
			var s []string
			var l []bool
			switch a := words[j]; {
			case (a == "-x" || a == "--exec") && j+1 < len(words):
				s, l = words[j+1:j+2], lit[j+1:j+2]
				j++
			case strings.HasPrefix(a, "--exec="):
				s, l = []string{a[len("--exec="):]}, lit[j:j+1]
			default:
				continue
			}
			out = append(out, loop(Unknown, "by git rebase --exec, once for each commit",
				r.runString(sc.shellOf, sc, s, l, "", text, input{what: "git's stdin"}, "git rebase --exec")))
		}
		if len(out) > 0 {
			return seq(out...)
		}
	}
	return runNode(words, lit, text)
}

// gitConfig reads git config [--global|--file F|...] [set] KEY VALUE: a
// KEY whose value git runs (alias.x='!CMD', core.pager, core.sshCommand,
// the keys of git -c in shell's Runner table) installs a command that git
// runs whenever it uses that key, again and again, as a crontab does.
func (r *reader) gitConfig(sc *scope, words []string, lit []bool, text string) *Node {
	var pos []string
	var plit []bool
	for j := 0; j < len(words); j++ {
		switch a := words[j]; {
		case a == "-f" || a == "--file" || a == "--blob" || a == "--type" || a == "--default" || a == "--comment" || a == "--value":
			j++
		case strings.HasPrefix(a, "-") && lit[j]:
		default:
			pos, plit = append(pos, a), append(plit, lit[j])
		}
	}
	if len(pos) > 0 && plit[0] && (pos[0] == "set" || pos[0] == "--add") {
		pos, plit = pos[1:], plit[1:]
	}
	if len(pos) < 2 || !plit[0] {
		return nil
	}
	rn, _ := shell.LookupRunner("git")
	key, val := pos[0], pos[1]
	why := "by git, each time it uses " + key
	if !plit[1] {
		if len(rn.Commands([]string{"git", "-c", key + "=!x"}, nil)) == 0 {
			return nil // a key whose value is data
		}
		return &Node{Kind: Unread, Text: text, Hidden: true, Reason: "git config sets " + key + ", a command git runs, to a value guard cannot know before it runs"}
	}
	var out []*Node
	for _, f := range rn.Commands([]string{"git", "-c", key + "=" + val}, nil) {
		out = append(out, loop(Unknown, why, r.runString(sc.shellOf, sc, []string{f.Command}, []bool{true}, "", text, input{known: true}, "git config "+key)))
	}
	return seq(out...)
}

// entr reads entr [-acdnprsz] CMD ARG...: CMD runs each time a file
// changes; with -s, CMD is a string a shell runs.
func (r *reader) entr(sc *scope, words []string, lit []bool, text string) *Node {
	i, byShell := 1, false
	for ; i < len(words) && lit[i] && strings.HasPrefix(words[i], "-"); i++ {
		if words[i] == "--" {
			i++
			break
		}
		byShell = byShell || strings.Contains(words[i], "s")
	}
	if i >= len(words) {
		return nil
	}
	var n *Node
	if byShell {
		n = r.runString(sc.shellOf, sc, words[i:i+1], lit[i:i+1], "", text, input{known: true}, "entr -s")
	} else {
		n = r.dispatch(sc.fork(), words[i:], lit[i:], text, input{known: true}, false)
	}
	return loop(Unknown, "by entr, each time a file changes", n)
}

// sem reads GNU parallel's sem [OPTIONS] CMD: a shell runs the words of
// CMD joined by spaces.
func (r *reader) sem(sc *scope, words []string, lit []bool, text string, stdin input) *Node {
	valued := shell.Set("-j", "--jobs", "--id", "--semaphorename", "--st", "--semaphoretimeout", "--timeout")
	i := 1
	for ; i < len(words) && lit[i] && strings.HasPrefix(words[i], "-"); i++ {
		if words[i] == "--" {
			i++
			break
		}
		if valued[words[i]] {
			i++
		}
	}
	if i >= len(words) {
		return nil
	}
	return r.runString(sc.shellOf, sc, words[i:], lit[i:], " ", text, stdin, "sem")
}

// ansible reads an ad-hoc command, ansible HOSTS -a ARGS: with the
// command, shell or raw module (command is the default), ARGS is a
// command each host runs.
func (r *reader) ansible(sc *scope, words []string, lit []bool, text string) *Node {
	module, args, argsLit, has := "command", "", true, false
	for i := 1; i < len(words); i++ {
		a := words[i]
		switch {
		case (a == "-m" || a == "--module-name") && i+1 < len(words):
			module = words[i+1]
			i++
		case strings.HasPrefix(a, "--module-name="):
			module = a[len("--module-name="):]
		case (a == "-a" || a == "--args") && i+1 < len(words):
			args, argsLit, has = words[i+1], lit[i+1], true
			i++
		case strings.HasPrefix(a, "--args="):
			args, argsLit, has = a[len("--args="):], lit[i], true
		}
	}
	switch strings.TrimPrefix(module, "ansible.builtin.") {
	case "command", "shell", "raw":
	default:
		return runNode(words, lit, text)
	}
	if !has {
		return runNode(words, lit, text)
	}
	return r.runString(sc.remote, sc, []string{args}, []bool{argsLit}, "", text, input{}, "ansible -a")
}

// remoteString reads pssh, parallel-ssh and clush: after their options
// (and their values), the words left are a command each host's shell
// runs, joined by spaces.
func (r *reader) remoteString(sc *scope, name string, words []string, lit []bool, text string, stdin input) *Node {
	valued := shell.Set("-h", "--hosts", "-H", "--host", "-l", "--user", "-p", "--par", "-o", "--outdir", "-e", "--errdir",
		"-t", "--timeout", "-O", "--option", "-x", "--extra-args", "-X", "--extra-arg", "-w", "-g", "--group", "-f",
		"--fanout", "-u", "--command-timeout", "-R", "--worker", "-b", "--groupsource", "-c", "--copy", "--dest")
	i := 1
	for ; i < len(words) && lit[i] && strings.HasPrefix(words[i], "-"); i++ {
		if words[i] == "--" {
			i++
			break
		}
		if shell.OptionTakesValue(words[i], valued) {
			i++
		}
	}
	if i >= len(words) {
		return r.stdinScript(sc.remote, sc, stdin, text, name)
	}
	return r.runString(sc.remote, sc, words[i:], lit[i:], " ", text, input{}, name)
}

// salt reads salt TARGET cmd.run CMD (and cmd.shell, cmd.run_all, ...):
// each minion's shell runs CMD.
func (r *reader) salt(sc *scope, words []string, lit []bool, text string) *Node {
	for i := 1; i+1 < len(words); i++ {
		if strings.HasPrefix(words[i], "cmd.run") || words[i] == "cmd.shell" || words[i] == "cmd.exec_code" {
			j := i + 1
			for j < len(words) && strings.Contains(words[j], "=") && !strings.Contains(words[j], " ") {
				j++ // keyword arguments
			}
			if j < len(words) {
				return r.runString(sc.remote, sc, words[j:j+1], lit[j:j+1], "", text, input{}, "salt "+words[i])
			}
		}
	}
	return runNode(words, lit, text)
}

// sedCode returns the scripts of a sed command that runs commands (its e
// command, or the e flag of s), which guard reads as code it does not
// read; a sed with none takes its words as data.
func sedCode(words []string) (string, bool) {
	var scripts []string
	named := false
	for i := 1; i < len(words); i++ {
		a := words[i]
		switch {
		case (a == "-e" || a == "--expression") && i+1 < len(words):
			scripts, named = append(scripts, words[i+1]), true
			i++
		case strings.HasPrefix(a, "--expression="):
			scripts, named = append(scripts, a[len("--expression="):]), true
		case len(a) > 2 && a[0] == '-' && a[1] != '-' && strings.HasSuffix(a, "e") && !strings.ContainsAny(a[1:], "fil"):
			if i+1 < len(words) {
				scripts, named = append(scripts, words[i+1]), true
				i++
			}
		case (a == "-f" || a == "--file" || a == "-l" || a == "--line-length") && i+1 < len(words):
			if a == "-f" || a == "--file" {
				named = true
			}
			i++
		case strings.HasPrefix(a, "-") && a != "-":
		case !named:
			scripts, named = append(scripts, a), true
		}
	}
	for _, s := range scripts {
		if sedExecutes(s) {
			return strings.Join(scripts, "; "), true
		}
	}
	return "", false
}

// sedExecutes reports whether the sed script s has an e command, or an s
// command with the e flag: both run a command.
func sedExecutes(s string) bool {
	i, n := 0, len(s)
	blank := func(c byte) bool { return c == ' ' || c == '\t' }
	// past skips to after the next d not escaped.
	past := func(d byte) {
		for i < n && s[i] != d {
			if s[i] == '\\' {
				i++
			}
			i++
		}
		i++
	}
	address := func() {
		switch {
		case i < n && s[i] == '/':
			i++
			past('/')
		case i+1 < n && s[i] == '\\':
			d := s[i+1]
			i += 2
			past(d)
		default:
			for i < n && (s[i] >= '0' && s[i] <= '9' || s[i] == '$' || s[i] == '~' || s[i] == '+') {
				i++
			}
		}
		for i < n && (s[i] == 'I' || s[i] == 'M') {
			i++
		}
	}
	toEnd := func(stops string) {
		for i < n && s[i] != '\n' && !strings.ContainsRune(stops, rune(s[i])) {
			i++
		}
	}
	for {
		for i < n && (blank(s[i]) || s[i] == '\n' || s[i] == ';') {
			i++
		}
		if i >= n {
			return false
		}
		address()
		for i < n && blank(s[i]) {
			i++
		}
		if i < n && s[i] == ',' {
			i++
			for i < n && blank(s[i]) {
				i++
			}
			address()
		}
		for i < n && (blank(s[i]) || s[i] == '!') {
			i++
		}
		if i >= n {
			return false
		}
		c := s[i]
		i++
		switch c {
		case 'e':
			return true
		case 's':
			if i >= n {
				return false
			}
			d := s[i]
			i++
			past(d)
			past(d)
			for i < n && (s[i] >= 'a' && s[i] <= 'z' || s[i] >= 'A' && s[i] <= 'Z' || s[i] >= '0' && s[i] <= '9') {
				if s[i] == 'e' {
					return true
				}
				if s[i] == 'w' || s[i] == 'W' {
					toEnd("")
					break
				}
				i++
			}
		case 'y':
			if i >= n {
				return false
			}
			d := s[i]
			i++
			past(d)
			past(d)
		case 'a', 'i', 'c', 'r', 'R', 'w', 'W', ':', '#':
			toEnd("")
		case 'b', 't', 'T', 'q', 'Q', 'l', 'L', 'v':
			toEnd(";}")
		}
	}
}

// wroteScript reads a program the line wrote before it runs it (echo CMD >
// x.sh; chmod +x x.sh; ./x.sh): a shell script, unless its #! line names
// another interpreter, whose code guard does not read.
func (r *reader) wroteScript(sc *scope, words []string, in input, text string) *Node {
	if in.known {
		if first, _, _ := strings.Cut(in.text, "\n"); strings.HasPrefix(first, "#!") {
			f := strings.Fields(strings.TrimPrefix(first, "#!"))
			interp := ""
			if len(f) > 0 {
				interp = shell.BaseName(f[0])
			}
			if interp == "env" && len(f) > 1 {
				interp = shell.BaseName(f[1])
			}
			if interp != "" && !isShell(interp) {
				return &Node{Kind: Unread, Text: in.text, Reason: interp + " code in " + words[0] + ", which guard does not read", Opaque: true}
			}
		}
	}
	return r.stdinScript(func(s string) *scope { return sc.shell(s, words, trues(len(words))) }, sc, in, text, words[0])
}

// diskFile reads a file the line runs (bash y.sh, ./y.sh, source y.sh,
// python3 y.py, make, at -f y.sh, crontab y) that it did not write under
// that name. guard does not read files on disk; but when the line wrote
// files, the one it runs may be one of them under another name (cp x.sh
// /tmp/; cd /tmp; ln -s x.sh y.sh; dd of=y.sh; "$PWD/x.sh"), which no
// comparison of paths shows. What the line wrote is then read as a
// program's own language is (Lang): text that spells a budgeted action as
// a command is refused for a human; notes that only name a program are
// not. It returns nil when the line wrote nothing guard can tell.
func (r *reader) diskFile(what, path string) *Node {
	var keys []string
	for k, m := range r.marks {
		if m.known && strings.TrimSpace(m.text) != "" {
			keys = append(keys, k)
		}
	}
	if len(keys) == 0 {
		return nil
	}
	slices.Sort(keys)
	var b strings.Builder
	for _, k := range keys {
		b.WriteString(r.marks[k].text)
		if !strings.HasSuffix(r.marks[k].text, "\n") {
			b.WriteByte('\n')
		}
	}
	return &Node{Kind: Unread, Text: b.String(), Opaque: true, Lang: true,
		Reason: what + " runs " + path + ", a file guard does not read, which may be one the command wrote (" + clip(strings.Join(keys, ", "), 80) + ") under another name"}
}

// runsLater says which program runs a file written at path later, again
// and again (git its hooks, cron its tables, a shell its start-up files,
// systemd its units), or "" for a file no program is known to run so.
// Writing a command there installs it, as crontab does.
func runsLater(path string) string {
	p := "/" + filepath.ToSlash(unquoted(path))
	base := filepath.Base(p)
	switch {
	case strings.Contains(p, "/.git/hooks/") || strings.Contains(p, "/.husky/") || gitHooks()[base]:
		return "git runs as a hook"
	case strings.HasSuffix(p, "/.git/config") || base == ".gitconfig" || strings.HasSuffix(p, "/git/config"):
		return "git reads its aliases and commands from"
	case strings.Contains(p, "/etc/cron") || strings.Contains(p, "/var/spool/cron/") || base == "crontab":
		return "cron runs"
	case strings.Contains(p, "/systemd/") && (strings.HasSuffix(base, ".service") || strings.HasSuffix(base, ".timer") || strings.HasSuffix(base, ".path") || strings.HasSuffix(base, ".conf")):
		return "systemd runs"
	case strings.Contains(p, "/.ssh/") && (base == "config" || base == "rc") || base == "ssh_config" || strings.Contains(p, "/ssh_config.d/"):
		return "ssh runs commands from"
	case strings.Contains(p, "/etc/profile") || strings.Contains(p, "/etc/bash") || base == "rc.local" || base == ".envrc" ||
		slices.Contains([]string{".bashrc", ".bash_profile", ".bash_login", ".bash_logout", ".profile", ".zshrc", ".zshenv", ".zprofile", ".zlogin", ".kshrc", ".mkshrc", ".vimrc", ".exrc", ".inputrc"}, base):
		return "a program runs at its start"
	}
	return ""
}

// gitHooks are the names git runs hooks by, in .git/hooks or the
// directory core.hooksPath names.
var gitHooks = sync.OnceValue(func() map[string]bool {
	return shell.Set("applypatch-msg", "pre-applypatch", "post-applypatch", "pre-commit", "pre-merge-commit",
		"prepare-commit-msg", "commit-msg", "post-commit", "pre-rebase", "post-checkout", "post-merge", "pre-push",
		"pre-receive", "update", "proc-receive", "post-receive", "post-update", "reference-transaction",
		"push-to-checkout", "pre-auto-gc", "post-rewrite", "sendemail-validate", "fsmonitor-watchman",
		"p4-changelist", "p4-prepare-changelist", "p4-post-changelist", "p4-pre-submit", "post-index-change")
})

// installed reads a file the line writes where a program runs it later
// (see runsLater): its text runs a number of times guard cannot count,
// and is read as a program's own language is (Lang: a hook may be in any
// language, and a start-up file holds aliases and settings); text guard
// cannot tell is a script it cannot see.
func (r *reader) installed(path string, in input, text string) *Node {
	why := runsLater(path)
	if why == "" {
		return nil
	}
	if !in.known {
		return &Node{Kind: Unread, Text: text, Hidden: true,
			Reason: "the command writes " + path + ", which " + why + ", with text guard cannot see"}
	}
	if strings.TrimSpace(in.text) == "" {
		return nil
	}
	return loop(Unknown, "by what runs "+path+" later", &Node{Kind: Unread, Text: in.text, Opaque: true, Lang: true,
		Reason: "the command writes " + path + ", which " + why + ", a number of times guard cannot count"})
}

// isShell reports whether name is a shell Read reads scripts of.
func isShell(name string) bool {
	switch name {
	case "sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "yash", "posh", "rbash", "ksh93", "oksh", "loksh":
		return true
	}
	return false
}

// interpreterFile reads python FILE, perl FILE, ... for a FILE the line
// wrote: code guard does not read, searched as code is.
func (r *reader) interpreterFile(name string, words []string, lit []bool, text string) *Node {
	switch name {
	case "sed", "gsed", "awk", "gawk", "mawk", "nawk":
		// sed -f FILE, awk -f FILE: a script the line wrote, or a <(...).
		for i := 1; i+1 < len(words); i++ {
			if (words[i] == "-f" || words[i] == "--file") && lit[i+1] {
				in, ok := r.fileMark(words[i+1])
				switch {
				case !ok:
				case !in.known:
					return &Node{Kind: Unread, Text: text, Reason: name + " runs " + in.describe() + ", whose code guard cannot see", Hidden: true}
				case strings.HasPrefix(name, "sed") || name == "gsed":
					if sedExecutes(in.text) {
						return &Node{Kind: Unread, Text: in.text, Reason: "sed code in " + words[i+1] + " that runs commands, which guard does not read", Opaque: true}
					}
				default:
					return &Node{Kind: Unread, Text: in.text, Reason: name + " code in " + words[i+1] + ", which guard does not read", Opaque: true}
				}
			}
		}
		return nil
	}
	switch {
	case strings.HasPrefix(name, "python"), name == "perl", name == "ruby", name == "node", name == "nodejs", name == "php", name == "lua":
	default:
		return nil
	}
	for i := 1; i < len(words); i++ {
		if strings.HasPrefix(words[i], "-") {
			continue
		}
		if in, ok := r.fileMark(words[i]); ok && lit[i] {
			if !in.known {
				return &Node{Kind: Unread, Text: text, Reason: name + " runs " + in.describe() + ", whose code guard cannot see", Hidden: true}
			}
			return &Node{Kind: Unread, Text: in.text, Reason: name + " code in " + words[i] + ", which guard does not read", Opaque: true}
		}
		if n := r.diskFile(name, words[i]); n != nil {
			return seq(runNode(words, lit, text), n)
		}
		return nil
	}
	return nil
}

// tee notes that tee writes its stdin to the files its words name.
func (r *reader) tee(words []string, lit []bool, stdin input, text string) {
	add := false
	for i := 1; i < len(words); i++ {
		switch a := words[i]; {
		case !lit[i]: // ~/.bashrc, "$REPO/.git/hooks/x": a name guard cannot know, but where it is, as for > NAME
			if runsLater(a) != "" {
				r.later = append(r.later, r.installed(a, stdin, text))
			}
			r.noteBase(unquoted(a), stdin)
		case a == "-a" || a == "--append":
			add = true
		case strings.HasPrefix(a, "-") && a != "-":
		default:
			r.write(a, stdin, add, text)
			if m, ok := r.fileMark(a); ok {
				r.noteBase(a, m)
			}
			if runsLater(a) != "" {
				r.later = append(r.later, r.installed(a, stdin, text))
			}
		}
	}
}

// copyMarks notes that cp, mv or install copies a file the line wrote.
func (r *reader) copyMarks(words []string, lit []bool) {
	var files []string
	valued := shell.Set("-m", "-o", "-g", "-S", "--mode", "--owner", "--group", "--suffix")
	for i := 1; i < len(words); i++ {
		switch a := words[i]; {
		case !lit[i] || a == "-t" || strings.HasPrefix(a, "--target-directory"):
			return // a name guard cannot know, or files into a directory
		case valued[a]:
			i++
		case !strings.HasPrefix(a, "-"):
			files = append(files, a)
		}
	}
	if len(files) != 2 {
		return
	}
	in, ok := r.fileMark(files[0])
	if !ok && shell.BaseName(words[0]) == "ln" {
		// ln -s TARGET LINK: a relative TARGET is from LINK's directory.
		in, ok = r.fileMark(filepath.Join(filepath.Dir(files[1]), files[0]))
	}
	if ok {
		to := files[1]
		if strings.HasSuffix(to, "/") || to == "." || to == ".." { // into a directory
			to = filepath.Join(to, filepath.Base(files[0]))
		}
		r.copyTo(to, in, strings.Join(words, " "))
	}
}

// copyTo notes that the line copies in, a file it wrote, to path.
func (r *reader) copyTo(path string, in input, text string) {
	r.marks[cleanPath(path)] = in
	r.noteBase(path, in)
	if runsLater(path) != "" {
		r.later = append(r.later, r.installed(path, in, text))
	}
}

// unquoted is the text of a word guard cannot expand ("$HOME/.bashrc")
// without its quotes, so that its base name and where it is can be told.
func unquoted(text string) string {
	if !strings.ContainsAny(text, `"'`) {
		return text
	}
	return strings.NewReplacer(`"`, "", "'", "").Replace(text)
}

// noteBase notes what the line wrote to a file by the file's base name,
// for a program the line runs by that name from a directory of PATH.
func (r *reader) noteBase(path string, in input) {
	if b := filepath.Base(path); b != "" && b != "." && b != "/" {
		r.bases[b] = in
	}
}

// make reads make's makefile when the line gives its text (make -f - with
// a here-string, a makefile the line wrote, make --eval=TEXT): its recipes
// are shell commands in make's own language, which guard searches as it
// searches code (hostile-user-3 M4). A makefile on disk is a program guard
// does not read.
func (r *reader) make(sc *scope, words []string, lit []bool, text string, stdin input) *Node {
	var out []*Node
	name, given := shell.BaseName(words[0]), false
	code := func(in input, what string) {
		switch {
		case in.known:
			out = append(out, &Node{Kind: Unread, Text: in.text, Reason: "make recipes in " + what + ", which guard does not read", Opaque: true})
		case in.file:
		default:
			t := text
			if in.src != "" {
				t = in.src + " | " + text
			}
			out = append(out, &Node{Kind: Unread, Text: t, Reason: "make runs recipes from " + in.describe() + ", which guard cannot see"})
		}
	}
	for i := 1; i < len(words); i++ {
		a := words[i]
		var v string
		switch {
		case !lit[i]:
			continue
		case (a == "-f" || a == "--file" || a == "--makefile") && i+1 < len(words):
			v = words[i+1]
			i++
		case strings.HasPrefix(a, "--file=") || strings.HasPrefix(a, "--makefile="):
			_, v, _ = strings.Cut(a, "=")
		case strings.HasPrefix(a, "-f") && len(a) > 2:
			v = a[2:]
		case strings.HasPrefix(a, "--eval="):
			_, e, _ := strings.Cut(a, "=")
			code(input{text: e, known: true}, "--eval")
			continue
		case a == "-C" || a == "--directory" || strings.HasPrefix(a, "--directory="):
			given = true // another directory's makefile: one guard does not read
			if a == "-C" || a == "--directory" {
				i++
			}
			continue
		default:
			continue
		}
		given = true
		switch v {
		case "-", "/dev/stdin", "/proc/self/fd/0", "/dev/fd/0":
			code(stdin, "its stdin")
		default:
			if in, ok := r.fileMark(v); ok {
				code(in, v)
			} else if n := r.diskFile(name, v); n != nil {
				out = append(out, n)
			}
		}
	}
	if !given { // make reads GNUmakefile, makefile or Makefile
		found := false
		for _, f := range []string{"GNUmakefile", "makefile", "Makefile"} {
			if in, ok := r.fileMark(f); ok {
				code(in, f)
				found = true
				break
			}
		}
		if !found {
			if n := r.diskFile(name, "its makefile"); n != nil {
				out = append(out, n)
			}
		}
	}
	if len(out) == 0 {
		return r.program(words, lit, text, stdin)
	}
	return seq(append([]*Node{runNode(words, lit, text)}, out...)...)
}

// crontab reads the table crontab installs (crontab FILE, or its stdin with
// crontab - or no file): each job's command runs again and again, a number
// of times guard cannot count. A table from a pipe guard cannot read is a
// part it cannot read (crontab -l | { cat; echo JOB; } | crontab -),
// judged by what the pipe's commands name.
func (r *reader) crontab(sc *scope, words []string, lit []bool, text string, stdin input) *Node {
	in, file := stdin, ""
	for i := 1; i < len(words); i++ {
		a := words[i]
		switch {
		case !lit[i]:
			return &Node{Kind: Unread, Text: text, Reason: "crontab installs a table guard cannot know before it runs", Hidden: true}
		case a == "-l" || a == "-r" || a == "-e" || a == "--list" || a == "--remove" || a == "--edit" || a == "-T":
			return runNode(words, lit, text) // lists, removes or edits: installs nothing from the line
		case a == "-u" || a == "-s":
			i++
		case a == "-":
		case strings.HasPrefix(a, "-"):
		default:
			file = a
		}
	}
	if file != "" {
		m, ok := r.fileMark(file)
		if !ok { // a table in a file guard does not read
			return seq(runNode(words, lit, text), loop(Unknown, "by cron, again and again", r.diskFile("crontab", file)))
		}
		in = m
	}
	if !in.known {
		t := text
		if in.src != "" {
			t = in.src + " | " + text
		}
		return &Node{Kind: Unread, Text: t, Reason: "crontab installs jobs from " + in.describe() + ", which guard cannot see"}
	}
	var jobs []*Node
	for _, line := range strings.Split(in.text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") || shell.IsAssign(line) {
			continue
		}
		f := strings.Fields(line)
		n := 5
		if strings.HasPrefix(f[0], "@") {
			n = 1
		}
		if len(f) <= n {
			continue
		}
		cmd := line
		for range n { // the schedule's fields
			cmd = strings.TrimLeft(cmd, " \t")
			cmd = cmd[strings.IndexAny(cmd+" ", " \t"):]
		}
		cmd, _, _ = strings.Cut(strings.TrimSpace(cmd), "%") // after %: the job's stdin
		jobs = append(jobs, r.runString(sc.shellOf, sc, []string{cmd}, []bool{true}, "", text, input{}, "cron"))
	}
	return seq(runNode(words, lit, text), loop(Unknown, "by cron, again and again", seq(jobs...)))
}
