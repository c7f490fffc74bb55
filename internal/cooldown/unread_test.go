package cooldown_test

import (
	"strings"
	"testing"

	"guard/internal/cooldown"
)

// riskyPart returns the first risky part of rd, or "".
func riskyPart(rd cooldown.Reading) string {
	for _, u := range rd.Unsure {
		if u.Risky {
			return u.Reason
		}
	}
	return ""
}

func nest(open, inner, close string, n int) string {
	return strings.Repeat(open, n) + inner + strings.Repeat(close, n)
}

// TestReadRefusesWhatItCannotReadHoweverItIsSpelled (N2): a part guard
// cannot read that may take a budgeted action is refused, however bash
// spells the program or the service in it: quotes, backslashes,
// backslash-newlines, $'...' escapes, empty variables, defaults.
func TestReadRefusesWhatItCannotReadHoweverItIsSpelled(t *testing.T) {
	r := rules(t)
	r.Record("web", restart, t0, true, "")
	r.Record("web", restart, t0, true, "")
	tests := []struct{ name, cmd string }{
		// Over a limit: guard reads none of it.
		{"backslashes 101 deep", nest("$(", `d\ocker restart w\eb`, ")", 101)},
		{"empty double quotes 101 deep", nest("$(", `d""ocker restart w""eb`, ")", 101)},
		{"single quotes 101 deep", nest("$(", `d'o'cker restart 'w'eb`, ")", 101)},
		{"subshells 101 deep", nest("(", `d\ocker restart w\eb`, ")", 101)},
		{"over 256 KiB", strings.Repeat("true; ", 50000) + `d\ocker restart w\eb`},
		{"ansi-c 101 deep", nest("$(", `$'\x64ocker' restart $'\x77eb'`, ")", 101)},
		{"backslash-newline 101 deep", nest("$(", "d\\\nocker restart w\\\neb", ")", 101)},
		{"crlf 101 deep", nest("$(", "d\\ocker restart w\\eb\r\n", ")", 101)},
		{"printf 101 deep", nest("$(", `$(printf '\144ocker') restart $(printf '\167eb')`, ")", 101)},
		{"nothing named 101 deep", nest("$(", "echo hi", ")", 101)},
		// A line that does not parse: bash may still run it (guard's parser
		// and bash's differ at the edges).
		{"backslashes, no parse", `d\ocker restart x (`},
		{"quotes, no parse", `d""ocker restart x (`},
		{"single quotes, no parse", `d'o'cker restart x (`},
		{"ansi-c, no parse", `$'\x64ocker' restart x (`},
		{"octal, no parse", `$'\144ocker' restart x (`},
		{"locale quotes, no parse", `d$"o"cker restart x (`},
		{"empty variable, no parse", `d${x}ocker restart x (`},
		{"default, no parse", `${x:-d}ocker restart x (`},
		{"backticks, no parse", "d``ocker restart x ("},
		{"known service, no parse", `foo restart w\eb (`},
		{"known service in quotes, no parse", `foo restart "w"'e'b (`},
		// A pattern, an offset or a command substitution spells the program
		// out too (review of N2's fix).
		{"pattern, no parse", `d${x#ock}ocker restart w${x#q}eb (`},
		{"offset, no parse", `d${x:0:0}ocker restart x (`},
		{"empty substitution, no parse", "d$(:)ocker restart w`true`eb ("},
		{"brace alternatives, no parse", `{d,}ocker restart x (`},
		{"python, pattern", `python3 -c 'import os; os.system("d${x#ock}ocker restart web")'`},
		// Code in another language that names a budgeted program.
		{"python", `python3 -c 'import os; os.system("d\\ocker restart x")'`},
		{"python ansi-c", `python3 -c $'import os; os.system("\x64ocker restart x")'`},
		// A program guard cannot know, with a known service among its words.
		{"quoted variable", `"$X" restart w\eb`},
	}
	for _, tc := range tests {
		rd := r.Read(tc.cmd)
		if riskyPart(rd) == "" && len(rd.Takes) == 0 {
			t.Errorf("%s: Read(%.80q) = %.200q; want a risky part", tc.name, tc.cmd, describe(rd))
		}
	}
}

// TestReadAllowsWhatItCannotReadAndNamesNothing: spelling things out does
// not make harmless parts guard cannot read risky.
func TestReadAllowsWhatItCannotReadAndNamesNothing(t *testing.T) {
	r := rules(t)
	r.Record("web", restart, t0, true, "")
	tests := []struct{ cmd, want string }{
		{`echo "it's" (`, `unsure: echo "it's" (`},
		{`python3 -c 'print("d\\ocs")'`, ""},
		{"awk '{print $1}' f", ""},
		{`awk '{print "web"}' f`, ""},
		{`"$EDITOR" 'w'eb.conf`, `unsure: "$EDITOR" 'w'eb.conf`},
		{`echo $'\x64ocker restart web'`, ""},
	}
	for _, tc := range tests {
		if got := describe(r.Read(tc.cmd)); got != tc.want {
			t.Errorf("Read(%q) = %q; want %q", tc.cmd, got, tc.want)
		}
	}
}

// megabyteCommands are commands that a reader that is not linear would
// spend minutes on (m27): TestReadOfMegabytes reads them (a slip to
// quadratic time hangs it past go test's timeout, which no slow machine
// does), and BenchmarkReadOfMegabytes times them; no test asserts a time.
func megabyteCommands() []string {
	return []string{
		strings.Repeat(`d\'"o$'\x24\x27`, 300000),
		strings.Repeat("${x:-", 700000),
		nest("$(", strings.Repeat(`w\e"b" `, 500000), ")", 101),
	}
}

func BenchmarkReadOfMegabytes(b *testing.B) {
	r := rules(b)
	cmds := megabyteCommands()
	for b.Loop() {
		for _, cmd := range cmds {
			r.Read(cmd)
		}
	}
}

func TestReadOfMegabytes(t *testing.T) {
	r := rules(t)
	for _, cmd := range megabyteCommands() {
		rd := r.Read(cmd)
		if riskyPart(rd) == "" {
			t.Errorf("Read of %d bytes = %.200q; want a risky part", len(cmd), describe(rd))
		}
	}
}
