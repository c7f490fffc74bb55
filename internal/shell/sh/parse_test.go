package sh_test

import (
	"errors"
	"slices"
	"testing"

	"mvdan.cc/sh/v3/syntax"

	"guard/internal/shell"
	"guard/internal/shell/sh"
)

// TestCommands: the simple commands of a bash line, wherever they stand
// (lists, pipelines, subshells, groups, functions, loops, conditions,
// command and process substitutions, here-documents), with their
// assignments apart and each word unquoted where it is what the program
// receives, else kept as written and marked.
func TestCommands(t *testing.T) {
	type cmd struct {
		assigns []string
		words   []string
		literal []bool
	}
	all := func(words ...string) cmd {
		lit := make([]bool, len(words))
		for i := range lit {
			lit[i] = true
		}
		return cmd{words: words, literal: lit}
	}
	for i, st := range []struct {
		line string
		want []cmd
	}{
		{"sudo -u root docker restart web | tee -a log",
			[]cmd{all("sudo", "-u", "root", "docker", "restart", "web"), all("tee", "-a", "log")}},
		{"(cd /srv && docker compose restart web) &", []cmd{all("cd", "/srv"), all("docker", "compose", "restart", "web")}},
		{"{ systemctl restart nginx; } 2>&1 || true", []cmd{all("systemctl", "restart", "nginx"), all("true")}},
		{"f() { kubectl -n prod delete pod x; }; f", []cmd{all("kubectl", "-n", "prod", "delete", "pod", "x"), all("f")}},
		{"if ! docker ps; then docker start web; fi", []cmd{all("docker", "ps"), all("docker", "start", "web")}},
		{"[[ -f /run/x ]] && docker restart web", []cmd{all("docker", "restart", "web")}},
		{"cat <<EOF\n$(docker restart web)\nEOF", []cmd{all("cat"), all("docker", "restart", "web")}},
		{"diff <(ls a) b", []cmd{{words: []string{"diff", "<(ls a)", "b"}, literal: []bool{true, false, true}}, all("ls", "a")}},
		// Assignments are kept apart, as written; a line of them alone is
		// a command too.
		{"DOCKER_HOST=tcp://h:2375 A='x y' docker ps", []cmd{{assigns: []string{"DOCKER_HOST=tcp://h:2375", "A='x y'"}, words: []string{"docker", "ps"}, literal: []bool{true, true}}}},
		{"x=1", []cmd{{assigns: []string{"x=1"}}}},
		// Quotes, backslashes and $'...' are taken off a literal word; a
		// variable, a substitution or a glob character (even quoted) keeps
		// the word as written.
		{`docker restart "w"'e'b x\ y "a\$b" $'\x77eb' $'\x'`, []cmd{all("docker", "restart", "web", "x y", "a$b", "web", `\x`)}},
		{`docker restart "$S" ${S}x web* 'a*' $(cat f)`, []cmd{
			{words: []string{"docker", "restart", `"$S"`, "${S}x", "web*", "'a*'", "$(cat f)"}, literal: []bool{true, true, false, false, false, false, false}},
			all("cat", "f")}},
		{"for s in a b; do docker restart $s; done", []cmd{{words: []string{"docker", "restart", "$s"}, literal: []bool{true, true, false}}}},
		{"", nil},
		{"# only a comment", nil},
	} {
		cs, err := sh.Commands(st.line)
		if err != nil {
			t.Fatalf("step %d: Commands(%q): %v", i+1, st.line, err)
		}
		var got []cmd
		for _, c := range cs {
			got = append(got, cmd{c.Assigns, c.Words, c.Literal})
		}
		if !slices.EqualFunc(got, st.want, func(a, b cmd) bool {
			return slices.Equal(a.assigns, b.assigns) && slices.Equal(a.words, b.words) && slices.Equal(a.literal, b.literal)
		}) {
			t.Errorf("step %d: Commands(%q) = %+v; want %+v", i+1, st.line, got, st.want)
		}
	}
}

// TestCommandsRefuses: a line bash would not parse is an error of
// mvdan.cc/sh's own, a *syntax.ParseError that says where (line:column),
// never a partial reading.
func TestCommandsRefuses(t *testing.T) {
	for i, st := range []struct {
		line      string
		line1     uint // the error's line and column
		col       uint
		errString string
	}{
		{"echo 'a", 1, 6, "1:6: reached EOF without closing quote `'`"},
		{`echo "a`, 1, 6, "1:6: reached EOF without closing quote `\"`"},
		{"if true; then", 1, 10, "1:10: `then` must be followed by a statement list"},
		{"docker restart web )", 1, 20, "1:20: a command can only contain words and redirects; encountered `)`"},
		{"docker ps\ndocker restart web &&", 2, 20, "2:20: `&&` must be followed by a statement"},
		{"case $x in", 1, 1, "1:1: `case` statement must end with `esac`"},
		{"echo $(docker ps", 1, 6, "1:6: reached EOF without matching `$(` with `)`"},
		{"a;;b", 1, 2, "1:2: `;;` can only be used in a case clause"},
	} {
		cs, err := sh.Commands(st.line)
		var pe syntax.ParseError
		if !errors.As(err, &pe) {
			t.Errorf("step %d: Commands(%q) = %v, %v; want a syntax.ParseError", i+1, st.line, cs, err)
			continue
		}
		if cs != nil || pe.Pos.Line() != st.line1 || pe.Pos.Col() != st.col || err.Error() != st.errString {
			t.Errorf("step %d: Commands(%q) = %v, %q at %d:%d; want no commands, %q", i+1, st.line, cs, err, pe.Pos.Line(), pe.Pos.Col(), st.errString)
		}
	}
}

// TestSimpleCommand: the words sh -c STRING runs, expanded with env as
// POSIX sh expands them, for one simple command of plain words; nil for
// anything guard cannot be sure of from the line alone.
func TestSimpleCommand(t *testing.T) {
	env := []string{"HOME=/home/ops", "S=web", "E=", "SP=a b", "G=x*", "S=api"}
	for i, st := range []struct {
		line string
		argv []string
	}{
		{"exec docker restart $S", []string{"docker", "restart", "api"}}, // the last S= wins
		{`docker restart "$S" ${S}-1 "${S}"`, []string{"docker", "restart", "api", "api-1", "api"}},
		{`~/bin/deploy ~ "~" x\ y "a\"b\$c"`, []string{"/home/ops/bin/deploy", "/home/ops", "~", "x y", `a"b$c`}},
		{`hook "$E" "a*"`, []string{"hook", "", "a*"}},
		{`hook "$SP" "$G"`, []string{"hook", "a b", "x*"}},
		{"PYTHONPATH=/lib python3 x.py", []string{"python3", "x.py"}},
		{"exec", []string{"exec"}},
		// POSIX sh has no $'...' nor $"...": a $ before a quote stays.
		{"hook $'x' $\"y\"", []string{"hook", "$x", "$y"}},
		// What the shell would split, glob or fail on, or what only
		// running it would tell.
		{"hook $E", nil}, {"hook $SP", nil}, {"hook $G", nil}, {"hook $UNSET", nil}, {"hook ~ops/x", nil},
		{"hook a*", nil}, {"hook ${S:-x}", nil}, {"hook ${#S}", nil}, {"hook $1", nil}, {`hook "${S:-x}"`, nil},
		{"hook $(pwd)", nil}, {"hook `pwd`", nil}, {`hook "$(pwd)"`, nil}, {"~/x $((1+1))", nil},
		// Anything but one simple command.
		{"hook > log", nil}, {"! hook", nil}, {"hook &", nil}, {"hook; other", nil}, {"hook | cat", nil},
		{"(hook)", nil}, {"if hook; then x; fi", nil}, {"A=1", nil}, {"", nil}, {"hook 'a", nil},
	} {
		if got := sh.SimpleCommand(st.line, env); !slices.Equal(got, st.argv) {
			t.Errorf("step %d: SimpleCommand(%q) = %q; want %q", i+1, st.line, got, st.argv)
		}
	}
}

// TestRegisters: linking package sh gives package shell its parser, for
// the lines shell's own plain reader is not sure of.
func TestRegisters(t *testing.T) {
	env := []string{"HOME=/h"}
	// $'...' is outside the plain subset: only the parser reads it.
	if got := shell.SimpleCommand("hook $'x'", env); !slices.Equal(got, []string{"hook", "$x"}) {
		t.Errorf("shell.SimpleCommand with sh linked = %q; want the parser's reading", got)
	}
	// flock's string is a list: only the parser reads it, as one that is
	// not one simple command, so Program stops at flock.
	cs, err := sh.Commands("flock /l -c 'a | b'")
	if err != nil || len(cs) != 1 {
		t.Fatalf("Commands = %v, %v", cs, err)
	}
	if got := cs[0].Program(); !slices.Equal(got, cs[0].Words) {
		t.Errorf("Program of flock -c 'a | b' = %q; want flock's own words", got)
	}
	cs, _ = sh.Commands(`flock /l -c "sudo $'docker' restart web"`)
	if got := cs[0].Program(); !slices.Equal(got, []string{"docker", "restart", "web"}) {
		t.Errorf(`Program of flock -c "sudo $'docker' restart web" = %q; want docker restart web`, got)
	}
}
