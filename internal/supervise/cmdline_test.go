package supervise

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// msysSplit splits a command line as a program of Git for Windows' MSYS2
// runtime does when a Windows program started it (winsup/cygwin/dcrt0.cc
// in git-for-windows/msys2-runtime: build_argv, quoted, globify), glob on
// or off (MSYS=noglob). It fails where the runtime would glob a word
// against the files in the working directory, which this cannot know.
func msysSplit(line string, glob bool) ([]string, error) {
	issep := func(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }
	isquote := func(c byte) bool { return c == '"' || c == '\'' }
	var argv []string
	for i := 0; i < len(line); {
		if issep(line[i]) {
			i++
			continue
		}
		var word []byte
		keepQuotes := glob && len(argv) > 0 && line[i] != '@' // quoted's winshell && glob
		for i < len(line) && !issep(line[i]) {
			c := line[i]
			if !isquote(c) {
				word = append(word, c)
				i++
				continue
			}
			if !keepQuotes { // the quotes come off, and nothing else
				end := strings.IndexByte(line[i+1:], c)
				if end < 0 {
					word = append(word, line[i+1:]...)
					i = len(line)
					break
				}
				word = append(word, line[i+1:i+1+end]...)
				i += end + 2
				continue
			}
			// Kept for globify: up to the closing quote, a \ taking the
			// next character along in double quotes, "" becoming \".
			word = append(word, c)
			i++
			for i < len(line) {
				d := line[i]
				switch {
				case c == '"' && d == '\\' && i+1 < len(line):
					word = append(word, d, line[i+1])
					i += 2
					continue
				case d == c && c == '"' && i+1 < len(line) && line[i+1] == '"':
					word = append(word, '\\', '"')
					i += 2
					continue
				case d == c:
					word = append(word, d)
					i++
				default:
					word = append(word, d)
					i++
					continue
				}
				break
			}
		}
		if !keepQuotes || !strings.ContainsAny(string(word), "?*[\"'(){}") && (len(word) == 0 || word[0] != '~') {
			argv = append(argv, string(word))
			continue
		}
		arg, err := globify(word)
		if err != nil {
			return nil, err
		}
		argv = append(argv, arg)
	}
	return argv, nil
}

// globify turns a word into globify's pattern, every character inside
// quotes escaped, and returns what glob(3) with GLOB_NOCHECK|GLOB_QUOTE
// gives for it when it matches no file: the pattern unescaped. A
// character glob would read as a pattern (unescaped) is an error.
func globify(word []byte) (string, error) {
	isquote := func(c byte) bool { return c == '"' || c == '\'' }
	isdrive := func(s []byte) bool {
		return len(s) >= 2 && (s[0]|0x20 >= 'a' && s[0]|0x20 <= 'z') && s[1] == ':'
	}
	isDOS := func(s []byte) bool {
		return isdrive(s) || len(s) > 3 && s[0] == '\\' && s[1] == '\\' && s[2]|0x20 >= 'a' && s[2]|0x20 <= 'z' && bytes.IndexByte(s[3:], '\\') >= 0
	}
	dos := isDOS(word) || len(word) > 2 && isquote(word[0]) && isDOS(word[1:])
	var pat []byte
	for s := 0; s < len(word); s++ {
		if !isquote(word[s]) {
			if dos && word[s] == '\\' {
				pat = append(pat, '\\')
			}
			pat = append(pat, word[s])
			continue
		}
		q := word[s]
		for s++; s < len(word) && word[s] != q; s++ {
			if word[s] == '\\' && s+1 < len(word) && (word[s+1] == q || word[s+1] == '\\') {
				s++
			}
			pat = append(pat, '\\', word[s])
		}
		if s >= len(word) {
			break
		}
	}
	var out []byte
	for i := 0; i < len(pat); i++ {
		c := pat[i]
		if c == '\\' && i+1 < len(pat) {
			out = append(out, pat[i+1])
			i++
			continue
		}
		if strings.IndexByte("*?[{", c) >= 0 || c == '~' && i == 0 {
			return "", fmt.Errorf("%q would be globbed (pattern %q)", word, pat)
		}
		out = append(out, c)
	}
	return string(out), nil
}

// escapeArg is syscall.EscapeArg (Windows only), what syscall.StartProcess
// writes each argument as: the Microsoft C runtime's quoting.
func escapeArg(s string) string {
	if s == "" {
		return `""`
	}
	if !strings.ContainsAny(s, "\" \t\\") {
		return s
	}
	hasSpace := strings.ContainsAny(s, " \t")
	var b []byte
	if hasSpace {
		b = append(b, '"')
	}
	slashes := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			slashes++
		case '"':
			for ; slashes > 0; slashes-- {
				b = append(b, '\\')
			}
			b = append(b, '\\')
		default:
			slashes = 0
		}
		b = append(b, s[i])
	}
	if hasSpace {
		for ; slashes > 0; slashes-- {
			b = append(b, '\\')
		}
		b = append(b, '"')
	}
	return string(b)
}

var posixArgs = []string{
	`grep -E 'a\\b' "$f"`, // two backslashes, in quotes
	`python "C:\Users\me\hooks\check.py"`,
	`\\server\share\hook.py --flag`,
	`it's`,        // a bare single quote
	`rm *.tmp`,    // a pattern, quoted
	`*.tmp`,       // a pattern, bare
	`{a,b}`,       // a brace expansion, bare
	`~/x.sh`,      // a tilde, bare
	`say "hi" \"`, // quotes, escaped or not
	`ends in \`,
	`ends in \\`,
	`\\`,
	``,
	"two\nlines",
	`[x] (y) $HOME ` + "`date`",
	"naïve – ünïcode",
	`""`,
	`"'"'"`,
}

// TestPosixCmdLine: a hook's -c string and arguments reach Git Bash's bash
// and sh on Windows exactly as guard was given them, with globbing on or
// off (issue 30: guard is never the reason a hook breaks). The Microsoft C
// runtime's quoting, which syscall.StartProcess writes and guard used,
// halves a quoted \\ and loses a bare quote there.
func TestPosixCmdLine(t *testing.T) {
	for _, glob := range []bool{true, false} {
		for _, a := range posixArgs {
			argv := []string{`C:\Program Files\Git\usr\bin\bash.exe`, "-c", a, "x y"}
			line := posixCmdLine(argv, glob)
			got, err := msysSplit(line, glob)
			if err != nil || !slices.Equal(got, argv) {
				t.Errorf("glob %v: %q splits as %q (%v); want %q", glob, line, got, err, argv)
			}
		}
	}
	var lost []string
	for _, a := range posixArgs {
		argv := []string{"bash", "-c", a}
		var q []string
		for _, s := range argv {
			q = append(q, escapeArg(s))
		}
		if got, err := msysSplit(strings.Join(q, " "), true); err != nil || !slices.Equal(got, argv) {
			lost = append(lost, a)
		}
	}
	for _, a := range []string{`grep -E 'a\\b' "$f"`, `\\server\share\hook.py --flag`, `it's`, `*.tmp`, `{a,b}`} {
		if !slices.Contains(lost, a) {
			t.Errorf("the Microsoft C runtime's quoting of %q passes MSYS2's split; the emulation is wrong", a)
		}
	}
	for _, a := range posixArgs {
		if !posixQuoted([]string{a}) && slices.Contains(lost, a) {
			t.Errorf("posixQuoted(%q) = false; MSYS2 splits its usual quoting otherwise", a)
		}
	}
}

func TestRuntimeGlobs(t *testing.T) {
	for _, c := range []struct {
		dll  string
		env  []string
		want bool
	}{
		{msysDLL, nil, true},
		{msysDLL, []string{"MSYS=winsymlinks:nativestrict noglob"}, false},
		{msysDLL, []string{"msys=noglob"}, false},
		{msysDLL, []string{"MSYS=noglob", "MSYS=glob:ignorecase"}, true},
		{msysDLL, []string{"CYGWIN=noglob"}, true},
		{cygwinDLL, []string{"CYGWIN=noglob"}, false},
		{msysDLL, []string{"MSYSTEM=MINGW64", "MSYS2_ARG_CONV_EXCL=*"}, true},
	} {
		if got := runtimeGlobs(c.dll, c.env); got != c.want {
			t.Errorf("runtimeGlobs(%s, %q) = %v; want %v", c.dll, c.env, got, c.want)
		}
	}
}

// fakePE is a PE32+ program whose import directory names dlls.
func fakePE(dlls ...string) []byte {
	le := binary.LittleEndian
	b := make([]byte, 1024)
	copy(b, "MZ")
	le.PutUint32(b[0x3c:], 64)
	copy(b[64:], "PE\x00\x00")
	le.PutUint16(b[64+4:], 0x8664) // amd64
	le.PutUint16(b[64+6:], 1)      // one section
	le.PutUint16(b[64+20:], 240)   // the optional header's size
	opt := b[64+24:]
	le.PutUint16(opt, 0x20b)
	le.PutUint32(opt[112+8:], 0x1000) // the import directory
	sect := b[64+24+240:]
	copy(sect, ".idata")
	le.PutUint32(sect[8:], 512)     // virtual size
	le.PutUint32(sect[12:], 0x1000) // virtual address
	le.PutUint32(sect[16:], 512)    // raw size
	le.PutUint32(sect[20:], 512)    // raw offset
	for i, dll := range dlls {
		name := 200 + 32*i
		le.PutUint32(b[512+20*i+12:], uint32(0x1000+name))
		copy(b[512+name:], dll)
	}
	return b
}

func TestPosixRuntime(t *testing.T) {
	for _, c := range []struct {
		prog []byte
		want string
	}{
		{fakePE("KERNEL32.dll", "msys-2.0.dll"), msysDLL},
		{fakePE("cygwin1.dll"), cygwinDLL},
		{fakePE("MSYS-2.0.DLL"), msysDLL},
		{fakePE("KERNEL32.dll", "ucrtbase.dll"), ""},
		{fakePE(), ""},
		{[]byte("#!/bin/sh\necho hi\n"), ""},
		{[]byte("MZ"), ""},
	} {
		if got := posixRuntime(bytes.NewReader(c.prog)); got != c.want {
			t.Errorf("posixRuntime = %q; want %q", got, c.want)
		}
	}
}
