package shell

import (
	"slices"
	"strings"
	"testing"
)

// TestProgramOfOpsLines: the program and the normal form of the command
// lines hooks and ops agents write, wrappers stacked as they are in the
// wild: sudo, timeout, setsid, flock -w, nice, ionice, env, stdbuf.
func TestProgramOfOpsLines(t *testing.T) {
	for i, st := range []struct {
		line    string
		program []string
		normal  string
	}{
		{"sudo -E docker restart web", []string{"docker", "restart", "web"}, "docker restart web"},
		{"sudo -u deploy kubectl -n prod rollout restart deploy/web",
			[]string{"kubectl", "-n", "prod", "rollout", "restart", "deploy/web"}, "kubectl rollout restart deploy/web -n=prod"},
		{"timeout 30s sudo systemctl restart nginx.service", []string{"systemctl", "restart", "nginx.service"}, "systemctl restart nginx"},
		{"sudo systemctl kill --kill-whom=main -s HUP nginx", []string{"systemctl", "kill", "--kill-whom=main", "-s", "HUP", "nginx"},
			"systemctl kill nginx --kill-whom=main -s=HUP"},
		{"systemctl --no-block -t service restart x.service", []string{"systemctl", "--no-block", "-t", "service", "restart", "x.service"},
			"systemctl restart x --no-block -t=service"},
		{"nohup setsid -f flock -w 5 /run/lock/x timeout -s TERM 30 docker restart web", []string{"docker", "restart", "web"}, "docker restart web"},
		{"nice -n 10 ionice -c3 stdbuf -oL -eL docker compose -p shop --profile prod restart web",
			[]string{"docker", "compose", "-p", "shop", "--profile", "prod", "restart", "web"}, "docker compose restart web"},
		{"docker -H tcp://h -l debug --tlscert c stop -t 5 web", nil, "docker stop web -t=5"},
		{"docker-compose -f x.yml up -d", nil, "docker compose up -d"},
		{"docker -- restart web", nil, "docker restart web"},
		{"helm upgrade --install -n prod --set a=b rel chart", nil, "helm upgrade rel chart --install -n=prod --set=a=b"},
		{"ansible-playbook -i inv -l web -e x=1 site.yml", nil, "ansible-playbook site.yml -i=inv -l=web -e=x=1"},
		{"env -u HOME DOCKER_HOST=tcp://h docker restart web", []string{"docker", "restart", "web"}, "docker restart web"},
		// A shell of sudo's own runs the words after its options.
		{"sudo -s docker restart web", []string{"docker", "restart", "web"}, "docker restart web"},
		{"sudo -iu root docker restart web", []string{"docker", "restart", "web"}, "docker restart web"},
		{"sudo -i", nil, ""},
		{"sudo -nu root -- guard run", []string{"guard", "run"}, "guard run"},
		// A string a runner hands a shell, or splits, when it is one
		// simple command of literal words.
		{"flock -x /l -c 'sudo docker restart web'", []string{"docker", "restart", "web"}, "docker restart web"},
		{"flock /l --command 'guard run'", []string{"guard", "run"}, "guard run"},
		{"env -S 'A=1 sudo guard run' -- x", []string{"guard", "run", "--", "x"}, "guard run x"},
		{"env -S 'sudo guard' run", []string{"guard", "run"}, "guard run"},
		{"xargs -r docker restart", []string{"docker", "restart"}, "docker restart"},
		{"builtin echo x", []string{"echo", "x"}, "echo x"},
		{"exec", nil, ""},
	} {
		cs, err := Parse(st.line)
		if err != nil || len(cs) != 1 {
			t.Fatalf("step %d: Parse(%q) = %v, %v", i+1, st.line, cs, err)
		}
		if got := cs[0].Program(); st.program != nil && !slices.Equal(got, st.program) || st.normal == "" && got != nil {
			t.Errorf("step %d: Program(%q) = %q; want %q", i+1, st.line, got, st.program)
		}
		if got := cs[0].Normal(); got != st.normal {
			t.Errorf("step %d: Normal(%q) = %q; want %q", i+1, st.line, got, st.normal)
		}
	}
}

// TestProgramStops: where Program cannot take a runner off, it keeps the
// words from that runner on: a string it cannot know or that is not one
// simple command, a program whose words are data or run on another host,
// a word it cannot read in a program's place, and more wrappers than it
// follows.
func TestProgramStops(t *testing.T) {
	for i, st := range []struct {
		line string
		want []string
	}{
		{`flock /l -c "$CMD"`, []string{"flock", "/l", "-c", `"$CMD"`}},
		{"flock /l -c 'docker ps; docker restart web'", []string{"flock", "/l", "-c", "docker ps; docker restart web"}},
		{"flock /l -c ''", []string{"flock", "/l", "-c", ""}},
		{`env -S "$X" y`, []string{"env", "-S", `"$X"`, "y"}},
		{"ssh prod docker restart web", []string{"ssh", "prod", "docker", "restart", "web"}},
		{"sudo ssh -t prod guard run", []string{"ssh", "-t", "prod", "guard", "run"}},
		{"rsync -e ssh a b", []string{"rsync", "-e", "ssh", "a", "b"}},
		{"sudo $X guard run", []string{"$X", "guard", "run"}},
		{"$SUDO guard run", []string{"$SUDO", "guard", "run"}},
		{strings.Repeat("nice ", 20) + "guard run", []string{"nice", "nice", "nice", "nice", "guard", "run"}},
	} {
		cs, err := Parse(st.line)
		if err != nil || len(cs) != 1 {
			t.Fatalf("step %d: Parse(%q) = %v, %v", i+1, st.line, cs, err)
		}
		if got := cs[0].Program(); !slices.Equal(got, st.want) {
			t.Errorf("step %d: Program(%q) = %q; want %q", i+1, st.line, got, st.want)
		}
	}
}

// TestProgramWithoutParser: guard run links no parser; a runner's string
// that is one plain command is still read, any other stops Program at the
// runner (the cautious answer), and parse says why.
func TestProgramWithoutParser(t *testing.T) {
	saved := full
	full = Parser{}
	t.Cleanup(func() { full = saved })
	for i, st := range []struct {
		words []string
		want  []string
	}{
		{[]string{"flock", "/l", "-c", "guard run -- x"}, []string{"guard", "run", "--", "x"}},
		{[]string{"env", "-S", "nice guard run", "x"}, []string{"guard", "run", "x"}},
		{[]string{"flock", "/l", "-c", "guard run | x"}, []string{"flock", "/l", "-c", "guard run | x"}},
		{[]string{"flock", "/l", "-c", "A=1 guard run"}, []string{"flock", "/l", "-c", "A=1 guard run"}},
		{[]string{"flock", "/l", "-c", "sudo $'guard'"}, []string{"flock", "/l", "-c", "sudo $'guard'"}},
		{[]string{"flock", "/l", "-c", "guard run $X"}, []string{"flock", "/l", "-c", "guard run $X"}},
	} {
		if got := (Command{Words: st.words}).Program(); !slices.Equal(got, st.want) {
			t.Errorf("step %d: Program(%q) without a parser = %q; want %q", i+1, st.words, got, st.want)
		}
	}
	if _, err := parse("a | b"); err != errNotPlain || !strings.Contains(err.Error(), "no shell parser is linked in") {
		t.Errorf("parse of a list without a parser: %v; want errNotPlain", err)
	}
	if cs, err := parse("   "); cs != nil || err != nil {
		t.Errorf("parse of a blank line = %v, %v; want no commands", cs, err)
	}
}

// TestUnescape: backslashes as the shell takes them off, unquoted and in
// double quotes (where only $ ` " \ and a newline are escaped).
func TestUnescape(t *testing.T) {
	for _, st := range []struct{ in, bare, double string }{
		{`plain`, "plain", "plain"},
		{`a\ b`, "a b", `a\ b`},
		{`a\\b`, `a\b`, `a\b`},
		{`\$x`, "$x", "$x"},
		{`a\"b`, `a"b`, `a"b`},
		{"a\\`b", "a`b", "a`b"},
		{`\d\o`, "do", `\d\o`},
		{"a\\\nb", "ab", "ab"},
		{`a\`, `a\`, `a\`},
	} {
		if got := Unescape(st.in); got != st.bare {
			t.Errorf("Unescape(%q) = %q; want %q", st.in, got, st.bare)
		}
		if got := UnescapeDouble(st.in); got != st.double {
			t.Errorf("UnescapeDouble(%q) = %q; want %q", st.in, got, st.double)
		}
	}
}

// TestLex: the plain subset the reader without a parser is sure of, and
// the words it makes of it.
func TestLex(t *testing.T) {
	for i, st := range []struct {
		line  string
		sure  bool
		words int
	}{
		{"python3 x.py --strict", true, 3},
		{"  a\tb  ", true, 2},
		{`"$CLAUDE_PROJECT_DIR"/hooks/x.sh ${HOME}/y 'a b' c\ d`, true, 4},
		{"A=1 B=x python3", true, 3},
		{"", true, 0},
		{"a # comment", false, 0},
		{"a|b", false, 0}, {"a;b", false, 0}, {"a&", false, 0}, {"a>f", false, 0}, {"(a)", false, 0},
		{"a *", false, 0}, {"a {b,c}", false, 0}, {"! a", false, 0}, {"a `b`", false, 0}, {"a $(b)", false, 0},
		{"a $'b'", false, 0}, {"a ${B:-x}", false, 0}, {"a $1", false, 0}, {"a ${B", false, 0}, {`a "${B:-x}"`, false, 0},
		{`a "b`, false, 0}, {"a 'b", false, 0}, {`a "b\`, false, 0}, {"a \"`b`\"", false, 0}, {`a\`, false, 0},
		{"a\nb", false, 0}, {"a '\x01'", false, 0}, {"a \"\x7f\"", false, 0}, {`a \*`, false, 0}, {"a \xff", false, 0},
		{"if a", false, 0}, {"A=1 then", false, 0}, {"export A=1", false, 0}, {"A+=1 b", false, 0},
	} {
		words, sure := lex(st.line)
		if sure != st.sure || sure && len(words) != st.words {
			t.Errorf("step %d: lex(%q) = %d words, sure %v; want %d, %v", i+1, st.line, len(words), sure, st.words, st.sure)
		}
	}
}

// TestRunnerTable: every name of the table is found by LookupRunner, by
// its base name only, and RunnerNames lists them sorted, once each.
func TestRunnerTable(t *testing.T) {
	names := RunnerNames()
	if !slices.IsSorted(names) || len(slices.Compact(slices.Clone(names))) != len(names) {
		t.Errorf("RunnerNames = %q; want sorted, each once", names)
	}
	for _, want := range []string{"sudo", "env", "timeout", "setsid", "flock", "nice", "ionice", "xargs", "ssh", "rsync", "git"} {
		if !slices.Contains(names, want) {
			t.Errorf("RunnerNames lacks %s", want)
		}
	}
	for _, n := range names {
		if _, ok := LookupRunner(n); !ok {
			t.Errorf("LookupRunner(%q) = false; RunnerNames lists it", n)
		}
	}
	for _, n := range []string{"/usr/bin/sudo", "docker", "bash", ""} {
		if _, ok := LookupRunner(n); ok {
			t.Errorf("LookupRunner(%q) = true; want false", n)
		}
	}
	if got := BaseName("/usr/local/bin/guard"); got != "guard" {
		t.Errorf("BaseName = %q", got)
	}
	if got := BaseName("guard"); got != "guard" {
		t.Errorf("BaseName = %q", got)
	}
}

// TestStdinCommands: the commands a program that reads its own language
// from stdin runs after its escapes, one to the end of each line.
func TestStdinCommands(t *testing.T) {
	for _, st := range []struct {
		prog, stdin string
		want        []string
	}{
		{"psql", "SELECT 1;\n\\! docker restart web\n\\!   \n", []string{"docker restart web"}},
		{"mysql", "system docker restart web\nSELECT 1;\n\\! id", []string{"docker restart web", "id"}},
		{"sqlite3", ".tables\n.shell docker restart web\n.system id\n", []string{"docker restart web", "id"}},
		{"gdb", "run\nshell docker restart web\n!id\n", []string{"docker restart web", "id"}},
		{"ed", "1p\n!docker restart web\nq\n", []string{"docker restart web"}},
		{"psql", "SELECT 'no escape here';", nil},
	} {
		rn, ok := LookupRunner(st.prog)
		if !ok {
			t.Fatalf("%s is not in the table", st.prog)
		}
		if got := rn.StdinCommands(st.stdin); !slices.Equal(got, st.want) {
			t.Errorf("%s's StdinCommands(%q) = %q; want %q", st.prog, st.stdin, got, st.want)
		}
	}
}

// TestOptionTakesValue: a valued option, and a cluster of short options
// whose valued one ends it, take the next word; one inside a cluster takes
// the rest of the word.
func TestOptionTakesValue(t *testing.T) {
	valued := Set("-u", "-S", "--user")
	for _, st := range []struct {
		opt  string
		want bool
	}{
		{"-u", true}, {"--user", true}, {"-dmS", true}, {"-nu", true},
		{"-uroot", false}, {"-Sx", false}, {"-n", false}, {"--user=root", false}, {"--userx", false}, {"-", false}, {"x", false},
	} {
		if got := OptionTakesValue(st.opt, valued); got != st.want {
			t.Errorf("OptionTakesValue(%q) = %v; want %v", st.opt, got, st.want)
		}
	}
	for _, st := range []struct {
		w    string
		want bool
	}{
		{"A=1", true}, {"_x=", true}, {"DOCKER_HOST=tcp://h", true},
		{"1A=x", false}, {"=x", false}, {"A", false}, {"a-b=c", false}, {"--opt=x", false},
	} {
		if got := IsAssign(st.w); got != st.want {
			t.Errorf("IsAssign(%q) = %v; want %v", st.w, got, st.want)
		}
	}
}

// TestDecodeANSIC: $'...' decoded as bash decodes it, each escape.
func TestDecodeANSIC(t *testing.T) {
	for _, st := range []struct{ in, want string }{
		{`$'\x64\X\x4A\x4a'`, `d\XJJ`},
		{`$'\144\0061\7'`, "d\x061\a"},
		{`$'\cA\cz'`, "\x01\x1a"},
		{`$'\u00e9\U0001F600'`, "é😀"},
		{`$'\ud800'`, ""}, // a surrogate is no rune: bash writes nothing
		{`$'\a\b\e\E\f\n\r\t\v\\\'\"\?'`, "\a\b\x1b\x1b\f\n\r\t\v\\'\"?"},
		{`$'\xg'`, `\xg`},
		{`x$'a'y$'b'z`, "xaybz"},
		{`$'open`, "open"},
		{`$'tail\`, `tail\`},
	} {
		got, changed := decodeANSIC(st.in)
		if got != st.want || !changed {
			t.Errorf("decodeANSIC(%q) = %q, %v; want %q", st.in, got, changed, st.want)
		}
	}
	if got, changed := decodeANSIC("no dollar quote"); changed || got != "no dollar quote" {
		t.Errorf("decodeANSIC of plain text = %q, %v", got, changed)
	}
}

// TestBraceAlternative: each brace expansion as its first or its last
// alternative; ${...}, braces without a comma and an unclosed brace stay.
func TestBraceAlternative(t *testing.T) {
	for _, st := range []struct{ in, first, last string }{
		{"{d,}ocker restart web{1,2}", "docker restart web1", "ocker restart web2"},
		{"${x,,} {a}", "${x,,} {a}", "${x,,} {a}"},
		{"x {a,b", "x {a,b", "x {a,b"},
	} {
		if got := braceAlternative(st.in, false); got != st.first {
			t.Errorf("braceAlternative(%q, first) = %q; want %q", st.in, got, st.first)
		}
		if got := braceAlternative(st.in, true); got != st.last {
			t.Errorf("braceAlternative(%q, last) = %q; want %q", st.in, got, st.last)
		}
	}
}
