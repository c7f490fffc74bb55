// The one table of the programs that run a command given in their
// arguments, and the one reading of their options: Command.Program (which
// program does a hook run: is it guard already?), and through it install,
// doctor and the budgets' normal form, and package bash's reader (what a
// command does to the budgets) all take wrappers off the same way.

package shell

import (
	"regexp"
	"slices"
	"strings"
	"sync"
)

// A Runner is a program that runs a command given in its arguments: the
// words after its options (sudo CMD, timeout 5 CMD, env A=1 CMD, flock -w 5
// FILE CMD), a string given to one of its options (flock -c STRING, env -S
// STRING), or both.
type Runner struct {
	// Valued are its options that take the next word as their value (a
	// cluster of short options ending in one, -dmS NAME, does too).
	Valued map[string]bool
	// Skip is how many words come between its options and the command:
	// timeout's DURATION, chroot's NEWROOT, flock's FILE.
	Skip int
	// Assigns says NAME=value words may come before the command (env,
	// sudo).
	Assigns bool
	// NoRun are options with which it runs no command (command -v, sudo
	// -l).
	NoRun []string
	// Script are options whose value is a string a shell runs (flock -c,
	// script -c); Split, options whose value is split into the command's
	// first words (env -S).
	Script, Split []string
	// Same says the command runs in the same shell, where the shell's
	// functions and builtins are (builtin, command, exec, time); else it
	// is a program exec runs.
	Same bool
	// Own says package bash reads the program in its own way (xargs's
	// input, ssh's remote shell, find's -exec); its Valued options still
	// come from here, and Program takes it off as any other.
	Own bool
}

// How says how a Runner runs the command its words give.
type How uint8

// The ways a Runner runs its command.
const (
	// Nothing: it runs no command (an option says so, or none is given).
	Nothing How = iota
	// Words: the words from I on are the command, as exec runs it.
	Words
	// Script: the word at I is a string a shell runs.
	Script
	// Split: the word at I is split into the command's first words, and
	// the words after it follow them.
	Split
)

// A Use is what a Runner's words run: how, and from which word.
type Use struct {
	How How
	I   int
	// Option is the option that gave a Script or Split string ("-c"), or
	// that says it runs Nothing ("-v").
	Option string
}

// runners are built when first used: guard run, on every call, never
// reads a command, and a map literal at init would cost it.
var runners = sync.OnceValue(func() map[string]Runner {
	return map[string]Runner{
		"sudo": {Valued: set("-u", "-g", "-C", "-h", "-p", "-U", "-r", "-t", "-D", "-T", "--user", "--group", "--host",
			"--prompt", "--chdir", "--role", "--type", "--close-from", "--other-user", "--command-timeout"),
			Assigns: true, NoRun: []string{"-e", "--edit", "-l", "--list", "-v", "--validate", "-k", "-K", "-V"}},
		"doas":        {Valued: set("-u", "-C"), NoRun: []string{"-L"}},
		"env":         {Valued: set("-u", "-C", "--unset", "--chdir", "-P", "--default-signal", "--ignore-signal", "--block-signal"), Assigns: true, Split: []string{"-S", "--split-string"}},
		"nice":        {Valued: set("-n", "--adjustment")},
		"ionice":      {Valued: set("-c", "-n", "-p", "-P", "-u", "--class", "--classdata", "--pid", "--pgid", "--uid")},
		"nohup":       {},
		"time":        {Valued: set("-f", "-o", "--format", "--output"), Same: true},
		"command":     {NoRun: []string{"-v", "-V"}, Same: true},
		"builtin":     {Same: true},
		"exec":        {Valued: set("-a"), Same: true},
		"stdbuf":      {Valued: set("-i", "-o", "-e", "--input", "--output", "--error")},
		"timeout":     {Valued: set("-s", "-k", "--signal", "--kill-after"), Skip: 1},
		"setsid":      {},
		"chroot":      {Valued: set("--userspec", "--groups"), Skip: 1},
		"flock":       {Valued: set("-w", "-E", "--timeout", "--wait", "--conflict-exit-code"), Skip: 1, Script: []string{"-c", "--command"}},
		"nsenter":     {Valued: set("-t", "--target", "-S", "--setuid", "-G", "--setgid")},
		"systemd-run": {Valued: set("-u", "--unit", "-p", "--property", "--description", "--slice", "-M", "--machine", "-H", "--host", "--uid", "--gid", "--nice", "-E", "--setenv", "--working-directory", "--on-active", "--on-boot", "--on-startup", "--on-unit-active", "--on-unit-inactive", "--on-calendar", "--timer-property", "--path-property", "--socket-property")},
		"unbuffer":    {},
		"taskset":     {Skip: 1},
		"chrt":        {Skip: 1},
		"caffeinate":  {},
		"pkexec":      {Valued: set("--user")},
		"unshare":     {Valued: set("--map-user", "--map-group", "--setuid", "--setgid", "-S", "-G", "-R", "--root", "-w", "--wd")},
		"cgexec":      {Valued: set("-g")},
		"firejail":    {},
		"prlimit":     {Valued: set("-p", "--pid")},
		"xargs": {Valued: set("-I", "-n", "-L", "-s", "-P", "-E", "-d", "-a", "--arg-file", "--delimiter", "--max-args",
			"--max-lines", "--max-procs", "--max-chars", "--eof", "--process-slot-var"), Own: true},
	}
})

// LookupRunner returns the Runner of the program name (a base name: sudo,
// not /usr/bin/sudo).
func LookupRunner(name string) (Runner, bool) {
	rn, ok := runners()[name]
	return rn, ok
}

// Use returns what rn's words run: words[0] is the program, and lit[i]
// says words[i] is what it receives (nil: all are). A word that is not
// literal where an option may be ends the options: it is taken for the
// command's program.
func (rn Runner) Use(words []string, lit []bool) Use {
	name := BaseName(words[0])
	i := 1
	for i < len(words) {
		a := words[i]
		if lit != nil && !lit[i] {
			break
		}
		if a == "--" {
			i++
			break
		}
		if slices.Contains(rn.NoRun, a) {
			return Use{How: Nothing, Option: a}
		}
		if slices.Contains(rn.Script, a) && i+1 < len(words) {
			return Use{How: Script, I: i + 1, Option: a}
		}
		if slices.Contains(rn.Split, a) && i+1 < len(words) {
			return Use{How: Split, I: i + 1, Option: a}
		}
		if strings.HasPrefix(a, "-") && a != "-" {
			i++
			if _, _, hasValue := strings.Cut(a, "="); !hasValue && OptionTakesValue(a, rn.Valued) {
				i++
			}
			continue
		}
		if (rn.Assigns && IsAssign(a)) || (name == "env" && a == "-") {
			i++
			continue
		}
		break
	}
	i += rn.Skip
	if i >= len(words) {
		return Use{How: Nothing}
	}
	if slices.Contains(rn.Script, words[i]) && i+1 < len(words) { // flock FILE -c STRING
		return Use{How: Script, I: i + 1, Option: words[i]}
	}
	return Use{How: Words, I: i}
}

// OptionTakesValue reports whether the option a takes the next word as its
// value: it is one of valued, or a cluster of short options ending in one
// (-dmS NAME).
func OptionTakesValue(a string, valued map[string]bool) bool {
	if valued[a] {
		return true
	}
	return len(a) > 2 && a[0] == '-' && a[1] != '-' && valued["-"+a[len(a)-1:]]
}

var assignName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*=`) })

// IsAssign reports whether w is a NAME=value word.
func IsAssign(w string) bool { return assignName().MatchString(w) }

// BaseName returns the last element of the path s, as a program's name.
func BaseName(s string) string {
	return s[strings.LastIndexByte(s, '/')+1:]
}

// Set returns names as a set.
func Set(names ...string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}

func set(names ...string) map[string]bool { return Set(names...) }
