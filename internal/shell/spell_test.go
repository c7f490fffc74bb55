package shell

import (
	"slices"
	"strings"
	"testing"
)

// TestSpellings: every way bash spells a word shows the word in one of the
// copies Spellings makes.
func TestSpellings(t *testing.T) {
	tests := []struct{ text, want string }{
		{`d\ocker restart w\eb`, "docker restart web"},
		{`d\\ocker restart w\\\\eb`, "docker restart web"}, // nested a level or two
		{`d""ocker restart w""eb`, "docker restart web"},
		{`d'o'cker restart 'w'eb`, "docker restart web"},
		{"d``ocker", "docker"},
		{`d$"o"cker`, "docker"},
		{"d\\\nocker restart w\\\neb", "docker restart web"},
		{"d\\\r\nocker restart web\r\n", "docker restart web\n"},
		{`d${x}ocker restart w$Xeb`, "docker restart w"}, // $Xeb is one variable
		{`d${x}ocker restart w${X}eb`, "docker restart web"},
		{`${x:-d}ocker restart ${y-w}eb`, "docker restart web"},
		{`${x:=docker} restart ${#y}web`, "docker restart web"},
		{`d$()ocker restart w$1eb`, "docker restart web"},
		{`$'\x64ocker' restart $'\167eb'`, "docker restart web"},
		{`$'\u0064\U00000064'`, "dd"},
		{`$'\x64\'o\'cker'`, "docker"},
		{`eval $'\x24\x27\\x64ocker\x27'`, "eval docker"}, // eval decodes it again
		{`$'\q\x'`, "qx"},
		{"echo hi", ""},
		// A pattern, an offset or a message goes with its variable (review
		// of n2: d${x#ock}ocker is docker when x is unset).
		{`d${x#ock}ocker restart w${x%q}eb`, "docker restart web"},
		{`d${x:0:0}ocker restart w${x/a/b}eb`, "docker restart web"},
		{`d${x^^}ocker restart w${x:?no}eb`, "docker restart web"},
		{`d${x#${y}}ocker`, "docker"},
		// Command substitutions taken as empty, brace alternatives.
		{"d$(:)ocker restart w`true`eb", "docker restart web"},
		{`d$(echo $(true))ocker`, "docker"},
		{`{d,}ocker restart {,w}eb`, "docker restart eb"},
		{`{d,}ocker restart {,w}eb`, "ocker restart web"},
		{`{x,d}ocker`, "docker"},
	}
	for _, tc := range tests {
		got := Spellings(tc.text)
		if tc.want == "" {
			if len(got) > 0 {
				t.Errorf("Spellings(%q) = %q; want none", tc.text, got)
			}
			continue
		}
		if !slices.Contains(got, tc.want) {
			t.Errorf("Spellings(%q) = %q; want %q among them", tc.text, got, tc.want)
		}
	}
}

// megabytes are inputs that a reader that is not linear would spend
// minutes on: TestSpellingsOfMegabytes runs them (a slip to quadratic time
// hangs it past go test's timeout, which no slow machine does), and
// BenchmarkSpellingsOfMegabytes times them. The test asserts no time:
// speed is measured by benchmarks, never by tests.
var megabytes = func() []string {
	return []string{
		strings.Repeat(`$'\x24\x27`, 1<<19),
		strings.Repeat("${", 1<<20),
		strings.Repeat(`d\'"o`, 1<<20),
		strings.Repeat("$'", 1<<20),
		strings.Repeat("{", 1<<20),
		strings.Repeat("{a", 1<<20),
		strings.Repeat("{a,", 1<<19),
		strings.Repeat("$(", 1<<20),
		strings.Repeat("${x#", 1<<19),
		strings.Repeat("`", 1<<20),
		strings.Repeat("}{", 1<<20),
	}
}

func TestSpellingsOfMegabytes(t *testing.T) {
	for _, s := range megabytes() {
		for _, sp := range Spellings(s) {
			if len(sp) > 4*len(s) {
				t.Errorf("a spelling of %d bytes is %d bytes long", len(s), len(sp))
			}
		}
	}
}

func BenchmarkSpellingsOfMegabytes(b *testing.B) {
	in := megabytes()
	for b.Loop() {
		for _, s := range in {
			Spellings(s)
		}
	}
}
