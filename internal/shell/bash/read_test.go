package bash

import (
	"fmt"
	"strings"
	"testing"
)

// show writes n in a short form for tests: runs as their words (a word
// that is not literal in <>), a sequence as a; b, alternatives as
// {a | b}, loops as N*(...) or ?*(...), an unread part as !(text) (!!
// when it is over a limit, !? when it hides commands), code guard does
// not read as code(text); a run whose program may be a whole command
// starts with ?.
func show(n *Node) string {
	if n == nil {
		return ""
	}
	var ks []string
	for _, k := range n.Kids {
		ks = append(ks, show(k))
	}
	switch n.Kind {
	case Run:
		var ws []string
		for i, w := range n.Cmd.Words {
			if !n.Cmd.Literal[i] {
				w = "<" + w + ">"
			}
			ws = append(ws, w)
		}
		if n.Hidden {
			return "?" + strings.Join(ws, " ")
		}
		return strings.Join(ws, " ")
	case Seq:
		return strings.Join(ks, "; ")
	case Alt:
		return "{" + strings.Join(ks, " | ") + "}"
	case Loop:
		t := fmt.Sprint(n.Times)
		if n.Times == Unknown {
			t = "?"
		}
		return t + "*(" + ks[0] + ")"
	}
	switch {
	case n.Opaque:
		return "code(" + n.Text + ")"
	case n.Limit:
		return "!!(" + clip(n.Text, 40) + ")"
	case n.Hidden:
		return "!?(" + n.Text + ")"
	}
	return "!(" + n.Text + ")"
}

func TestRead(t *testing.T) {
	tests := []struct{ line, want string }{
		// Every occurrence is there.
		{"docker restart web; docker restart web", "docker restart web; docker restart web"},
		{"docker restart web && echo ok || docker start web", "docker restart web; echo ok; docker start web"},
		{"docker restart web &", "docker restart web"},

		// Strings run as commands.
		{`bash -c "docker restart web"`, "docker restart web"},
		{"sh -euxc 'docker restart web'", "docker restart web"},
		{"zsh -o errexit -c 'docker restart web'", "docker restart web"},
		{"bash --norc --login -c 'docker restart web'", "docker restart web"},
		{`eval "docker restart web"; eval docker "restart web"`, "docker restart web; docker restart web"},
		{"sudo -u root sh -c 'docker restart web'", "docker restart web"},
		{"su - ops -c 'docker restart web'", "docker restart web"},
		{"runuser -u ops -- docker restart web", "docker restart web"},
		{"ssh -p 22 -i key.pem prod 'docker restart web'", "docker restart web"},
		{"ssh prod docker restart web", "docker restart web"},
		{"watch -n 5 'docker restart web'", "?*(docker restart web)"},
		{"watch -x docker restart web", "?*(docker restart web)"},
		{"flock /tmp/l -c 'docker restart web'", "docker restart web"},
		{"guard --state s.json run --name x --timeout 5s -- docker restart web", "docker restart web"},
		{"guard run -c 'docker restart web'", "docker restart web"},
		{"guard cooldown run web restart -- docker restart web", "guard cooldown run web restart -- docker restart web"},
		{"trap 'docker restart web' INT", "{docker restart web | }"},
		{"bash -c 'bash -c \"eval docker restart web\"'", "docker restart web"},

		// Wrappers are taken off.
		{"timeout -s KILL 30 nohup nice -n 5 ionice -c 3 stdbuf -oL env -i A=1 command docker restart web",
			"docker restart web"},
		{"sudo DOCKER_HOST=x docker restart web", "docker restart web"},
		{"exec -a name docker restart web", "docker restart web"},
		{"time -p docker restart web", "docker restart web"},
		{"env -S 'docker restart' web", "docker restart web"},
		{"busybox sh -c 'docker restart web'", "docker restart web"},
		{"script -qc 'docker restart web' /dev/null", "docker restart web"},
		{"tmux new-session -d -s x 'docker restart web'", "docker restart web"},
		{"screen -dmS x docker restart web", "docker restart web"},
		{"sg docker -c 'docker restart web'", "docker restart web"},
		{"pkexec docker restart web", "docker restart web"},
		{"command -v docker", "command -v docker"},
		{"sudo -l docker restart web", "sudo -l docker restart web"},

		// xargs, find -exec, parallel.
		{"echo web db | xargs docker restart", "echo web db; docker restart web db"},
		{"echo web db | xargs -n 1 docker restart", "echo web db; docker restart web; docker restart db"},
		{"printf '%s\\n' web db | xargs -I{} docker restart {}", "printf %s\\n web db; docker restart web; docker restart db"},
		{"xargs -a <(echo web) docker restart", "echo web; docker restart web"},
		{"echo 'web' | xargs -r sh -c 'docker restart \"$1\"' _", "echo web; docker restart web"},
		{"cat list | xargs docker restart", "cat list; ?*(docker restart <{xargs input}>)"},
		{"find . -exec docker restart {} +", "?*(docker restart <{}>)"},
		{"find . -name '*.yml' -execdir docker restart web ';'", "?*(docker restart web)"},
		{"parallel 'docker restart {}' ::: web db", "docker restart web; docker restart db"},
		{"parallel ::: 'docker restart web'", "docker restart web"},

		// A shell reading its script from stdin.
		{"bash <<'EOF'\ndocker restart web\nEOF", "docker restart web"},
		{"S=web; bash <<EOF\ndocker restart $S\nEOF", "docker restart web"},
		{"sh <<< 'docker restart web'", "docker restart web"},
		{"echo 'docker restart web' | sh -s", "echo docker restart web; docker restart web"},
		{"printf 'docker restart web\\n' | bash", "printf docker restart web\\n; docker restart web"},
		{"cat <<EOF | bash\ndocker restart web\nEOF", "cat; docker restart web"},
		{"bash <(echo docker restart web)", "echo docker restart web; docker restart web"},
		{"source <(echo docker restart web)", "echo docker restart web; docker restart web"},
		{"curl -s x | bash", "curl -s x; !?(curl -s x | bash)"},
		{"bash < deploy.sh", "!(bash)"}, // a script in a file, as bash deploy.sh
		{"bash -c \"$(curl -s x)\"", "curl -s x; !?(bash -c \"$(curl -s x)\")"},
		{"bash deploy.sh", "bash deploy.sh"},
		{"ssh prod <<'EOF'\ndocker restart web\nEOF", "docker restart web"},
		{"ssh prod 'bash -s' <<< 'docker restart web'", "docker restart web"},

		// Words are expanded as bash does.
		{"$'docker' $'restart' $'\\x77eb'", "docker restart web"},
		{`"docker" 'restart' "w"eb`, "docker restart web"},
		{`d\ocker restart w\eb`, "docker restart web"},
		{"docker restart {web,db}", "docker restart web db"},
		{"docker restart web{1..3}", "docker restart web1 web2 web3"},
		{"docker restart {1..100000}", "docker restart <{1..100000}>"},
		{"docker restart web*", "docker restart <web*>"},
		{"docker restart 'web*'", "docker restart web*"},
		{"S=web; docker restart $S ${S} \"$S\"", "docker restart web web web"},
		{"S='web db'; docker restart $S", "docker restart web db"},
		{"S=(web db); docker restart \"${S[@]}\"", "docker restart web db"},
		{"export S=web; sh -c 'docker restart $S'", "docker restart web"},
		{"S=web; sh -c 'docker restart $S'", "docker restart <$S>"},
		{"export S=web; export -n S; sh -c 'docker restart $S'", "docker restart <$S>"},
		{"export S=web; declare +x S; sh -c 'docker restart $S'", "docker restart <$S>"},
		{"export -n S=web; sh -c 'docker restart $S'", "docker restart <$S>"},
		{"export S=web; export -n S; docker restart $S", "docker restart web"},
		{"S=web; declare -x S; sh -c 'docker restart $S'", "docker restart web"},
		{"S=web sh -c 'docker restart $S'", "docker restart web"},
		{"docker restart $SVC", "docker restart <$SVC>"},
		{"docker restart ${SVC:-web}", "docker restart <${SVC:-web}>"},
		{"X=$(echo web); docker restart $X", "echo web; docker restart web"},
		{"docker restart $(echo web) `echo db`", "echo web; echo db; docker restart web db"},
		{"docker restart $(cat f)", "cat f; docker restart <$(cat f)>"},
		{"$HOME/bin/docker restart web", "docker restart web"},
		{`"$(which docker)" restart web`, `which docker; <"$(which docker)"> restart web`},
		{"unset S; docker restart $S web", "docker restart web"},
		{"read S; docker restart $S", "docker restart <$S>"},
		{"S=db; printf -v S web; docker restart $S", "printf -v S web; docker restart <$S>"},
		{"S=db; . ./env.sh; docker restart $S", ". ./env.sh; docker restart <$S>"},
		{"S=db; eval \"$X\"; docker restart $S", "!?(eval \"$X\"); docker restart <$S>"},
		{"$CMD; \"$TOOL\" x; ${X:-a} b; $(cat f) c", "?<$CMD>; <\"$TOOL\"> x; ?<${X:-a}> b; cat f; ?<$(cat f)> c"},

		// Branches and loops.
		{"if docker ps; then docker restart web; else docker start web; fi", "docker ps; {docker restart web | docker start web}"},
		{"if a; then b; elif c; then d; fi", "a; {b | c; {d | }}"},
		{"case $1 in web) docker restart web;; *) :;; esac", "{ | docker restart web | :}"},
		{"for s in web db; do docker restart $s; done", "docker restart web; docker restart db"},
		{"for s in $(cat list); do docker restart $s; done", "cat list; ?*(docker restart <$s>)"},
		{"while true; do docker restart web; done", "?*(true; docker restart web)"},
		{"until false; do docker restart web; done", "?*(false; docker restart web)"},
		{"for ((i=0; i<3; i++)); do docker restart web; done", "?*(docker restart web)"},
		{"if x; then S=web; else S=db; fi; docker restart $S", "x; docker restart <$S>"},
		{"S=web; true && S=db; docker restart $S", "true; docker restart <$S>"},

		// Functions and aliases defined in the line.
		{"f() { docker restart $1; }; f web; f db", "docker restart web; docker restart db"},
		{"function f { docker restart web; }", ""},
		{"if x; then f() { docker restart web; }; fi; f", "x; {docker restart web | f}"},
		// An alias may or may not be expanded (expand_aliases): both are read.
		{"alias r='docker restart'; r web", "{docker restart web | r web}"},
		{"alias docker=echo\ndocker restart web", "{echo restart web | docker restart web}"},
		{"docker() { echo \"$@\"; }; docker restart web", "echo restart web"},
		{"alias r='docker restart'; 'r' web", "r web"},
		{"f() { f; }; f", "!!(f)"},

		// What runs other code guard does not read.
		{"python3 -c 'print(1)'", "code(print(1))"},
		{"awk -F: '{print $1}' f", "code({print $1}\nf)"},
		{"perl -e 'system(q(docker restart web))'", "code(system(q(docker restart web)))"},

		// A line that does not parse: the lines before it have run.
		{"cd /srv\ndocker restart web\nif", "cd /srv; docker restart web; !(if)"},
		{"docker restart web; if", "!(docker restart web; if)"},
		{"echo 'a\ndocker restart web", "!(echo 'a\ndocker restart web)"},
		{"docker restart web\n(\ndocker restart db", "docker restart web; !((\ndocker restart db)"},

		// Limits.
		{strings.Repeat("eval ", MaxDepth+1) + "docker restart web", "!!(docker restart web)"},
		{strings.Repeat("(", MaxNesting+1) + "docker restart web" + strings.Repeat(")", MaxNesting+1), "!!(" + strings.Repeat("(", 40) + "...)"},
	}
	for _, tc := range tests {
		if got := show(Read(tc.line)); got != tc.want {
			t.Errorf("Read(%q) = %q; want %q", tc.line, got, tc.want)
		}
	}
}

// TestReadRunners: programs that run a command or a string given in
// their words, beyond the wrappers, are read; placeholders of find and
// xargs in a string a shell runs are words guard cannot know, not a
// string it cannot read.
func TestReadRunners(t *testing.T) {
	tests := []struct{ line, want string }{
		{"tcsh -c 'docker restart web'", "docker restart web"},
		{"csh -fc 'docker restart web'", "docker restart web"},
		{"expect -c 'spawn docker restart web'", "code(spawn docker restart web)"},
		{"git bisect run docker restart web", "?*(docker restart web)"},
		{"git -C /srv submodule foreach --recursive 'docker restart web'", "?*(docker restart web)"},
		{"git rebase -x 'docker restart web' main", "?*(docker restart web)"},
		{"git rebase --exec='docker restart web' main", "?*(docker restart web)"},
		{"git commit -m 'docker restart web'", "git commit -m docker restart web"},
		{"ls | entr -s 'docker restart web'", "ls; ?*(docker restart web)"},
		{"ls | entr -r docker restart web", "ls; ?*(docker restart web)"},
		{"sem -j 2 --id x docker restart web", "docker restart web"},
		{"sem 'docker restart web'", "docker restart web"},
		{"ansible all -m shell -a 'docker restart web'", "docker restart web"},
		{"ansible web -a 'docker restart web'", "docker restart web"},
		{"ansible all -m ping", "ansible all -m ping"},
		{"pssh -h hosts -i 'docker restart web'", "docker restart web"},
		{"clush -w n[1-3] docker restart web", "docker restart web"},
		{"salt '*' cmd.run 'docker restart web'", "docker restart web"},
		{"sed 's/x/y/e' f", "code(s/x/y/e)"},
		{"sed -n '1e' f", "code(1e)"},
		{"sed -e 's|a|b|ge' -e p f", "code(s|a|b|ge; p)"},
		{"sed 's/e/x/' f", "sed s/e/x/ f"},
		{"sed -e '/e/d' -e 'a hello e' -e 'y/e/x/' f", "sed -e /e/d -e a hello e -e y/e/x/ f"},
		{"sed -ie 's/x/y/' f", "sed -ie s/x/y/ f"},
		// find's and xargs's placeholders in a string.
		{"find . -exec sh -c 'gzip \"{}\"' \\;", "?*(gzip <{}>)"},
		{"find . -exec sh -c 'docker restart {}' \\;", "?*(docker restart <{}>)"},
		{"cat f | xargs -I{} sh -c 'echo {}; docker restart {}'", "cat f; ?*(echo <{xargs input}>; docker restart <{xargs input}>)"},
		{"cat f | xargs -I{} sh -c '{}'", "cat f; ?*(!?(xargs -I{} sh -c '{}'))"},
		{"cat f | xargs -I% bash -c \"sh -c '%'\"", "cat f; ?*(!?(sh -c '{xargs input}'))"},
		{"find . -exec sh -c \"$X {}\" \\;", "?*(!?(find . -exec sh -c \"$X {}\" \\;))"},
		// A variable or a command's output inside a string is a word guard
		// cannot know; in a command's place, a command it cannot see.
		{`ssh prod "journalctl -u $SVC"`, "journalctl -u <$SVC>"},
		{`trap "rm -f $TMP" EXIT`, "rm -f <$TMP>"},
		{`bash -c "cd $DIR && make"`, "cd <$DIR>; make"},
		{`sh -c "$DIR/bin/tool x"`, "tool x"},
		{`eval "$CMD"`, `!?(eval "$CMD")`},
		{`bash -c "cd /srv && $CMD --now"`, `cd /srv; !?(bash -c "cd /srv && $CMD --now")`},
		{`sh -c "sudo $(cat cmd) x"`, `cat cmd; !?(sh -c "sudo $(cat cmd) x")`},
		{`ssh prod "docker restart $(cat svc)"`, "cat svc; docker restart <$(cat svc)>"},
		// ... even where it got to through a variable the string set.
		{`eval "S=$X"; docker restart $S`, "docker restart <$X>"},
		{`eval "f() { $CMD; }"; f`, `!?($CMD)`},
		// A shell in sh -c reads sh's stdin.
		{"echo 'docker restart web' | sh -c 'bash'", "echo docker restart web; docker restart web"},
	}
	for _, tc := range tests {
		if got := show(Read(tc.line)); got != tc.want {
			t.Errorf("Read(%q) = %q; want %q", tc.line, got, tc.want)
		}
	}
}

// lastRun returns the last Run in n.
func lastRun(n *Node) *Node {
	if n == nil {
		return nil
	}
	if n.Kind == Run {
		return n
	}
	for i := len(n.Kids) - 1; i >= 0; i-- {
		if r := lastRun(n.Kids[i]); r != nil {
			return r
		}
	}
	return nil
}

// TestMayRun: a program guard does not know may run a command among its
// words, which ArgCommand and ArgScript read; one known to take its words
// as data may not.
func TestMayRun(t *testing.T) {
	tests := []struct {
		line   string
		mayRun bool
		at     int    // ArgCommand from this word, or
		script string // ArgScript of this word
		want   string
	}{
		{line: "strace -f -o /dev/null docker restart web", mayRun: true, at: 4, want: "docker restart web"},
		{line: "chronic sudo -u ops sh -c 'docker restart web'", mayRun: true, at: 1, want: "docker restart web"},
		{line: "mytool --command 'docker restart web; docker restart db'", mayRun: true, script: "docker restart web; docker restart db", want: "docker restart web; docker restart db"},
		{line: "echo 'docker restart web' | docker exec -i c sh", mayRun: true, at: 4, want: "docker restart web"},
		{line: "cat x | docker exec -i c sh", mayRun: true, at: 4, want: ""}, // an input guard cannot see is not handed on
		{line: "./deploy.sh docker restart web", mayRun: true, at: 1, want: "docker restart web"},
		{line: "bash deploy.sh docker restart web", mayRun: true, at: 2, want: "docker restart web"},
		{line: "echo docker restart web"},
		{line: "printf '%s\n' docker restart web"},
		{line: "grep -r docker restart web"},
		{line: "git commit -m x docker restart web"},
		{line: "sed 's/a/b/' docker restart web"},
		{line: "command -v docker restart web"},
		{line: "sudo -l docker restart web"},
		{line: "guard cooldown run web restart -- docker restart web"},
	}
	for _, tc := range tests {
		n := lastRun(Read(tc.line))
		if n == nil || n.MayRun != tc.mayRun {
			t.Errorf("Read(%q): last run %+v; want MayRun %v", tc.line, n, tc.mayRun)
			continue
		}
		if !tc.mayRun {
			continue
		}
		var got *Node
		if tc.script != "" {
			got = ArgScript(n, tc.script)
		} else {
			got = ArgCommand(n, tc.at)
		}
		if show(got) != tc.want {
			t.Errorf("Read(%q): its command %q; want %q", tc.line, show(got), tc.want)
		}
	}
}

func TestReadArgv(t *testing.T) {
	tests := []struct {
		argv []string
		want string
	}{
		{[]string{"docker", "restart", "$SVC"}, "docker restart $SVC"},
		{[]string{"sh", "-c", "docker restart \"$1\"", "_", "web"}, "docker restart web"},
		{[]string{"sh", "-c", "docker restart $SVC"}, "docker restart <$SVC>"},
		{[]string{"xargs", "docker", "restart"}, "?*(docker restart <{xargs input}>)"},
	}
	for _, tc := range tests {
		if got := show(ReadArgv(tc.argv)); got != tc.want {
			t.Errorf("ReadArgv(%q) = %q; want %q", tc.argv, got, tc.want)
		}
	}
}

// TestReadIsBounded holds Read to its limits on hostile input (m27):
// deeply nested substitutions, a line over MaxLength, and work that
// grows without bound are each read as one Unread part, at once.
func TestReadIsBounded(t *testing.T) {
	fbomb := "f0() { docker restart web; }"
	for i := 1; i <= 30; i++ {
		fbomb += fmt.Sprintf("; f%d() { f%d; f%d; }", i, i-1, i-1)
	}
	tests := []struct {
		name, line string
	}{
		{"open substitutions", strings.Repeat("$(", 200000)},
		{"closed substitutions", strings.Repeat("$(", 60000) + "docker restart web" + strings.Repeat(")", 60000)},
		{"nested ifs", strings.Repeat("if ", 80000)},
		{"long", "docker restart web; " + strings.Repeat("# pad\n", MaxLength/6+1)},
		{"calls", fbomb + "; f30"},
		{"braces", "docker restart " + strings.Repeat("{a,b}", 40)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			n := Read(tc.line)
			if !hasLimit(n) && !strings.Contains(show(n), "<") {
				t.Errorf("Read(%s) = %s; want a part over a limit", tc.name, clip(show(n), 200))
			}
		})
	}
}

func hasLimit(n *Node) bool {
	if n == nil {
		return false
	}
	if n.Kind == Unread && n.Limit {
		return true
	}
	for _, k := range n.Kids {
		if hasLimit(k) {
			return true
		}
	}
	return false
}

func FuzzRead(f *testing.F) {
	for _, s := range []string{
		"docker restart web; sh -c 'docker restart db' | xargs -n1 echo",
		"f() { eval \"$@\"; }; f docker restart web; for s in a b; do watch $s; done",
		"bash <<EOF\nssh h 'docker restart $S'\nEOF",
		"$'\\x64ocker' restart {web,db} `echo x` <(echo y)",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		var check func(n *Node)
		check = func(n *Node) {
			if n == nil {
				return
			}
			if strings.HasPrefix(n.Reason, "guard could not read it") {
				t.Fatalf("Read(%q) panicked: %s", line, n.Reason)
			}
			for _, k := range n.Kids {
				check(k)
			}
		}
		check(Read(line))
	})
}
