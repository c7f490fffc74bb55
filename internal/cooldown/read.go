package cooldown

import (
	"fmt"
	"regexp/syntax"
	"slices"
	"strings"
	"unicode"

	"guard/internal/shell"
	"guard/internal/shell/bash"
)

// A Reading is what a command does to the budgets, as guard reads it.
type Reading struct {
	// Takes are the actions it takes, each with how many times, in the
	// order they first appear.
	Takes []Take
	// Unsure are the parts of it guard cannot read.
	Unsure []Unsure
}

// A Take is an action a command takes on a service, N times.
type Take struct {
	Match
	N int
	// Repeats, if not empty, says why guard cannot count how many times it
	// runs ("in a while loop"); N is then the count of one round.
	Repeats string
	// Where is the command that takes it, as written.
	Where string
}

// An Unsure is a part of a command guard cannot read.
type Unsure struct {
	Text   string // the part, as written
	Reason string // why guard cannot read it
	// Risky reports that it may take a budgeted action: it runs commands
	// guard cannot see at all (eval "$CMD", curl ... | bash, $CMD), it is
	// over one of bash.Read's limits (guard has not read it), a pattern
	// matches it for some value of what guard cannot read, or it names a
	// budgeted program or a service the state knows, however bash spells
	// it. A risky part is refused for a human; any other is allowed with a
	// warning.
	Risky bool
	// Hint says what to do instead, for a risky part.
	Hint string
}

// The words guard puts in place of what it cannot read, to try the
// patterns on; both are valid service names that no one uses.
const (
	holeWord  = "guard.unknown-word"
	everyWord = "guard.every-service"
)

// Read reads command as bash runs it (see bash.Read), and returns the
// actions it takes, counting each occurrence (docker restart web web is
// two), and the parts guard cannot read. "docker compose restart" (or up,
// stop, start, as the patterns budget them) with no service named acts on
// every service: each service the state knows takes the action; if the
// state knows none, the command is an Unsure, Risky part.
//
// A program guard does not know (strace, chronic, valgrind, a script)
// may run a command among its words: the first of its words from which a
// budgeted command, or a program Read follows (sudo, sh, ssh, ...), reads
// to an action counts as that command (strace -f docker restart web is a
// restart of web), and so does a string after -c, --command, --cmd, --run
// or --exec. A program known to take its words as data (echo, grep, git
// commit, ...) runs none of them.
func (r *Rules) Read(command string) Reading {
	return r.reading(bash.Read(command), command)
}

// ReadArgv is Read for a command exec runs directly (guard cooldown run's
// CMD).
func (r *Rules) ReadArgv(argv []string) Reading {
	return r.reading(bash.ReadArgv(argv), strings.Join(argv, " "))
}

func (r *Rules) reading(n *bash.Node, whole string) Reading {
	f := &folder{r: r, whole: whole}
	t := f.fold(n)
	var rd Reading
	for _, m := range f.order {
		tk := t[m]
		if tk == nil {
			continue
		}
		if m.Service != everyWord {
			rd.Takes = addTake(rd.Takes, Take{Match: m, N: tk.n, Repeats: tk.repeats, Where: tk.where})
			continue
		}
		known := f.known()
		if len(known) == 0 {
			rd.Unsure = append(rd.Unsure, Unsure{Text: tk.where, Risky: true,
				Reason: "it names no service, so it acts on every service of the project, and guard knows of no service yet",
				Hint:   "name the services (docker compose " + m.Action.Name + " web db), or ask a human to run it"})
			continue
		}
		for _, s := range known {
			rd.Takes = addTake(rd.Takes, Take{Match: Match{Service: s, Action: m.Action}, N: tk.n, Repeats: tk.repeats, Where: tk.where})
		}
	}
	seen := map[Unsure]bool{}
	for _, u := range f.unsure {
		if !seen[u] { // a line repeated, or a loop unrolled
			seen[u] = true
			rd.Unsure = append(rd.Unsure, u)
		}
	}
	return rd
}

// addTake adds t to takes, to the count of the same action if it is there.
func addTake(takes []Take, t Take) []Take {
	for i := range takes {
		if takes[i].Match == t.Match {
			takes[i].N += t.N
			if takes[i].Repeats == "" {
				takes[i].Repeats = t.Repeats
			}
			return takes
		}
	}
	return append(takes, t)
}

// A take is a count being summed.
type take struct {
	n       int
	repeats string
	where   string
}

type tally map[Match]*take

// A folder turns what bash.Read found into counts.
type folder struct {
	r        *Rules
	whole    string // the command read, for a part over a limit
	order    []Match
	unsure   []Unsure
	services []string
	loaded   bool
	// knownSeen is services as a set.
	knownSeen map[string]bool
	samples   *samples
	// inArgs is set while the words of a program guard does not know are
	// read as a command it may run; argReads counts those reads.
	inArgs   bool
	argReads int
	// wholeNames caches namesWhole: 0 not yet, 1 no, 2 yes.
	wholeNames int
}

// maxArgReads bounds how many times one Read reads a program's words as
// a command it may run; past it, what is left is judged by what it names.
const maxArgReads = 64

// namesWhole is names of the whole command, worked out once.
func (f *folder) namesWhole() bool {
	if f.wholeNames == 0 {
		f.wholeNames = 1
		if f.names(f.whole) {
			f.wholeNames = 2
		}
	}
	return f.wholeNames == 2
}

// knownSet returns the services the state knows, as a set.
func (f *folder) knownSet() map[string]bool {
	if f.knownSeen == nil {
		f.knownSeen = map[string]bool{}
		for _, s := range f.known() {
			f.knownSeen[s] = true
		}
	}
	return f.knownSeen
}

// known returns the services the state knows, read once.
func (f *folder) known() []string {
	if !f.loaded {
		f.loaded = true
		if v, err := f.r.Snapshot(); err == nil {
			f.services = v.ServiceNames()
		}
	}
	return f.services
}

func (f *folder) fold(n *bash.Node) tally {
	if n == nil {
		return nil
	}
	switch n.Kind {
	case bash.Run:
		return f.run(n)
	case bash.Seq:
		t := tally{}
		for _, k := range n.Kids {
			for m, c := range f.fold(k) {
				if t[m] == nil {
					t[m] = &take{where: c.where}
				}
				t[m].n += c.n
				if t[m].repeats == "" {
					t[m].repeats = c.repeats
				}
			}
		}
		return t
	case bash.Alt:
		t := tally{}
		for _, k := range n.Kids {
			for m, c := range f.fold(k) {
				if t[m] == nil {
					t[m] = &take{where: c.where}
				}
				t[m].n = max(t[m].n, c.n)
				if t[m].repeats == "" {
					t[m].repeats = c.repeats
				}
			}
		}
		return t
	case bash.Loop:
		t := tally{}
		for _, k := range n.Kids {
			for m, c := range f.fold(k) {
				if n.Times == bash.Unknown {
					if c.repeats == "" {
						c.repeats = n.Reason
					}
				} else {
					c.n *= n.Times
				}
				t[m] = c
			}
		}
		return t
	case bash.Unread:
		f.unread(n)
	}
	return nil
}

// note counts one match of the command where.
func (f *folder) note(t tally, m Match, where string) {
	if t[m] == nil {
		t[m] = &take{where: where}
		if !slices.Contains(f.order, m) {
			f.order = append(f.order, m)
		}
	}
	t[m].n++
}

// run matches one simple command, and, if it takes no action and its
// program is none guard knows, the commands among its words (args).
func (f *folder) run(n *bash.Node) tally {
	t := f.match(n)
	if len(t) == 0 && n.MayRun {
		return f.args(n)
	}
	return t
}

// match matches one simple command.
func (f *folder) match(n *bash.Node) tally {
	t := tally{}
	c := n.Cmd
	var holes []int
	for i, ok := range c.Literal {
		// A word that starts with a dash is an option, whatever its value,
		// and so is the value of an option that takes one (-t $T).
		if !ok && !strings.HasPrefix(c.Words[i], "-") && !(i > 0 && c.Literal[i-1] && shell.TakesValue(c.Words[i-1])) {
			holes = append(holes, i)
		}
	}
	// When every pattern starts with a fixed program, a command whose
	// program is none of them takes no action (and is not put in normal
	// form, which takes time on a long one).
	s := f.sampled()
	prog := c.Program()
	never := s.fixed && len(prog) > 0 && c.Literal[len(c.Words)-len(prog)] && !s.programs[baseName(prog[0])]
	if len(holes) == 0 {
		if never {
			return t
		}
		for _, m := range f.r.matches(c.Normal()) {
			f.note(t, m, n.Text)
		}
		return t
	}
	// What guard can tell counts: the command with the words it cannot
	// read left out.
	if !never {
		for _, m := range f.r.matches(fill(c.Words, holes, nil, nil).Normal()) {
			if m.Service != everyWord {
				f.note(t, m, n.Text)
			}
		}
	}
	var unknown []string
	for _, i := range holes {
		unknown = append(unknown, c.Words[i])
	}
	u := Unsure{Text: n.Text, Reason: strings.Join(unknown, " ") + " cannot be known before it runs",
		Hint: "write the services and the action plainly, or ask a human to run it"}
	if !c.Literal[0] {
		u.Reason = "its program, " + c.Words[0] + ", cannot be known before it runs"
		if n.Hidden {
			u.Reason += ", and may be a whole command"
			u.Hint = "write the command plainly (or quote the variable: \"$CMD\" is one program's name), or ask a human to run it"
		}
	}
	u.Risky = n.Hidden || f.mightMatch(c, holes) || !c.Literal[0] && f.names(n.Text)
	if u.Risky || !c.Literal[0] {
		f.unsure = append(f.unsure, u)
	}
	return t
}

// args reads the words of n, a program guard does not know, as a command
// it may run: from each word that is a budgeted program or a program
// bash.Read follows (strace -f docker restart web, sshpass -p x ssh h
// CMD), and each string after -c, --command, --cmd, --run or --exec. The
// first that takes an action, or may take one, counts; the rest are not
// read (a wrapper runs one command).
func (f *folder) args(n *bash.Node) tally {
	c := n.Cmd
	s := f.sampled()
	for i := 1; i < len(c.Words); i++ {
		if !c.Literal[i] {
			continue
		}
		w := c.Words[i]
		var read func() *bash.Node
		// whole: w is a whole command as one word, given to no option that
		// names a command (mytool "docker restart web"): the program may
		// run it, or take it as data, which guard cannot tell.
		whole := false
		switch {
		case programWord(w) && (s.programs[baseName(w)] || !s.fixed || bash.Runs(baseName(w))):
			read = func() *bash.Node { return bash.ArgCommand(n, i) }
		case commandOption(c.Words[i-1]) && c.Literal[i-1] && strings.ContainsAny(w, " \t\n;&|"):
			read = func() *bash.Node { return bash.ArgScript(n, w) }
		default:
			if opt, v, ok := strings.Cut(w, "="); ok && commandOption(opt) && strings.ContainsAny(v, " \t\n;&|") {
				read = func() *bash.Node { return bash.ArgScript(n, v) }
			} else if strings.ContainsAny(w, " \t\n;&|") {
				if ok { // --opt=COMMAND: the value
					w = v
				}
				read, whole = func() *bash.Node { return bash.ArgScript(n, w) }, true
			}
		}
		if read == nil {
			continue
		}
		if f.argReads >= maxArgReads {
			f.unsure = append(f.unsure, Unsure{Text: n.Text, Risky: f.names(strings.Join(c.Words[i:], " ")),
				Reason: "it gives programs more commands than guard reads", Hint: "split the command, or ask a human to run it"})
			return nil
		}
		f.argReads++
		before, was := len(f.unsure), f.inArgs
		f.inArgs = true
		t := f.fold(read())
		f.inArgs = was
		risky := false
		for _, u := range f.unsure[before:] {
			risky = risky || u.Risky
		}
		if whole && (len(t) > 0 || risky) {
			// It spells a budgeted action as a command: a human decides
			// (hostile-user-3 M4), as for code guard does not read.
			f.unsure = append(f.unsure[:before], Unsure{Text: n.Text, Risky: true,
				Reason: c.Words[0] + " is given " + quote(w) + " as one word, a command that may take a budgeted action, and guard cannot tell whether " + c.Words[0] + " runs it",
				Hint:   "run the command itself, or ask a human to run it"})
			return nil
		}
		if len(t) > 0 || risky {
			return t
		}
		f.unsure = f.unsure[:before] // it runs nothing that matters
	}
	return nil
}

// quote shows a word in a reason, shortened.
func quote(w string) string {
	if len(w) > 80 {
		w = w[:77] + "..."
	}
	return "'" + w + "'"
}

// programWord reports whether w may name a program: a name or a path,
// with no blanks or shell syntax.
func programWord(w string) bool {
	b := baseName(w)
	if b == "" || strings.HasPrefix(w, "-") {
		return false
	}
	for _, r := range b {
		if !(unicode.IsLetter(r) || unicode.IsDigit(r) || strings.ContainsRune("._+-", r)) {
			return false
		}
	}
	return true
}

// commandOption reports whether the option opt of a program guard does
// not know takes a command string by its name (-c, --command, --cmd,
// --run, --exec).
func commandOption(opt string) bool {
	switch opt {
	case "-c", "--command", "--cmd", "--run", "--exec":
		return true
	}
	return false
}

// unread notes a part guard cannot read.
func (f *folder) unread(n *bash.Node) {
	u := Unsure{Text: n.Text, Reason: n.Reason, Hint: "write the services and the action plainly, or ask a human to run it"}
	switch {
	case n.Hidden:
		// Commands guard cannot see may be anything.
		u.Risky = true
		u.Hint = "write the commands plainly, or ask a human to run it"
	case f.inArgs && !n.Limit && !n.Opaque:
		// A program's words that do not parse as a command are no
		// command (psql -c 'SELECT ...').
		return
	case n.Failed:
		// guard's own reader failed (a bug): judged by what the command
		// names, as a bug of guard's never blocks on its own.
		u.Risky = f.namesWhole()
		u.Hint = "split the command, or ask a human to run it"
	case n.Limit:
		// Over a limit, guard has not read it, and no search of the text
		// can stand in for a reading: bash spells a name in ways no text
		// shows ($(printf '\144ocker')). With any budget to keep, a human
		// decides.
		u.Risky = len(f.r.Patterns) > 0
		u.Hint = "split the command, or ask a human to run it"
	case n.Opaque && n.Lang:
		// A program's own language (vim -c, psql -c): refused when it
		// spells a budgeted action as a command (call system("docker
		// restart web"), \o |docker restart web), not for naming a
		// program (SELECT ... FROM docker).
		if u.Risky = f.spellsAction(n.Text); !u.Risky {
			return
		}
	case n.Opaque:
		// Code in another language: refused only if it names a budgeted
		// program; awk '{print $1}' is no action.
		if u.Risky = f.namesProgram(n.Text); !u.Risky {
			return
		}
	default:
		u.Risky = f.names(n.Text)
	}
	f.unsure = append(f.unsure, u)
}

// matches returns the actions the normal form takes: the first pattern
// that matches decides, on every service it names; a compose command with
// no service names everyWord.
func (r *Rules) matches(form string) []Match {
	if form == "" {
		return nil
	}
	if ms := r.matchForm(form); ms != nil {
		return ms
	}
	if w := strings.Fields(form); len(w) >= 3 && w[0] == "docker" && w[1] == "compose" && (len(w) == 3 || strings.HasPrefix(w[3], "-")) {
		all := strings.Join(append(append(w[:3:3], everyWord), w[3:]...), " ")
		return r.matchForm(all)
	}
	return nil
}

func (r *Rules) matchForm(form string) []Match {
	for i := range r.Patterns {
		p := &r.Patterns[i]
		services := matchServices(p.Regexp(), form)
		if services == nil {
			continue
		}
		a, err := r.Action(p.Action)
		if err != nil {
			continue
		}
		var out []Match
		for _, s := range services {
			if CheckService(s) == nil {
				out = append(out, Match{Service: s, Action: a})
			}
		}
		return out
	}
	return nil
}

// fill returns the command c with the words at holes replaced by with
// (one word becoming several, or none), the hole at i by at.
func fill(words []string, holes []int, with []string, at map[int][]string) shell.Command {
	var out []string
	h := 0
	for i, w := range words {
		if h < len(holes) && holes[h] == i {
			h++
			if v, ok := at[i]; ok {
				out = append(out, v...)
			} else {
				out = append(out, with...)
			}
			continue
		}
		out = append(out, w)
	}
	lit := make([]bool, len(out))
	for i := range lit {
		lit[i] = true
	}
	return shell.Command{Words: out, Literal: lit}
}

// maxTrials bounds the forms tried for one Read; past it, a command with
// words guard cannot read counts as one that may match.
const maxTrials = 50000

// mightMatch reports whether some pattern matches c for some value of the
// words at holes: each is tried as nothing, as a placeholder service, and
// as each run of words from an example of each pattern (so docker $VERB
// web, $PROGRAM restart web and ansible-playbook $PLAYBOOK are caught),
// the other holes as nothing or a placeholder.
func (f *folder) mightMatch(c shell.Command, holes []int) bool {
	s := f.sampled()
	// When every pattern starts with a fixed program, a command whose
	// program is none of them never matches.
	if c.Literal[0] && s.fixed && !s.programs[baseName(c.Words[0])] {
		return false
	}
	key := strings.Join(c.Words, "\x00") + fmt.Sprint(holes)
	if v, ok := s.tried[key]; ok {
		return v
	}
	v := f.tryHoles(s, c, holes)
	s.tried[key] = v
	return v
}

func (f *folder) tryHoles(s *samples, c shell.Command, holes []int) bool {
	try := func(cmd shell.Command) bool {
		s.trials++
		return s.trials > maxTrials || len(f.r.matches(cmd.Normal())) > 0
	}
	for _, others := range [][]string{nil, {holeWord}} {
		if try(fill(c.Words, holes, others, nil)) {
			return true
		}
		for _, i := range holes[:min(len(holes), 6)] {
			for _, cand := range s.runs {
				if i == 0 && (len(cand) > 1 || !s.programs[cand[0]]) {
					continue // a program is one word
				}
				if try(fill(c.Words, holes, others, map[int][]string{i: cand})) {
					return true
				}
			}
		}
	}
	return false
}

// maxScan is the longest text names reads; a longer one may name anything.
const maxScan = 4 << 20

// names reports whether text names a budgeted program or a service the
// state knows, as a word, however bash spells it (see spelled).
func (f *folder) names(text string) bool {
	if len(text) > maxScan {
		return true
	}
	s := f.sampled()
	known := f.knownSet()
	return spelled(text, func(w string) bool { return s.programs[w] || known[w] })
}

// namesProgram reports whether text names a budgeted program, as a word,
// however bash spells it.
func (f *folder) namesProgram(text string) bool {
	if len(text) > maxScan {
		return true
	}
	s := f.sampled()
	return spelled(text, func(w string) bool { return s.programs[w] })
}

// spellsAction reports whether text, in a language guard does not read,
// spells a command that takes a budgeted action, or may take one: from
// each budgeted program it names (however spelled), the words that follow
// on its line, up to a quote, a bracket or a shell operator, are read as
// a command.
func (f *folder) spellsAction(text string) bool {
	if len(text) > maxScan {
		return true
	}
	s := f.sampled()
	for _, sp := range append([]string{text}, shell.Spellings(text)...) {
		start := -1
		for i, r := range sp + " " {
			if unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' || r == '-' || r == '.' {
				if start < 0 {
					start = i
				}
				continue
			}
			if start >= 0 && s.programs[sp[start:i]] {
				cmd := sp[start:]
				if end := strings.IndexAny(cmd, "\"'`()[]{};|&<>\n"); end >= 0 {
					cmd = cmd[:end]
				}
				rd := f.r.Read(cmd)
				if len(rd.Takes) > 0 {
					return true
				}
				for _, u := range rd.Unsure {
					if u.Risky {
						return true
					}
				}
			}
			start = -1
		}
	}
	return false
}

// spelled reports whether is holds for a word of text, or of a copy of it
// with its quotes, backslashes and escapes taken out (shell.Spellings):
// text guard cannot read may spell docker d\ocker, d""ocker or
// $'\x64ocker', and bash runs docker all the same.
func spelled(text string, is func(string) bool) bool {
	if anyToken(text, is) {
		return true
	}
	for _, sp := range shell.Spellings(text) {
		if anyToken(sp, is) {
			return true
		}
	}
	return false
}

// anyToken reports whether is holds for a token of text: a run of
// letters, digits, '_', '-' and '.'.
func anyToken(text string, is func(string) bool) bool {
	start := -1
	for i, r := range text {
		if unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' || r == '-' || r == '.' {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 && is(text[start:i]) {
			return true
		}
		start = -1
	}
	return start >= 0 && is(text[start:])
}

// samples are what the patterns look like: an example of each, the runs
// of its words (candidates for a word guard cannot read), and the
// programs they start with.
type samples struct {
	runs     [][]string
	programs map[string]bool
	// fixed reports that every pattern starts with a fixed program (one of
	// programs).
	fixed  bool
	trials int
	tried  map[string]bool
}

func (f *folder) sampled() *samples {
	if f.samples != nil {
		return f.samples
	}
	s := &samples{programs: map[string]bool{}, fixed: true, tried: map[string]bool{}}
	seen := map[string]bool{}
	for i := range f.r.Patterns {
		p := &f.r.Patterns[i]
		if program(p.Regex) == "" {
			s.fixed = false
		}
		words := strings.Fields(example(p.Regex))
		if len(words) == 0 || !p.Regexp().MatchString(strings.Join(words, " ")) {
			s.fixed = false
			continue
		}
		s.programs[words[0]] = true
		if words[0] == "docker" {
			s.programs["docker-compose"] = true
		}
		for a := range words {
			for b := a + 1; b <= len(words) && b-a <= 3; b++ {
				run := words[a:b]
				if k := strings.Join(run, " "); !seen[k] {
					seen[k] = true
					s.runs = append(s.runs, run)
				}
			}
		}
	}
	f.samples = s
	return s
}

// example returns a short string the regular expression matches: its
// first alternatives, the fewest repeats, a letter or digit for a class.
func example(expr string) string {
	re, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return ""
	}
	var b strings.Builder
	var walk func(re *syntax.Regexp)
	walk = func(re *syntax.Regexp) {
		if b.Len() > 200 {
			return
		}
		switch re.Op {
		case syntax.OpLiteral:
			b.WriteString(string(re.Rune))
		case syntax.OpCharClass:
			b.WriteRune(classRune(re.Rune))
		case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
			b.WriteByte('a')
		case syntax.OpCapture, syntax.OpPlus:
			walk(re.Sub[0])
		case syntax.OpRepeat:
			for range re.Min {
				walk(re.Sub[0])
			}
		case syntax.OpConcat:
			for _, s := range re.Sub {
				walk(s)
			}
		case syntax.OpAlternate:
			walk(re.Sub[0])
		}
	}
	walk(re)
	return b.String()
}

// program returns the program every match of the regular expression
// starts with ("docker" for ^docker (?:restart|stop) ...), or "" if it
// has no fixed one.
func program(expr string) string {
	re, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return ""
	}
	var lit []rune
	subs := []*syntax.Regexp{re}
	if re.Op == syntax.OpConcat {
		subs = re.Sub
	}
	for _, s := range subs {
		switch s.Op {
		case syntax.OpBeginLine, syntax.OpBeginText:
			if len(lit) > 0 {
				return ""
			}
			continue
		case syntax.OpLiteral:
			if s.Flags&syntax.FoldCase == 0 {
				lit = append(lit, s.Rune...)
				if i := strings.IndexByte(string(lit), ' '); i > 0 {
					return string(lit)[:i]
				}
				continue
			}
		}
		break
	}
	return ""
}

func baseName(s string) string { return s[strings.LastIndexByte(s, '/')+1:] }

// classRune picks a rune of a character class: a letter or digit if it
// has one.
func classRune(ranges []rune) rune {
	for _, want := range []rune{'a', '0', 'A'} {
		for i := 0; i+1 < len(ranges); i += 2 {
			if ranges[i] <= want && want <= ranges[i+1] {
				return want
			}
		}
	}
	for i := 0; i+1 < len(ranges); i += 2 {
		for r := ranges[i]; r <= ranges[i+1] && r < ranges[i]+128; r++ {
			if unicode.IsPrint(r) && r != ' ' {
				return r
			}
		}
	}
	return 'a'
}
