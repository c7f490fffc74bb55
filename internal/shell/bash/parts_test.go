package bash

import (
	"slices"
	"testing"
)

// The step tables of the reader's parts: each a small function that one
// of Read's readings stands on, with a row for each way its input may come.

// TestSedExecutes: sed's e command, and the e flag of s, run a command in a
// shell; no other command of sed does, whatever its address or text.
func TestSedExecutes(t *testing.T) {
	for i, st := range []struct {
		script string
		runs   bool
	}{
		{"e", true},
		{"1e date", true},
		{"$e date", true},
		{"/x/e date", true},
		{`\,x,e date`, true},
		{"1,5e date", true},
		{"1,5!e date", true},
		{"s/a/b/e", true},
		{"s/a/b/ge", true},
		{"s|a|b|e", true},
		{`s/a\/e/b/`, false},
		{"s/a/b/", false},
		{"s/a/b/g", false},
		{"s/a/b/w out.e", false},
		{"y/abc/xyz/", false},
		{"p", false},
		{"1d", false},
		{"/e/d", false},
		{"a text with e", false},
		{"i\\\ninsert e", false},
		{"r file.e", false},
		{"w file.e", false},
		{"b end; :end", false},
		{"s/a/b/; e", true},
		{"s/a/b/\ne date", true},
		{"# comment e\np", false},
		{"", false},
	} {
		if got := sedExecutes(st.script); got != st.runs {
			t.Errorf("step %d: sedExecutes(%q) = %v; want %v", i+1, st.script, got, st.runs)
		}
	}
}

// TestSedCode: which of sed's words are its script, and whether it runs a
// command: -e and --expression each give one, and without them the first
// word that is no option is the script; -f names a file guard does not
// read.
func TestSedCode(t *testing.T) {
	for i, st := range []struct {
		words []string
		code  string
		runs  bool
	}{
		{[]string{"sed", "s/a/b/e", "f"}, "s/a/b/e", true},
		{[]string{"sed", "-n", "1e date", "f"}, "1e date", true},
		{[]string{"sed", "-e", "p", "-e", "e date"}, "p; e date", true},
		{[]string{"sed", "--expression=e date", "f"}, "e date", true},
		{[]string{"sed", "-ne", "e date", "f"}, "e date", true},
		{[]string{"sed", "-i", "s/a/b/", "f"}, "", false},
		{[]string{"sed", "-f", "x.sed", "e"}, "", false},
		{[]string{"sed", "-l", "5", "e"}, "e", true},
		{[]string{"sed", "p", "e"}, "", false},
		{[]string{"sed"}, "", false},
	} {
		code, runs := sedCode(st.words)
		if code != st.code || runs != st.runs {
			t.Errorf("step %d: sedCode(%q) = %q, %v; want %q, %v", i+1, st.words, code, runs, st.code, st.runs)
		}
	}
}

// TestInterpreterCode: the code an interpreter's option gives it, which
// guard does not read but searches.
func TestInterpreterCode(t *testing.T) {
	for i, st := range []struct {
		words []string
		code  string
		ok    bool
	}{
		{[]string{"python3", "-c", "x"}, "x", true},
		{[]string{"python3.12", "-u", "-c", "x"}, "x", true},
		{[]string{"python3", "script.py"}, "", false},
		{[]string{"pypy3", "-c", "x"}, "x", true},
		{[]string{"perl", "-e", "x"}, "x", true},
		{[]string{"perl", "-E", "x"}, "x", true},
		{[]string{"perl", "-w", "script.pl"}, "", false},
		{[]string{"ruby", "-e", "x"}, "x", true},
		{[]string{"node", "--eval", "x"}, "x", true},
		{[]string{"node", "-p", "x"}, "x", true},
		{[]string{"nodejs", "-e", "x"}, "x", true},
		{[]string{"lua", "-e", "x"}, "x", true},
		{[]string{"php", "-r", "x"}, "x", true},
		{[]string{"pwsh", "-Command", "x"}, "x", true},
		{[]string{"powershell", "-c", "x"}, "x", true},
		{[]string{"expect", "-c", "x"}, "x", true},
		{[]string{"awk", "{x}", "f"}, "{x}", true},
		{[]string{"awk", "-F", ":", "{x}"}, "{x}", true},
		{[]string{"gawk", "-v", "a=1", "{x}"}, "{x}", true},
		{[]string{"mawk", "-f", "p.awk"}, "", false},
		{[]string{"awk"}, "", false},
		{[]string{"sed", "e"}, "e", true},
		{[]string{"sed", "p"}, "", false},
		{[]string{"python3", "-c"}, "", false},
		{[]string{"bash", "-c", "x"}, "", false},
	} {
		lit := make([]bool, len(st.words))
		code, ok := interpreterCode(st.words[0], st.words, lit)
		if code != st.code || ok != st.ok {
			t.Errorf("step %d: interpreterCode(%q) = %q, %v; want %q, %v", i+1, st.words, code, ok, st.code, st.ok)
		}
	}
}

// TestXargsItems: xargs splits its input at blanks, with its own quotes and
// backslashes, or at a delimiter it is given.
func TestXargsItems(t *testing.T) {
	for i, st := range []struct {
		in, delim string
		items     []string
	}{
		{"web db\n", "", []string{"web", "db"}},
		{"web\ndb\n", "", []string{"web", "db"}},
		{"  web\t\tdb  ", "", []string{"web", "db"}},
		{"'web db' x", "", []string{"web db", "x"}},
		{`"web db" x`, "", []string{"web db", "x"}},
		{`web\ db x`, "", []string{"web db", "x"}},
		{`''`, "", []string{""}},
		{"", "", nil},
		{"\n\n", "", nil},
		{"web,db\n", ",", []string{"web", "db"}},
		{"web,,db", ",", []string{"web", "", "db"}},
		{"web\x00db\x00", "\x00", []string{"web", "db"}},
		{"web db\n", "\n", []string{"web db"}},
	} {
		if got := xargsItems(st.in, st.delim); !slices.Equal(got, st.items) {
			t.Errorf("step %d: xargsItems(%q, %q) = %q; want %q", i+1, st.in, st.delim, got, st.items)
		}
	}
}

// TestNesting: how deep a string nests, counted before it is parsed (so
// that a string too deep is never given to the parser); brackets in quotes
// do not count.
func TestNesting(t *testing.T) {
	for i, st := range []struct {
		s     string
		depth int
	}{
		{"docker restart web", 0},
		{"(a)", 1},
		{"((a))", 2},
		{"$(a $(b))", 2},
		{"${a}", 1},
		{"{ a; }", 1},
		{"'((('", 0},
		{`"((("`, 0},
		{`"$(a)"`, 1},
		{`\(\(`, 0},
		{"if a; then if b; then c; fi; fi", 2},
		{"while a; do for b in c; do d; done; done", 2},
		{"case x in a) b;; esac", 1},
		{"iffy; fitness", 0},
		{"a) b) c)", 0},
	} {
		if got := nesting(st.s); got != st.depth {
			t.Errorf("step %d: nesting(%q) = %d; want %d", i+1, st.s, got, st.depth)
		}
	}
}

// TestMayBeCommand: a program word guard cannot read may be a whole
// command only if the shell splits it into words: an unquoted variable or
// command substitution, or "$@".
func TestMayBeCommand(t *testing.T) {
	for i, st := range []struct {
		src   string
		whole bool
	}{
		{"$CMD", true},
		{"${CMD}", true},
		{"$(cat f)", true},
		{"`cat f`", true},
		{`"$@"`, true},
		{`"$*"`, true},
		{`"${a[@]}"`, true},
		{`"$CMD"`, false},
		{`"$(cat f)"`, false},
		{"'$CMD'", false},
		{"docker", false},
		{"*.sh", false},
		{"", false},
	} {
		if got := mayBeCommand(st.src); got != st.whole {
			t.Errorf("step %d: mayBeCommand(%q) = %v; want %v", i+1, st.src, got, st.whole)
		}
	}
}

// TestLiteralBase: a program written with a variable in its directory is
// known by its name.
func TestLiteralBase(t *testing.T) {
	for i, st := range []struct{ src, base string }{
		{"$HOME/bin/docker", "docker"},
		{"${DIR}/docker-compose", "docker-compose"},
		{"$(dirname $0)/tool.sh", "tool.sh"},
		{"$X/bin/$Y", ""},
		{"$X/bin/", ""},
		{"$CMD", ""},
		{"$X/a b", ""},
	} {
		if got := literalBase(st.src); got != st.base {
			t.Errorf("step %d: literalBase(%q) = %q; want %q", i+1, st.src, got, st.base)
		}
	}
}

// TestCleanPath: files the line writes are known by one name however the
// line writes it.
func TestCleanPath(t *testing.T) {
	for i, st := range []struct{ path, key string }{
		{"x.sh", "x.sh"},
		{"./x.sh", "x.sh"},
		{"a/../x.sh", "x.sh"},
		{"/tmp//x.sh", "/tmp/x.sh"},
		{"/dev/stdin", "/dev/stdin"},
		{"", ""},
	} {
		if got := cleanPath(st.path); got != st.key {
			t.Errorf("step %d: cleanPath(%q) = %q; want %q", i+1, st.path, got, st.key)
		}
	}
}

// TestEchoAndPrintfOutput: what echo and printf write, which a shell, xargs
// or a file the line writes then holds.
func TestEchoAndPrintfOutput(t *testing.T) {
	for i, st := range []struct {
		words []string
		out   string
		known bool
	}{
		{[]string{"echo", "a", "b"}, "a b\n", true},
		{[]string{"echo", "-n", "a"}, "a", true},
		{[]string{"echo", "-e", `a\nb`}, "a\nb\n", true},
		{[]string{"echo", "-ne", `a\tb`}, "a\tb", true},
		{[]string{"echo", "-x", "a"}, "-x a\n", true},
		{[]string{"echo"}, "\n", true},
		{[]string{"printf", `%s\n`, "a", "b"}, "a\nb\n", true},
		{[]string{"printf", "a"}, "a", true},
		{[]string{"printf", `%d-%s `, "1", "a", "2", "b"}, "1-a 2-b ", true},
		{[]string{"printf", "-v", "x", "a"}, "", false},
		{[]string{"printf"}, "", false},
	} {
		var in input
		if st.words[0] == "echo" {
			in = echo(st.words[1:])
		} else {
			in = printf(st.words[1:])
		}
		if in.known != st.known || in.known && in.text != st.out {
			t.Errorf("step %d: %q writes %q (known %v); want %q (known %v)", i+1, st.words, in.text, in.known, st.out, st.known)
		}
	}
}

// TestArgCommandAndArgScript: the words of a program guard does not know,
// read as the command it may run: from a word on (ArgCommand), or a word
// as a script (ArgScript), with the stdin guard knows it has.
func TestArgCommandAndArgScript(t *testing.T) {
	for i, st := range []struct {
		line   string
		at     int    // ArgCommand from this word, if script is ""
		script string // else ArgScript of this
		runs   string
	}{
		{line: "strace -f docker restart web", at: 2, runs: "docker restart web"},
		{line: "strace -f docker restart web", at: 3, runs: "restart web"},
		{line: "chronic sh -c 'docker restart web'", at: 1, runs: "docker restart web"},
		{line: "chronic timeout 5 docker restart web", at: 1, runs: "docker restart web"},
		// A program guard does not know is not taken to hand its stdin on.
		{line: "chronic xargs docker restart", at: 1, runs: "docker restart"},
		{line: "echo web | chronic xargs docker restart", at: 1, runs: "docker restart web"},
		{line: "mytool docker restart $SVC", at: 1, runs: "docker restart <$SVC>"},
		{line: "mytool x", at: 5, runs: ""},
		{line: "mytool x", at: 0, runs: ""},
		{line: "mytool --run 'docker restart web && docker restart db'", script: "docker restart web && docker restart db", runs: "docker restart web; docker restart db"},
		{line: "mytool x", script: "for s in web db; do docker restart $s; done", runs: "docker restart web; docker restart db"},
		{line: "mytool x", script: "docker restart (", runs: "!(docker restart ()"},
		{line: "echo 'docker restart web' | mytool x", script: "bash", runs: "docker restart web"},
		{line: "cat f | mytool x", script: "bash", runs: ""},
	} {
		n := lastRun(Read(st.line))
		if n == nil {
			t.Fatalf("step %d: Read(%q) runs nothing", i+1, st.line)
		}
		var got *Node
		if st.script != "" {
			got = ArgScript(n, st.script)
		} else {
			got = ArgCommand(n, st.at)
		}
		if show(got) != st.runs {
			t.Errorf("step %d: in %q, %s runs %q; want %q", i+1, st.line, argWhat(st.at, st.script), show(got), st.runs)
		}
	}
}

func argWhat(at int, script string) string {
	if script != "" {
		return "ArgScript(" + script + ")"
	}
	return "ArgCommand from word " + string(rune('0'+at))
}

// TestReadJoinsWhatBranchesSet: a variable a branch, a loop or a || may or
// may not have set is one guard cannot know after it; one every way sets
// alike is known.
func TestReadJoinsWhatBranchesSet(t *testing.T) {
	runReadSteps(t, []struct{ line, runs string }{
		{"if a; then S=web; else S=web; fi; docker restart $S", "a; docker restart web"},
		{"if a; then S=web; else S=db; fi; docker restart $S", "a; docker restart <$S>"},
		{"if a; then S=web; fi; docker restart $S", "a; docker restart <$S>"},
		{"S=web; if a; then :; fi; docker restart $S", "a; {: | }; docker restart web"},
		{"S=web; if a; then S=db; fi; docker restart $S", "a; docker restart <$S>"},
		{"case x in a) S=web;; *) S=web;; esac; docker restart $S", "docker restart <$S>"},
		{"S=web; a && S=db; docker restart $S", "a; docker restart <$S>"},
		{"S=web; a || S=web; docker restart $S", "a; docker restart web"},
		{"S=web; while a; do S=db; done; docker restart $S", "?*(a); docker restart <$S>"},
		{"S=web; for x in 1 2; do S=db$x; done; docker restart $S", "docker restart db2"},
		{"S=web; (S=db; docker restart $S); docker restart $S", "docker restart db; docker restart web"},
		{"S=web; docker restart $S & S=db; docker restart $S", "docker restart web; docker restart db"},
		{"S=web; echo x | S=db; docker restart $S", "echo x; docker restart web"},
		{"S=web; f() { S=db; }; if a; then f; fi; docker restart $S", "a; docker restart <$S>"},
	})
}
