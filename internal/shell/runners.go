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
	// Shell are options with which it runs a shell (sudo -s, sudo -i): the
	// words after its options are a string that shell runs, and with none
	// the shell reads its script from stdin.
	Shell []string
	// Same says the command runs in the same shell, where the shell's
	// functions and builtins are (builtin, command, exec, time); else it
	// is a program exec runs.
	Same bool
	// Own says package bash reads the program in its own way (xargs's
	// input, ssh's remote shell, git's subcommands); its Valued options
	// and Options still come from here, and Program takes it off as any
	// other (unless it is Data or Remote).
	Own bool
	// Options are its options whose value holds a command it hands a
	// shell (rsync -e CMD, tar --to-command=CMD, ssh -o ProxyCommand=CMD,
	// git -c alias.x='!CMD', vim -c '!CMD'), by name; see
	// Runner.Commands.
	Options map[string]CommandOption
	// Data says the words after its options are data (files, hosts, a
	// database): it runs a command only through Options, and Program
	// does not take it off.
	Data bool
	// Remote says the command in its words runs on another host (ssh
	// HOST CMD): Program does not take it off either.
	Remote bool
	// Stdin are the escapes of its own language it reads from stdin too
	// (psql, sqlite3, gdb, ed): a command after one there runs as well
	// (see CommandOption.Escape).
	Stdin []string
}

// A CommandOption is an option of a program whose value holds a command
// the program hands a shell.
type CommandOption struct {
	// Keys, if not nil, are the keys of a KEY=VALUE value that hold the
	// command (ssh -o ProxyCommand=CMD), each with the escape that starts
	// the command in its value ("" for all of it: git -c
	// core.sshCommand=CMD; "!" for git -c alias.x='!CMD'); a key ending in
	// "." or "::" is a prefix (alias.NAME). Keys are matched without
	// regard to case. Any other key's value is data.
	Keys map[string]string
	// Escape, if not empty, is what starts a command in a value written in
	// the program's own language (vim's "!", psql's "\!", sqlite3's
	// ".shell "): the command is what follows one, to the end of its line.
	// Empty: the whole value is the command.
	Escape []string
	// Repeats says why guard cannot count how often the command runs
	// (tar --to-command: once for each file); "" for once.
	Repeats string
}

// A Found is a command a program's option holds (see Runner.Commands).
type Found struct {
	Option  string // the option, as written ("-e", "--to-command", "+")
	Command string // the command, or the value as written if not Literal
	Literal bool   // the value is what the program receives
	Repeats string // see CommandOption.Repeats
	// Code says Command is not a command but the rest of a value in the
	// program's own language, with the commands after its escapes taken
	// out: that language may run a command in ways no escape shows (vim's
	// system(), gdb's call system(), psql's COPY ... PROGRAM), so the
	// caller searches it as it searches code it does not read.
	Code bool
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
	// Shell: a shell runs the words from I on, joined by spaces (sudo -s
	// CMD); with none (I past the words), it reads its script from stdin.
	Shell
)

// A Use is what a Runner's words run: how, and from which word.
type Use struct {
	How How
	I   int
	// Option is the option that gave a Script or Split string ("-c"), or
	// that says it runs Nothing ("-v").
	Option string
	// Joined says the string is the value of the word at I itself
	// (--split-string=STRING): see Use.Value.
	Joined bool
	// At, if not 0, is where the string starts in the word at I, joined
	// to its short option (env -S"STRING", -vSSTRING).
	At int
}

// Value returns the Script or Split string u found in words.
func (u Use) Value(words []string) string {
	if u.At > 0 {
		return words[u.I][u.At:]
	}
	if u.Joined {
		_, v, _ := strings.Cut(words[u.I], "=")
		return v
	}
	return words[u.I]
}

// runners are built when first used: guard run, on every call, never
// reads a command, and a map literal at init would cost it.
var runners = sync.OnceValue(func() map[string]Runner {
	return map[string]Runner{
		"sudo": {Valued: set("-u", "-g", "-C", "-h", "-p", "-U", "-r", "-t", "-D", "-T", "--user", "--group", "--host",
			"--prompt", "--chdir", "--role", "--type", "--close-from", "--other-user", "--command-timeout"),
			Assigns: true, NoRun: []string{"-e", "--edit", "-l", "--list", "-v", "--validate", "-k", "-K", "-V"},
			Shell: []string{"-s", "--shell", "-i", "--login"}},
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

		// Programs whose options hand a shell a command (hostile-user-3
		// M4); their other words are data.
		"rsync": {Data: true, Options: map[string]CommandOption{"-e": {}, "--rsh": {}, "--rsync-path": {}}},
		"scp":   {Data: true, Options: map[string]CommandOption{"-S": {}, "-o": sshCommandKeys}},
		"sftp":  {Data: true, Options: map[string]CommandOption{"-S": {}, "-o": sshCommandKeys}},
		"ssh":   {Own: true, Remote: true, Options: map[string]CommandOption{"-o": sshCommandKeys}},
		"tar": {Data: true, Options: map[string]CommandOption{
			"--to-command":           {Repeats: "by tar --to-command, once for each file"},
			"-I":                     {},
			"--use-compress-program": {},
			"--rsh-command":          {},
			"-F":                     {Repeats: "by tar, at each volume"},
			"--info-script":          {Repeats: "by tar, at each volume"},
			"--new-volume-script":    {Repeats: "by tar, at each volume"},
			"--checkpoint-action":    {Keys: map[string]string{"exec": ""}, Repeats: "by tar, at each checkpoint"},
		}},
		"git": {Own: true, Data: true, Options: map[string]CommandOption{
			"-c": {Keys: map[string]string{"alias.": "!", "credential.helper": "!", "core.sshCommand": "", "core.pager": "",
				"core.editor": "", "sequence.editor": "", "core.fsmonitor": "", "diff.external": "", "pager.": "",
				"gpg.program": "", "core.askPass": "", "difftool.": "", "mergetool.": "", "filter.": ""}},
			"--upload-pack": {}, "--receive-pack": {},
		}},
		"vim":     vimLike,
		"vi":      vimLike,
		"nvim":    vimLike,
		"view":    vimLike,
		"vimdiff": vimLike,
		"ex":      vimLike,
		"gvim":    vimLike,
		"less":    {Data: true, Options: map[string]CommandOption{"+": {Escape: []string{"!"}}}},
		"man":     {Data: true, Options: map[string]CommandOption{"-P": {}, "--pager": {}}},
		"psql":    {Data: true, Options: map[string]CommandOption{"-c": {Escape: []string{`\!`}}, "--command": {Escape: []string{`\!`}}}, Stdin: []string{`\!`}},
		"mysql":   mysqlLike,
		"mariadb": mysqlLike,
		"sqlite3": {Data: true, Options: map[string]CommandOption{"*": {Escape: []string{".shell ", ".system "}}}, Stdin: []string{".shell ", ".system "}},
		"gdb": {Valued: set("-ex", "-iex", "-x", "-ix", "-p", "-c", "-d", "-s", "-e", "-se", "-cd", "-D", "--pid", "--core",
			"--directory", "--command", "--eval-command", "--init-command", "--init-eval-command", "--symbols", "--exec", "--data-directory"),
			Options: map[string]CommandOption{"-ex": {Escape: []string{"shell ", "!"}}, "--eval-command": {Escape: []string{"shell ", "!"}},
				"-iex": {Escape: []string{"shell ", "!"}}, "--init-eval-command": {Escape: []string{"shell ", "!"}}},
			Stdin: []string{"shell ", "!"}},
		"lftp":     {Data: true, Options: map[string]CommandOption{"-c": {Escape: []string{"!"}}, "-e": {Escape: []string{"!"}}}, Stdin: []string{"!"}},
		"ed":       {Data: true, Stdin: []string{"!"}},
		"zip":      {Data: true, Options: map[string]CommandOption{"-TT": {}, "--unzip-command": {}}},
		"dpkg":     {Data: true, Options: map[string]CommandOption{"--pre-invoke": {}, "--post-invoke": {}}},
		"apt-get":  aptLike,
		"apt":      aptLike,
		"aptitude": aptLike,
	}
})

// Commands returns the commands rn's options hold among words (words[0]
// is the program; lit as for Use), in order: the value of each option in
// rn.Commands, written as its own next word, after "=" (--to-command=CMD),
// joined to a short option (-oProxyCommand=CMD) or after "+" (vim +CMD),
// with its key and escapes applied. The option "*" stands for every word.
// A value that is not literal is returned as written, for the caller to
// mark as a command guard cannot know.
func (rn Runner) Commands(words []string, lit []bool) []Found {
	if len(rn.Options) == 0 {
		return nil
	}
	var out []Found
	add := func(opt, val string, literal bool) {
		spec := rn.Options[opt]
		if !literal {
			out = append(out, Found{Option: opt, Command: val, Repeats: spec.Repeats})
			return
		}
		for _, c := range spec.commands(val) {
			out = append(out, Found{Option: opt, Command: c, Literal: true, Repeats: spec.Repeats})
		}
		if len(spec.Escape) > 0 {
			if rest := unescaped(val, spec.Escape); strings.TrimSpace(rest) != "" {
				out = append(out, Found{Option: opt, Command: rest, Literal: true, Repeats: spec.Repeats, Code: true})
			}
		}
	}
	for i := 1; i < len(words); i++ {
		a := words[i]
		literal := lit == nil || lit[i]
		if _, ok := rn.Options["*"]; ok {
			add("*", a, literal)
			continue
		}
		if literal && a == "--" {
			break
		}
		if !literal || !strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "+") {
			continue
		}
		if _, ok := rn.Options[a]; ok && i+1 < len(words) {
			add(a, words[i+1], lit == nil || lit[i+1])
			i++
			continue
		}
		if opt, val, ok := strings.Cut(a, "="); ok && strings.HasPrefix(opt, "--") {
			if _, ok := rn.Options[opt]; ok {
				add(opt, val, true)
			}
			continue
		}
		if len(a) > 2 && a[0] == '-' && a[1] != '-' {
			if _, ok := rn.Options[a[:2]]; ok { // -oProxyCommand=CMD, -eCMD
				add(a[:2], a[2:], true)
				continue
			}
		}
		if a[0] == '+' {
			if _, ok := rn.Options["+"]; ok {
				add("+", a[1:], true)
			}
		}
	}
	return out
}

// StdinCommands returns the commands a Data program's stdin holds after
// one of its escapes (psql reading '\! docker restart web').
func (rn Runner) StdinCommands(stdin string) []string {
	return CommandOption{Escape: rn.Stdin}.commands(stdin)
}

// StdinCode returns what a Data program's stdin holds in its own
// language, with the commands after its escapes taken out (see
// Found.Code).
func (rn Runner) StdinCode(stdin string) string {
	return unescaped(stdin, rn.Stdin)
}

// unescaped returns s with what follows each of escapes, to the end of
// its line, taken out.
func unescaped(s string, escapes []string) string {
	lines := strings.Split(s, "\n")
	for i, line := range lines {
		for _, e := range escapes {
			if at := strings.Index(line, e); at >= 0 {
				line = line[:at]
			}
		}
		lines[i] = line
	}
	return strings.Join(lines, "\n")
}

// commands returns the commands the value v of the option holds.
func (o CommandOption) commands(v string) []string {
	if o.Keys != nil {
		// KEY=VALUE, or KEY VALUE as ssh_config writes it (ssh -o
		// "ProxyCommand CMD"), with blanks around the = if any.
		v = strings.TrimLeft(v, " \t")
		at := strings.IndexAny(v, "= \t")
		if at < 0 {
			return nil
		}
		k := strings.ToLower(v[:at])
		rest := strings.TrimLeft(strings.TrimPrefix(strings.TrimLeft(v[at:], " \t"), "="), " \t")
		for key, esc := range o.Keys {
			key = strings.ToLower(key)
			if k == key || (strings.HasSuffix(key, ".") || strings.HasSuffix(key, "::")) && strings.HasPrefix(k, key) {
				if esc == "" {
					return []string{rest}
				}
				return escaped(rest, []string{esc})
			}
		}
		return nil
	}
	if len(o.Escape) == 0 {
		return []string{v}
	}
	return escaped(v, o.Escape)
}

// escaped returns what follows each of escapes in s, to the end of its
// line.
func escaped(s string, escapes []string) []string {
	var out []string
	for _, line := range strings.Split(s, "\n") {
		for len(line) > 0 {
			at, esc := -1, ""
			for _, e := range escapes {
				if i := strings.Index(line, e); i >= 0 && (at < 0 || i < at) {
					at, esc = i, e
				}
			}
			if at < 0 {
				break
			}
			line = line[at+len(esc):]
			if c := strings.TrimSpace(line); c != "" {
				out = append(out, c)
			}
			break // the command runs to the end of the line
		}
	}
	return out
}

var (
	sshCommandKeys = CommandOption{Keys: map[string]string{"ProxyCommand": "", "LocalCommand": "", "KnownHostsCommand": "", "RemoteCommand": ""}}
	vimLike        = Runner{Data: true, Options: map[string]CommandOption{"-c": {Escape: []string{"!"}}, "--cmd": {Escape: []string{"!"}}, "+": {Escape: []string{"!"}}}, Stdin: []string{"!"}}
	mysqlLike      = Runner{Data: true, Options: map[string]CommandOption{"-e": {Escape: []string{`\!`, "system "}}, "--execute": {Escape: []string{`\!`, "system "}}}, Stdin: []string{`\!`, "system "}}
	aptLike        = Runner{Data: true, Options: map[string]CommandOption{"-o": {Keys: map[string]string{"APT::Update::Pre-Invoke::": "", "APT::Update::Post-Invoke::": "",
		"APT::Update::Post-Invoke-Success::": "", "DPkg::Pre-Invoke::": "", "DPkg::Post-Invoke::": "", "DPkg::Pre-Install-Pkgs::": ""}}}}
)

// commandVars are the environment variables whose value a program runs as
// a command (git runs GIT_SSH_COMMAND, less LESSOPEN, a non-interactive
// bash sources the file BASH_ENV names), by name; the value says how:
// "command", or "file" for a script's path.
var commandVars = sync.OnceValue(func() map[string]string {
	return map[string]string{
		"GIT_SSH_COMMAND": "command", "GIT_SSH": "command", "GIT_EDITOR": "command", "GIT_SEQUENCE_EDITOR": "command",
		"GIT_PAGER": "command", "GIT_EXTERNAL_DIFF": "command", "GIT_ASKPASS": "command", "SSH_ASKPASS": "command",
		"SUDO_ASKPASS": "command", "EDITOR": "command", "VISUAL": "command", "PAGER": "command", "MANPAGER": "command",
		"SYSTEMD_PAGER": "command", "LESSOPEN": "command", "LESSCLOSE": "command", "RSYNC_RSH": "command",
		"BROWSER": "command", "PROMPT_COMMAND": "command", "BASH_ENV": "file", "ENV": "file",
	}
})

// CommandVar reports whether programs run the value of the environment
// variable name as a command ("command") or source the script it names
// ("file"), or neither ("").
func CommandVar(name string) string { return commandVars()[name] }

// RunnerNames returns the names of every program of the Runner table,
// sorted.
func RunnerNames() []string {
	names := make([]string, 0, len(runners()))
	for n := range runners() {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

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
	shell := false
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
		if opt, _, ok := strings.Cut(a, "="); ok && strings.HasPrefix(opt, "--") {
			// --split-string=STRING, --command=STRING: the value is in
			// the word itself; Value says where.
			if slices.Contains(rn.Script, opt) {
				return Use{How: Script, I: i, Option: opt, Joined: true}
			}
			if slices.Contains(rn.Split, opt) {
				return Use{How: Split, I: i, Option: opt, Joined: true}
			}
		}
		if len(a) > 2 && a[0] == '-' && a[1] != '-' {
			// A cluster of short options: one that takes a string a
			// shell runs or splits takes the rest of the word, or the
			// next word when it ends the cluster (env -vS STRING,
			// env -S"STRING", flock -nc STRING).
			if u, ok := rn.clustered(words, i); ok {
				return u
			}
		}
		if strings.HasPrefix(a, "-") && a != "-" {
			if slices.Contains(rn.Shell, a) || len(rn.Shell) > 0 && len(a) > 2 && a[1] != '-' && strings.ContainsAny(a[1:], "si") {
				shell = true
			}
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
	if shell {
		return Use{How: Shell, I: i}
	}
	if i >= len(words) {
		return Use{How: Nothing}
	}
	if slices.Contains(rn.Script, words[i]) && i+1 < len(words) { // flock FILE -c STRING
		return Use{How: Script, I: i + 1, Option: words[i]}
	}
	return Use{How: Words, I: i}
}

// clustered returns the Use of a Script or Split option in the cluster
// of short options words[i] (-vS STRING, -SSTRING), if one is there
// before an option that takes a value.
func (rn Runner) clustered(words []string, i int) (Use, bool) {
	a := words[i]
	for j := 1; j < len(a); j++ {
		opt := "-" + a[j:j+1]
		how := Nothing
		switch {
		case slices.Contains(rn.Script, opt):
			how = Script
		case slices.Contains(rn.Split, opt):
			how = Split
		case rn.Valued[opt]:
			return Use{}, false // the rest of the word is its value
		default:
			continue
		}
		if j+1 < len(a) {
			return Use{How: how, I: i, Option: opt, At: j + 1}, true
		}
		if i+1 < len(words) {
			return Use{How: how, I: i + 1, Option: opt}, true
		}
		return Use{}, false
	}
	return Use{}, false
}

// OptionTakesValue reports whether the option a takes the next word as its
// value: it is one of valued, or a cluster of short options whose first
// valued one ends it (-dmS NAME). One that does not end it takes the rest
// of the word as its value (-uroot, -c2).
func OptionTakesValue(a string, valued map[string]bool) bool {
	if valued[a] {
		return true
	}
	if len(a) <= 2 || a[0] != '-' || a[1] == '-' {
		return false
	}
	for j := 1; j < len(a); j++ {
		if valued["-"+a[j:j+1]] {
			return j == len(a)-1
		}
	}
	return false
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
