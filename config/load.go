package config

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"guard/internal/safeopen"
)

// Options say where Load looks. The zero value uses the process's
// environment and home directory.
type Options struct {
	// Path is the config file named on the command line. If it is empty,
	// Load uses GUARD_CONFIG, then ~/.claude/guardrails.yaml if it exists.
	Path string

	Getenv  func(string) string // nil: os.Getenv
	Environ func() []string     // nil: os.Environ
	Home    string              // "": os.UserHomeDir

	// Stdin is what a Path of "-" reads ('guard config check -'). With no
	// Stdin, a Path of "-" is an error: under guard run, standard input is
	// the hook's.
	Stdin io.Reader

	// NoCooldown leaves the file's cooldown section out: it is neither
	// read nor checked, and Config.Cooldown keeps its defaults (guard run,
	// which keeps no budgets: a mistake in them is guard cooldown's and
	// config check's to report, never a reason to run every hook
	// unguarded; and the section is about half of the example config's
	// reading).
	NoCooldown bool
}

// StdinSource is the Source of a configuration read from standard input.
const StdinSource = "standard input"

// ErrInvalid is matched by every error Load returns about the content of
// the configuration (as opposed to failing to read it).
var ErrInvalid = errors.New("invalid configuration")

type invalidError struct{ msg string }

func (e *invalidError) Error() string        { return e.msg }
func (e *invalidError) Is(target error) bool { return target == ErrInvalid }

func invalid(format string, args ...any) error {
	return &invalidError{msg: fmt.Sprintf(format, args...)}
}

// lineError is returned by the YAML value types, which know their line.
type lineError struct {
	line int
	msg  string
}

func (e *lineError) Error() string { return fmt.Sprintf("line %d: %s", e.line, e.msg) }

// Path returns the config file Load would read, and whether it was named
// explicitly (in which case it must exist).
func (o *Options) path() (string, bool) {
	if o.Path != "" {
		return o.Path, true
	}
	if p := o.Getenv("GUARD_CONFIG"); p != "" {
		return p, true
	}
	return filepath.Join(o.Home, ".claude", "guardrails.yaml"), false
}

// Load builds the effective configuration: the built-in defaults, then the
// config file, then GUARDRAILS_* variables (as the Python guardrails spell
// them), then GUARD_STATE and GUARD_COOLDOWN_STATE. An empty
// cooldown.state_file becomes $CLAUDEOPS_STATE_DIR/cooldown.json when that
// is set, else ~/.claude/cooldown.json.
//
// Any problem with the file's content gives an error that matches
// ErrInvalid and names the file and line.
func Load(opts Options) (*Config, error) {
	if opts.Getenv == nil {
		opts.Getenv = os.Getenv
	}
	if opts.Environ == nil {
		opts.Environ = os.Environ
	}
	if opts.Home == "" {
		opts.Home, _ = os.UserHomeDir()
	}
	cfg := Default(opts.Home)
	if opts.Home == "" {
		// No HOME: there is no ~/.claude, and its paths are not "/.claude".
		cfg.StateFile, cfg.Cooldown.StateFile = "", ""
	}

	path, explicit := opts.path()
	var data []byte
	err := fs.ErrNotExist
	written := path
	path, xerr := expandPath(path, opts)
	if xerr != nil {
		return nil, invalid("config file %s: %v", written, xerr)
	}
	switch {
	case path == "-" && opts.Path == "-" && opts.Stdin != nil:
		path = StdinSource
		data, err = io.ReadAll(opts.Stdin)
	case path == "-":
		return nil, invalid("config file -: standard input is read only by 'guard config check -' (a file really named so is ./-)")
	case path != "":
		// Never a FIFO or a device: guard would wait on it for ever.
		data, err = safeopen.ReadFile(path)
	}
	switch {
	case errors.Is(err, fs.ErrNotExist) && !explicit:
		// No file: the built-in defaults.
	case err != nil:
		return nil, fmt.Errorf("cannot read config: %w", err)
	default:
		cfg.Source = path
		if err := cfg.loadYAML(path, data, opts); err != nil {
			return nil, err
		}
	}
	if err := cfg.loadEnv(opts.Environ(), opts); err != nil {
		return nil, err
	}
	for _, v := range []struct {
		name string
		to   *string
	}{{"GUARD_STATE", &cfg.StateFile}, {"GUARD_COOLDOWN_STATE", &cfg.Cooldown.StateFile}} {
		if p := opts.Getenv(v.name); p != "" {
			p, err := expandLocation(p, opts)
			if err != nil {
				return nil, invalid("%s: %v", v.name, err)
			}
			*v.to = p
		}
	}
	if cfg.Cooldown.StateFile == "" {
		if dir := opts.Getenv("CLAUDEOPS_STATE_DIR"); dir != "" {
			cfg.Cooldown.StateFile = filepath.Join(dir, "cooldown.json")
		} else if opts.Home != "" {
			cfg.Cooldown.StateFile = filepath.Join(opts.Home, ".claude", "cooldown.json")
		}
	}
	if cfg.StateFile == "" && opts.Home != "" {
		return nil, invalid("%s: state_file is empty", cfg.Source)
	}
	return cfg, nil
}

// ErrNoHome is the error of a command that needs a path under the home
// directory when HOME is not set.
var ErrNoHome = errors.New("HOME is not set, so there is no ~/.claude; set HOME, or name the file (GUARD_STATE, GUARD_COOLDOWN_STATE or --state)")

// expandPath expands a leading ~ and $VARIABLES, as the Python guardrails
// do, and ${VAR:-default} and ${VAR-default} as the shell does (see
// expandVars). A variable that is used and is not set, or is set to "", is
// an error: left as written, "${XDG_STATE_HOME}/guard" would be a relative
// path, and every project a hook runs in would get a state of its own. With
// no home directory, a path under ~ is "", which callers refuse (ErrNoHome).
//
// ~USER is refused rather than looked up: looking it up would take os/user
// (cgo and NSS in one build, /etc/passwd alone in a static one, so the two
// builds could disagree) for a form no hook needs, and left as written it
// would be a directory named "~USER" wherever the path is taken from.
func expandPath(p string, opts Options) (string, error) {
	if strings.Contains(p, "://") {
		return p, nil // a URL (postgres://...): its $ and ~ are its own
	}
	if p == "~" || strings.HasPrefix(p, "~/") {
		if opts.Home == "" {
			return "", nil
		}
		p = opts.Home + p[1:]
	} else if strings.HasPrefix(p, "~") {
		user, _, _ := strings.Cut(p, "/")
		return "", fmt.Errorf("%s: guard expands ~ (your home, $HOME) but not ~USER; write that user's home directory out (a directory really named so is ./%s)", user, user)
	}
	p, unset, empty, err := expandVars(p, func(name string) (string, bool) { return lookupEnv(opts, name) })
	if err != nil {
		return "", err
	}
	if len(unset)+len(empty) > 0 {
		return "", fmt.Errorf("%s, so the path would not mean what it says; set it (or give a default, ${VAR:-default}), or write the path out", varProblem(unset, empty))
	}
	return p, nil
}

// lookupEnv returns the variable name's value and whether it is set: one
// set to "" is told from one not set by the environment's list, which is
// read only then.
func lookupEnv(opts Options, name string) (string, bool) {
	if v := opts.Getenv(name); v != "" {
		return v, true
	}
	for _, kv := range opts.Environ() {
		if len(kv) == len(name)+1 && kv[len(name)] == '=' && kv[:len(name)] == name {
			return "", true
		}
	}
	return "", false
}

// expandLocation expands a state location (see expandPath) and checks it
// (see CheckStateLocation).
func expandLocation(p string, opts Options) (string, error) {
	p, err := expandPath(p, opts)
	if err != nil {
		return "", err
	}
	return p, CheckStateLocation(p)
}

// loadYAML applies the config file data, read from file.
func (c *Config) loadYAML(file string, data []byte, opts Options) error {
	skip := ""
	if opts.NoCooldown {
		skip = "cooldown"
	}
	doc, ok := fastParseWithout(data, skip)
	if !ok {
		var err error
		if doc, err = parseYAML(file, data); err != nil {
			return err
		}
	}
	if doc != nil && doc.Kind == MappingNode && skip != "" {
		// What fastParseWithout left in (a quoted key), or yaml.v3 read.
		doc.dropMember(skip)
	}
	if doc == nil {
		return nil // an empty file
	}
	if doc.Kind != MappingNode {
		return invalid("%s:%d: the file should be a mapping of settings", file, doc.Line)
	}
	var lines map[string]int
	var f fileFields
	if !ok || !fastDecode(doc, &f) {
		f = fileFields{}
		lines = map[string]int{}
		if err := checkKeys(doc, reflect.TypeFor[fileFields](), "", lines, file); err != nil {
			return err
		}
		if err := decodeYAML(doc, &f); err != nil {
			return decodeError(err, fileLines(file, lines))
		}
	}
	at := func(section string) locator {
		return func(key string) string {
			if lines == nil {
				// Decoded by fastDecode: the lines are needed only now,
				// for an error, and checkKeys finds no fault in the tree.
				lines = map[string]int{}
				checkKeys(doc, reflect.TypeFor[fileFields](), "", lines, file)
			}
			p := joinKey(section, key)
			line, ok := lines[p]
			for !ok && p != "" { // fall back to the enclosing key
				p = p[:max(strings.LastIndexAny(p, ".["), 0)]
				line, ok = lines[p]
			}
			return fmt.Sprintf("%s:%d: %s", file, line, joinKey(section, key))
		}
	}
	if err := c.apply(&f, at); err != nil {
		return err
	}
	// Paths are expanded now, so that an error names the line; a relative
	// path in the file (as written, or once expanded) is relative to the
	// file, not to wherever a hook happens to run.
	dir := filepath.Dir(file)
	return c.expandPaths(&f, at, func(p string) string { return relativeTo(dir, p) }, opts)
}

// expandPaths expands the paths f set (see expandPath), and passes each
// through rel, naming where one came from in an error.
func (c *Config) expandPaths(f *fileFields, at func(section string) locator, rel func(string) string, opts Options) error {
	var paths []struct {
		section, key string
		p            *string
		location     bool
	}
	add := func(section, key string, p *string, location bool) {
		paths = append(paths, struct {
			section, key string
			p            *string
			location     bool
		}{section, key, p, location})
	}
	if f.StateFile != nil {
		add("", "state_file", &c.StateFile, true)
	}
	if f.Logging != nil {
		if f.Logging.File != nil {
			add("logging", "file", &c.Logging.File, false)
		}
		if f.Logging.EventLog != nil {
			add("logging", "event_log", &c.Logging.EventLog, false)
		}
	}
	if f.Cooldown != nil && f.Cooldown.StateFile != nil {
		add("cooldown", "state_file", &c.Cooldown.StateFile, true)
	}
	for _, x := range paths {
		v, err := expandPath(*x.p, opts)
		if err == nil && v != "" {
			// A location is checked as it is written (expanded): once
			// joined to the file's directory, " x" or "postgres ://h/db"
			// would pass for an absolute path.
			if x.location {
				err = CheckStateLocation(v)
			}
			v = rel(v)
		}
		if err != nil {
			return invalid("%s: %v", at(x.section)(x.key), err)
		}
		*x.p = v
	}
	return nil
}

// parseYAML parses data, read from file, with the full YAML reader
// (yaml.v3), and returns its document's root node: nil for an empty
// document. A second document is refused: guard would read only the first,
// and silently ignore the rest.
func parseYAML(file string, data []byte) (*Node, error) {
	if yamlReader == nil {
		return nil, ErrNeedsYAML
	}
	root, second, err := yamlReader.Parse(data)
	if err != nil {
		msg := strings.TrimPrefix(err.Error(), "yaml: ")
		// "line 3: mapping key ... already defined": file:3: ...
		var line int
		if n, _ := fmt.Sscanf(msg, "line %d:", &line); n == 1 {
			return nil, invalid("%s:%d:%s", file, line, msg[strings.IndexByte(msg, ':')+1:])
		}
		return nil, invalid("%s: %s", file, msg)
	}
	if len(root.Content) == 0 {
		return nil, nil
	}
	if second != nil {
		return nil, invalid("%s:%d: a second YAML document; guardrails.yaml holds one (remove the '---' line)", file, second.Line)
	}
	doc := root.Content[0]
	if doc.Kind == ScalarNode && doc.ShortTag() == "!!null" {
		return nil, nil
	}
	return doc, nil
}

// relativeTo joins a relative path to dir; absolute paths, database URLs
// and "" stay as they are. Anything else with "://" in it is a path too
// (a state location that is not a database URL is refused before this:
// see CheckStateLocation), never one left relative to wherever a hook runs.
func relativeTo(dir, p string) string {
	if p == "" || filepath.IsAbs(p) || IsDatabaseURL(p) {
		return p
	}
	return filepath.Join(dir, p)
}

func joinKey(section, key string) string {
	if section == "" {
		return key
	}
	return section + "." + key
}

// apply sets one layer of settings on c. at returns a locator for a
// section ("", "circuit_breaker", "hooks[0]", ...).
func (c *Config) apply(f *fileFields, at func(section string) locator) error {
	if f.StateFile != nil {
		if err := CheckStateLocation(*f.StateFile); err != nil {
			return invalid("%s: %v", at("")("state_file"), err)
		}
		c.StateFile = *f.StateFile
	}
	if f.ConnectTimeout != nil {
		if *f.ConnectTimeout <= 0 {
			return invalid("%s: must be longer than 0s", at("")("connect_timeout"))
		}
		c.ConnectTimeout = time.Duration(*f.ConnectTimeout)
	}
	if f.LockTimeout != nil {
		if *f.LockTimeout <= 0 {
			return invalid("%s: must be longer than 0s", at("")("lock_timeout"))
		}
		c.LockTimeout = time.Duration(*f.LockTimeout)
	}
	if f.RecordTimeout != nil {
		if *f.RecordTimeout <= 0 {
			return invalid("%s: must be longer than 0s", at("")("record_timeout"))
		}
		c.RecordTimeout = time.Duration(*f.RecordTimeout)
	}
	if f.FailureMode != nil {
		if m := *f.FailureMode; m != "open" && m != "closed" {
			return invalid("%s: must be open or closed, got %q", at("")("failure_mode"), m)
		}
		c.FailureMode = *f.FailureMode
	}
	if f.Notice != nil {
		switch n := *f.Notice; n {
		case "auto", "stderr", "system-message", "none":
		default:
			return invalid("%s: must be auto, stderr, system-message or none, got %q", at("")("notice"), n)
		}
		c.Notice = *f.Notice
	}
	if f.CircuitBreaker != nil {
		if err := c.CircuitBreaker.apply(f.CircuitBreaker, at("circuit_breaker")); err != nil {
			return &invalidError{msg: err.Error()}
		}
	}
	for i := range f.Hooks {
		h := &f.Hooks[i]
		section := fmt.Sprintf("hooks[%d]", i)
		where := at(section)
		if h.Exclude != nil || h.Retention != nil {
			return invalid("%s: exclude and retention belong in circuit_breaker, not in a hooks rule", where("match"))
		}
		rule := HookRule{fields: h.breakerFields}
		if h.Match != nil {
			rule.Match = *h.Match
		}
		if h.Regex != nil {
			rule.Regex = *h.Regex
		}
		if err := compileRule(&rule); err != nil {
			key := "match"
			if h.Regex != nil {
				key = "regex"
			}
			return invalid("%s: %v", where(key), err)
		}
		// Check the rule's values against the section defaults now, so
		// that For never meets a bad one.
		probe := c.CircuitBreaker
		if err := probe.apply(&rule.fields, where); err != nil {
			return &invalidError{msg: err.Error()}
		}
		c.Hooks = append(c.Hooks, rule)
	}
	if f.Logging != nil {
		if err := c.Logging.apply(f.Logging, at("logging")); err != nil {
			return &invalidError{msg: err.Error()}
		}
	}
	if f.Cooldown != nil {
		if err := c.Cooldown.apply(f.Cooldown, at("cooldown")); err != nil {
			return &invalidError{msg: err.Error()}
		}
	}
	return nil
}

// checkKeys walks the YAML tree against the Go type t, refusing keys that t
// does not declare, and records the line of every key it sees.
func checkKeys(n *Node, t reflect.Type, path string, lines map[string]int, file string) error {
	if n.Kind == AliasNode {
		n = n.Alias
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Struct:
		if n.Kind != MappingNode {
			if n.ShortTag() == "!!null" {
				return nil
			}
			return invalid("%s:%d: %s should be a mapping of settings", file, n.Line, path)
		}
		fields := yamlFields(t)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			p := joinKey(path, k.Value)
			lines[p] = k.Line
			ft, ok := fields[k.Value]
			if !ok {
				return unknownKey(file, k, path, fields)
			}
			if err := checkKeys(v, ft, p, lines, file); err != nil {
				return err
			}
		}
	case reflect.Int:
		if bad := notWhole(n, t); bad != "" {
			return invalid("%s:%d: %s: %q is not a whole number%s", file, n.Line, path, bad, wholeHint(path, path))
		}
	case reflect.Slice:
		if bad := notWhole(n, t); bad != "" {
			return invalid("%s:%d: %s: %q is not a whole number", file, n.Line, path, bad)
		}
		if n.Kind == SequenceNode && t.Elem().Kind() == reflect.Struct {
			for i, item := range n.Content {
				p := fmt.Sprintf("%s[%d]", path, i)
				lines[p] = item.Line
				if err := checkKeys(item, t.Elem(), p, lines, file); err != nil {
					return err
				}
			}
		}
	case reflect.Map:
		if n.Kind == MappingNode {
			for i := 0; i+1 < len(n.Content); i += 2 {
				p := joinKey(path, n.Content[i].Value)
				lines[p] = n.Content[i].Line
				if err := checkKeys(n.Content[i+1], t.Elem(), p, lines, file); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// yamlFields maps the YAML keys of struct type t to their types, following
// inline fields.
func yamlFields(t reflect.Type) map[string]reflect.Type {
	m := map[string]reflect.Type{}
	for i := range t.NumField() {
		f := t.Field(i)
		name, opts, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if opts == "inline" {
			for k, v := range yamlFields(f.Type) {
				m[k] = v
			}
			continue
		}
		if name != "" && name != "-" {
			m[name] = f.Type
		}
	}
	return m
}

func unknownKey(file string, k *Node, section string, fields map[string]reflect.Type) error {
	where := ""
	if section != "" {
		where = " in " + section
	}
	msg := fmt.Sprintf("%s:%d: unknown key %q%s", file, k.Line, k.Value, where)
	if s := closest(k.Value, fields); s != "" {
		msg += fmt.Sprintf(" (did you mean %q?)", s)
	}
	return invalid("%s", msg)
}

// closest returns the known key nearest to name, if it is near enough to be
// a likely typo.
func closest(name string, fields map[string]reflect.Type) string {
	keys := make([]string, 0, len(fields))
	for k := range fields {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	best, bestD := "", len(name)/3+1
	for _, k := range keys {
		if d := EditDistance(name, k); d < bestD {
			best, bestD = k, d
		}
	}
	return best
}

// EditDistance is the Levenshtein distance of a and b, in bytes: how
// "did you mean ...?" suggestions are chosen (here for the config's keys,
// in package claude for Claude Code's settings).
func EditDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}

// typeErrRE reads yaml.v3's type errors. It is compiled on first use: a
// guard run that meets no error should not pay for it.
var typeErrRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile("^line (\\d+): cannot unmarshal !!\\w+ `(.*)` into (.+)$")
})

// decodeError rewrites a YAML decoding error as "where: problem", where
// where names the line the problem is on.
func decodeError(err error, where func(line int) string) error {
	if errors.Is(err, ErrNeedsYAML) {
		return err
	}
	var le *lineError
	if errors.As(err, &le) {
		return invalid("%s: %s", where(le.line), le.msg)
	}
	var te *DecodeErrors
	if errors.As(err, &te) && len(te.Errors) > 0 {
		var msgs []string
		for _, e := range te.Errors {
			m := typeErrRE().FindStringSubmatch(e)
			if m == nil {
				var line int
				if n, _ := fmt.Sscanf(e, "line %d:", &line); n == 1 {
					e = where(line) + ":" + e[strings.IndexByte(e, ':')+1:]
				}
				msgs = append(msgs, e)
				continue
			}
			line, _ := strconv.Atoi(m[1])
			msgs = append(msgs, fmt.Sprintf("%s: %q is not %s", where(line), m[2], typeName(m[3])))
		}
		return invalid("%s", strings.Join(msgs, "; "))
	}
	// "yaml: line 3: mapping key ... already defined at line 2"
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	var line int
	if n, _ := fmt.Sscanf(msg, "line %d:", &line); n == 1 {
		return invalid("%s:%s", where(line), msg[strings.IndexByte(msg, ':')+1:])
	}
	return invalid("%v", err)
}

// fileLines returns a where function for decodeError that names the file,
// the line and the key on it.
func fileLines(file string, lines map[string]int) func(int) string {
	keyAt := map[int]string{}
	for k, l := range lines {
		if cur, ok := keyAt[l]; !ok || len(k) > len(cur) {
			keyAt[l] = k
		}
	}
	return func(line int) string {
		if k := keyAt[line]; k != "" {
			return fmt.Sprintf("%s:%d: %s", file, line, k)
		}
		return fmt.Sprintf("%s:%d", file, line)
	}
}

func typeName(goType string) string {
	switch strings.TrimPrefix(goType, "[]") {
	case "int":
		if strings.HasPrefix(goType, "[]") {
			return "a list of whole numbers"
		}
		return "a whole number"
	case "bool":
		return "true or false"
	case "string":
		if strings.HasPrefix(goType, "[]") {
			return "a list of strings"
		}
		return "a string"
	}
	if strings.HasPrefix(goType, "[]") {
		return "a list"
	}
	return "valid here"
}
