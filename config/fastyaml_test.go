package config

import (
	"bytes"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
	"gopkg.in/yaml.v3"
)

// yamlV3Doc is what loadYAML takes from the full YAML reader (yaml.v3,
// which register_test.go links in): the document's root node, nil for an
// empty one, or an error.
func yamlV3Doc(data []byte) (*Node, error) {
	root, second, err := yamlReader.Parse(data)
	if err != nil {
		return nil, err
	}
	if second != nil {
		return nil, fmt.Errorf("a second document")
	}
	if len(root.Content) == 0 {
		return nil, nil
	}
	return root.Content[0], nil
}

// sameTree describes the first difference between two node trees in what
// guard reads of them (comments aside), or returns "".
func sameTree(fast, v3 *Node, path string) string {
	if fast == nil || v3 == nil {
		if fast != v3 {
			return fmt.Sprintf("%s: fast %v, yaml.v3 %v", path, fast, v3)
		}
		return ""
	}
	f := fmt.Sprintf("kind %d tag %q style %d value %q at %d:%d, %d children", fast.Kind, fast.ShortTag(), fast.Style, fast.Value, fast.Line, fast.Column, len(fast.Content))
	v := fmt.Sprintf("kind %d tag %q style %d value %q at %d:%d, %d children", v3.Kind, v3.ShortTag(), v3.Style, v3.Value, v3.Line, v3.Column, len(v3.Content))
	if f != v {
		return fmt.Sprintf("%s: fast %s, yaml.v3 %s", path, f, v)
	}
	for i := range fast.Content {
		if d := sameTree(fast.Content[i], v3.Content[i], fmt.Sprintf("%s/%d", path, i)); d != "" {
			return d
		}
	}
	return ""
}

// checkFastParse fails t if fastParse accepts data and builds anything but
// what yaml.v3 builds, and reports whether fastParse accepted it.
func checkFastParse(t *testing.T, data []byte) bool {
	t.Helper()
	fast, ok := fastParse(data)
	if !ok {
		return false
	}
	v3, err := yamlV3Doc(data)
	if err != nil {
		t.Fatalf("fastParse accepted what yaml.v3 refuses (%v):\n%s", err, data)
	}
	if d := sameTree(fast, v3, ""); d != "" {
		t.Fatalf("fastParse and yaml.v3 differ at %s in:\n%s", d, data)
	}
	// fastParse leaves plain scalars' tags for yaml.v3 to resolve when it
	// decodes them: the values must come out the same.
	if fast != nil {
		for _, into := range []func() any{func() any { return new(any) }, func() any { return new(fileFields) }} {
			a, b := into(), into()
			errA, errB := decodeYAML(fast, a), decodeYAML(v3, b)
			outA, _ := yaml.Marshal(a)
			outB, _ := yaml.Marshal(b)
			if fmt.Sprint(errA) != fmt.Sprint(errB) || !bytes.Equal(outA, outB) {
				t.Fatalf("decoded into %T, fastParse's tree gives\n%s(%v), yaml.v3's\n%s(%v), for:\n%s", a, outA, errA, outB, errB, data)
			}
		}
	}
	return true
}

var fastParseCases = []struct {
	yaml string
	fast bool // fastParse takes it (else yaml.v3 does)
}{
	{"", true},
	{"# only a comment\n\n", true},
	{"a: 1\n", true},
	{"a: 1", true},
	{"a: 1 # one\nb: two words  \nc: 'it''s'\nd: \"q # not a comment\"\n", true},
	{"a:\n  b: 1\n  c:\n    d: x\ne: y\n", true},
	{"a:\n- 1\n- two\nb: 3\n", true},
	{"a:\n  - x\n  - {p: q, r: 's'}\n  -   k: v\n      w: \"z\"\n  -\n    k: v\n", true},
	{"a:   # comment\nb:\n", true},
	{"a: [0]\nb: [2, 3]\nc: []\nd: {}\ne: [a b, 'c,d', \"e]\"]\nf: [x, ]\n", true},
	{"a: {field: restarts, limit: 2, window: 4h} # c\n", true},
	{"n: -1\nm: a:b\nt: true\nf: 1.5\nz: ~\nnull_: null\nh: 0x1F\no: 0o17\ns: 1_000\ninf: .inf\nd: 2026-11-23\n", true},
	{"true: 1\n1: x\n", true},
	{"regex: ^docker (?:restart|stop) (?P<s>[\\w.]+)\\b\n", true},
	{"a: x#y\nb: é — ü\n", true},
	// Files saved on Windows: CRLF line ends and a byte order mark.
	{"a: b\r\nc: d\r\n", true},                                 // CRLF
	{"a: b\r\nc:\n  - 'x'  \r\n  - {k: \"v\"} # c\r\n", true},  // LF and CRLF mixed
	{"a: b  \r\n\r\n  \r\n# c\r\nd:\r\n  e: [1, 2]\r\n", true}, // blank lines, comments
	{"a: b\r\nc: d", true},                                     // no line end at the end
	{"\ufeffa: 1\n", true},                                     // a byte order mark
	{"\ufeffa: 1\r\nb:\r\n  c: x\r\n", true},                   // both
	{"\ufeff", true},                                           // a mark, and nothing
	{"\ufeff# only a comment\r\n", true},
	{"a: b\rc: d\r", false},           // lone CRs, line breaks to yaml.v3
	{"a: b\r", false},                 // one at the end
	{"a: b\r\r\n", false},             // a CR before a CRLF
	{"a: 'x\ry'\n", false},            // a CR in a quoted scalar
	{"a: \"x\r\n  y\"\r\n", false},    // a quoted scalar over a CRLF
	{"a: 'x\r\n  y'\r\n", false},      // and a single-quoted one
	{"a: |\r\n  x\r\n  y\r\n", false}, // a block scalar with CRLFs
	{"a: >\r\n  x\r\n  y\r\n", false}, // a folded one
	{"a: one\r\n  two\r\n", false},    // a multi-line plain scalar
	{"a: [1,\r\n  2]\r\n", false},     // a flow collection over lines
	{"\ufeff\ufeffa: 1\n", false},     // two marks
	{"a: 1\n\ufeffb: 2\n", false},     // a mark further on
	{"a: \ufeff\n", false},            // in a value
	{"- a\n", false},                  // the root is a sequence: yaml.v3 reports it
	{"  a: 1\n", false},               // an indented root
	{"a: 1\n  b: 2\n", false},         // a value that goes on
	{"a: one\n  two\n", false},        // a multi-line plain scalar
	{"a:\n  b: 1\n c: 2\n", false},    // a bad dedent
	{"a: &x 1\nb: *x\n", false},       // anchors and aliases
	{"a: !!str 1\n", false},           // a tag
	{"a: |\n  text\n", false},         // a block scalar
	{"a: >\n  text\n", false},         // a folded one
	{"a: \"tab\\there\"\n", false},    // an escape
	{"a: 'open\n", false},             // an unclosed quote
	{"a: [1,\n  2]\n", false},         // a flow collection over lines
	{"a: [[1]]\n", false},             // a nested flow collection
	{"a: {b: {c: d}}\n", false},       // and another
	{"a: {b}\n", false},               // a flow key with no value
	{"a: {b:1}\n", false},             // "b:1" is one plain scalar
	{"a: [b: c]\n", false},            // a pair in a flow sequence
	{"a: [0?]\n", false},              // ? ends a plain scalar in a flow collection (yaml.v3 refuses this)
	{"a: {b: c?d}\n", false},          // and in a flow mapping
	{"a: [x #c]\n", false},            // a comment inside
	{"a:\tb\n", false},                // a tab
	{"---\na: 1\n", false},            // a document marker
	{"a: 1\n---\nb: 2\n", false},      // two documents
	{"%YAML 1.2\n---\na: 1\n", false}, // a directive
	{"? a\n: b\n", false},             // a complex key
	{"'a': 1\n", false},               // a quoted key
	{"a b: 1\n", false},               // a key with a space
	{"a : 1\n", false},                // a space before the colon
	{"a:b: 1\n", false},               // hmm: a plain key with a colon
	{"a: b: c\n", false},              // a mapping where a value should be
	{"a: b:\n", false},                // and again
	{"a: 'x' y\n", false},             // text after a quoted scalar
	{"a: [x] y\n", false},             // and after a flow collection
	{"a: - b\n", false},               // a sequence where a value should be
	{"a:\n  - - b\n", false},          // a compact nested sequence
	{"a:\n  -\n", false},              // an empty item
	{"<<: {a: 1}\n", false},           // a merge key
	{"a: <<\n", false},                // a merge value
	{"a: {b: <<}\n", false},           // and in a flow mapping (yaml.v3 tags it !!merge there too)
	{"a: [<<, x]\n", false},           // and in a flow sequence
	{"a: @x\n", false},                // a reserved indicator
	{"a: `x`\n", false},               // the other one
	{"a: 1\n- b\n", false},            // a sequence item among keys
	{"-#: 1\n", false},                // not a sequence item, not a key either
	{"a:#b\n", false},                 // "a:#b" is a plain scalar
	{"a: x\u2028y\n", false},          // a Unicode line separator
	{"a: \x01\n", false},              // a control character
	{"a: \xff\n", false},              // invalid UTF-8
	{strings.Repeat("k", 1100) + ": 1\n", false},
}

func TestFastParseMatchesYAML(t *testing.T) {
	for _, c := range fastParseCases {
		if got := checkFastParse(t, []byte(c.yaml)); got != c.fast {
			t.Errorf("fastParse took %q: %v, want %v", c.yaml, got, c.fast)
		}
	}
}

// TestFastParseTakesRealConfigs checks every config file of the project
// (the example and those of the end-to-end scripts) against yaml.v3, and
// that the example, which every figure in BENCHMARKS.md is measured with,
// goes the fast way.
func TestFastParseTakesRealConfigs(t *testing.T) {
	example, err := os.ReadFile("../guardrails.example.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if !checkFastParse(t, example) {
		t.Error("fastParse leaves guardrails.example.yaml to yaml.v3")
	}
	fast, all := 0, 0
	for _, data := range scriptConfigs(t) {
		all++
		if checkFastParse(t, data) {
			fast++
		}
	}
	t.Logf("%d of the %d config files in tests/testdata went the fast way", fast, all)
}

func FuzzFastParse(f *testing.F) {
	for _, c := range fastParseCases {
		f.Add([]byte(c.yaml))
	}
	example, err := os.ReadFile("../guardrails.example.yaml")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(example)
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 4096 {
			return // yaml.v3 can take long on large odd input
		}
		checkFastParse(t, data)
		checkFastParseWithout(t, data)
	})
}

// checkFastParseWithout fails t if fastParseWithout(data, "cooldown")
// builds anything but yaml.v3's tree without its cooldown member, where
// both take data (guard run's reading: see Options.NoCooldown).
func checkFastParseWithout(t *testing.T, data []byte) {
	t.Helper()
	fast, ok := fastParseWithout(data, "cooldown")
	if !ok {
		return
	}
	v3, err := yamlV3Doc(data)
	if err != nil || v3 == nil || v3.Kind != MappingNode || fast == nil {
		return // a broken cooldown section is the point: nothing to hold it to
	}
	v3.dropMember("cooldown")
	if d := sameTree(fast, v3, ""); d != "" {
		t.Fatalf("fastParseWithout and yaml.v3 without cooldown differ at %s in:\n%s", d, data)
	}
}

// TestNoCooldown: guard run's reading of a config leaves its cooldown
// section out, unread and unchecked, whichever parser reads the rest; the
// rest is read as a full Load reads it.
func TestNoCooldown(t *testing.T) {
	home := t.TempDir()
	for _, tc := range []struct{ name, yaml string }{
		{"bad budget", "circuit_breaker:\n  failure_threshold: 7\ncooldown:\n  actions:\n    restart: {field: x, limt: 2}\n"},
		{"bad pattern", "cooldown:\n  patterns:\n    - {regex: '(', action: restart}\ncircuit_breaker:\n  failure_threshold: 7\n"},
		{"anchored", "circuit_breaker: &cb\n  failure_threshold: 7\ncooldown:\n  retention: soon\n"},
		{"flow", "cooldown: {retention: soon}\ncircuit_breaker: {failure_threshold: 7}\n"},
		{"quoted", "\"cooldown\":\n  retention: soon\ncircuit_breaker:\n  failure_threshold: 7\n"},
	} {
		path := filepath.Join(home, tc.name+".yaml")
		os.WriteFile(path, []byte(tc.yaml), 0o600)
		opts := testOptions(home, path)
		if _, err := Load(opts); err == nil {
			t.Errorf("%s: a full Load took it", tc.name)
		}
		opts.NoCooldown = true
		c, err := Load(opts)
		if err != nil {
			t.Errorf("%s: Load with NoCooldown: %v", tc.name, err)
			continue
		}
		if c.CircuitBreaker.FailureThreshold != 7 || c.Cooldown.Retention != Default(home).Cooldown.Retention {
			t.Errorf("%s: failure_threshold %d, cooldown retention %v; want 7 and the default", tc.name, c.CircuitBreaker.FailureThreshold, c.Cooldown.Retention)
		}
	}
}

// BenchmarkParse compares the two ways the example config is parsed to a
// node tree: fastParse, and yaml.v3 (what every config outside fastParse's
// subset still costs, in guard-cli, to which guard hands the call over).
func BenchmarkParse(b *testing.B) {
	data, err := os.ReadFile("../guardrails.example.yaml")
	if err != nil {
		b.Fatal(err)
	}
	b.Run("fast", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			if _, ok := fastParse(data); !ok {
				b.Fatal("not taken")
			}
		}
	})
	// The same file as a Windows editor saves it (a byte order mark, CRLF
	// line ends), which goes the fast way too.
	windows := windowsVariants(data)["BOM and CRLF"]
	b.Run("fast-windows", func(b *testing.B) {
		b.SetBytes(int64(len(windows)))
		for b.Loop() {
			if _, ok := fastParse(windows); !ok {
				b.Fatal("not taken")
			}
		}
	})
	b.Run("yaml.v3", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			if _, err := yamlV3Doc(data); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkLoad is a whole Load of the example config, as guard run makes
// it on every call: read, parse, decode, apply.
func BenchmarkLoad(b *testing.B) {
	opts := Options{Path: "../guardrails.example.yaml", Home: b.TempDir(), Getenv: func(string) string { return "" }, Environ: func() []string { return nil }}
	for b.Loop() {
		if _, err := Load(opts); err != nil {
			b.Fatal(err)
		}
	}
}

// TestFastParseWithoutStaysInItsSection: a skipped section ends only at
// the next top-level key, and a line of it that goes on over the next
// (a flow collection, a quoted scalar, which YAML lets continue at no
// indent) leaves the file to a full parse, so that no line of the section
// is ever read as a setting of the file's own (review of 94399b3); the
// example config, whose budgets are one line each, stays on the fast path.
func TestFastParseWithoutStaysInItsSection(t *testing.T) {
	for _, text := range []string{
		"cooldown:\n  actions:\n    restart: {field: restarts,\nlimit: 2}\n",
		"cooldown:\n  actions:\n    restart: [a,\nb]\n",
		"cooldown:\n  x: \"a long\nhooks: x\"\n",
		"cooldown:\n  x: 'it''s\nhooks: x'\n",
		"cooldown:\n  x: \"a \\\" b\nhooks: x\"\n",
		"cooldown: {retention: 48h,\nhooks: []}\n",
		"hooks:\ncooldown:\n- match: \"*\"\n  failure_threshold: 1\n",
		"cooldown:\n  x: !tag \"a\nhooks: x\"\n",
	} {
		if _, ok := fastParseWithout([]byte(text), "cooldown"); ok {
			t.Errorf("fastParseWithout took %q", text)
		}
	}
	for _, text := range []string{
		"cooldown:\n  x: don't [stop] {it}   # it's fine\n  y: a[1]\nhooks: []\n",
		"cooldown:\n  x: 'it''s [' # ]\n  y: \"\\\" {\"\nhooks: []\n",
		"cooldown:\n  patterns:\n    - {regex: '^a (?P<s>[\\w.]+)\\b', action: restart}\nhooks: []\n",
	} {
		doc, ok := fastParseWithout([]byte(text), "cooldown")
		if !ok || doc == nil || len(doc.Content) != 2 || doc.Content[0].Value != "hooks" {
			t.Errorf("fastParseWithout(%q) = %v, %v; want the hooks member alone", text, doc, ok)
		}
	}
	// Whole Loads of such files, as guard run makes them, take the file as
	// a full Load does (they are valid YAML and valid settings).
	home := t.TempDir()
	for i, text := range []string{
		"circuit_breaker:\n  failure_threshold: 7\ncooldown:\n  actions:\n    restart: {field: restarts,\nlimit: 2}\n",
		"circuit_breaker:\n  failure_threshold: 7\ncooldown:\n  actions:\n    restart:\n      field: \"a long\nhooks: x\"\n",
	} {
		path := filepath.Join(home, fmt.Sprintf("%d.yaml", i))
		os.WriteFile(path, []byte(text), 0o600)
		opts := testOptions(home, path)
		opts.NoCooldown = true
		if c, err := Load(opts); err != nil || c.CircuitBreaker.FailureThreshold != 7 {
			t.Errorf("Load with NoCooldown of %q: %v", text, err)
		}
	}
	example, err := os.ReadFile("../guardrails.example.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := fastParseWithout(example, "cooldown"); !ok {
		t.Error("the example config left the fast path")
	}
}

// windowsVariants are data as a Windows editor, or git with autocrlf, may
// save it: with CRLF line ends, with a byte order mark, with both, and
// with LF and CRLF lines mixed.
func windowsVariants(data []byte) map[string][]byte {
	crlf := bytes.ReplaceAll(data, []byte("\n"), []byte("\r\n"))
	var mixed []byte
	for i, line := range bytes.SplitAfter(data, []byte("\n")) {
		if i%2 == 1 {
			line = bytes.Replace(line, []byte("\n"), []byte("\r\n"), 1)
		}
		mixed = append(mixed, line...)
	}
	bom := func(b []byte) []byte { return append([]byte("\ufeff"), b...) }
	return map[string][]byte{"CRLF": crlf, "BOM": bom(data), "BOM and CRLF": bom(crlf), "mixed": mixed}
}

// configCorpus is every config of the project, by name: the example, those
// of the end-to-end scripts, and the parser's and decoder's table cases.
func configCorpus(t *testing.T) map[string][]byte {
	t.Helper()
	corpus := map[string][]byte{}
	example, err := os.ReadFile("../guardrails.example.yaml")
	if err != nil {
		t.Fatal(err)
	}
	corpus["guardrails.example.yaml"] = example
	maps.Copy(corpus, scriptConfigs(t))
	for i, c := range fastParseCases {
		corpus[fmt.Sprintf("fastParseCases[%d]", i)] = []byte(c.yaml)
	}
	for i, c := range fastDecodeCases {
		corpus[fmt.Sprintf("fastDecodeCases[%d]", i)] = []byte(c.yaml)
	}
	return corpus
}

// TestFastParseWindowsFiles (issue 36): a config saved with CRLF line
// ends, a byte order mark or both goes the fast way exactly when it does
// with LF ends and no mark, and gives the tree and settings yaml.v3 gives
// for the same bytes; before, each went to yaml.v3, which guard does not
// link, so every hook call on Windows handed the call over to guard-cli.
func TestFastParseWindowsFiles(t *testing.T) {
	taken, all := 0, 0
	for name, lf := range configCorpus(t) {
		if bytes.Contains(lf, []byte("\r")) || bytes.Contains(lf, []byte("\ufeff")) {
			continue // one of the table's own Windows cases
		}
		fast := checkFastParse(t, lf)
		_, without := fastParseWithout(lf, "cooldown")
		decoded := checkFastDecode(t, lf)
		for how, data := range windowsVariants(lf) {
			all++
			if got := checkFastParse(t, data); got != fast {
				t.Errorf("%s with %s: fastParse took it: %v; with LF: %v", name, how, got, fast)
			} else if got {
				taken++
			}
			checkFastParseWithout(t, data)
			if _, got := fastParseWithout(data, "cooldown"); got != without {
				t.Errorf("%s with %s: fastParseWithout took it: %v; with LF: %v", name, how, got, without)
			}
			if got := checkFastDecode(t, data); got != decoded {
				t.Errorf("%s with %s: fastDecode took it: %v; with LF: %v", name, how, got, decoded)
			}
		}
	}
	t.Logf("%d of %d Windows variants went the fast way", taken, all)
}

// TestLoadWindowsFiles (issue 36): the example config saved on Windows
// loads, as guard run loads it, without the full YAML reader (which guard
// does not link), to the settings it has with LF ends.
func TestLoadWindowsFiles(t *testing.T) {
	example, err := os.ReadFile("../guardrails.example.yaml")
	if err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	path := filepath.Join(home, "guardrails.yaml")
	load := func(data []byte) (*Config, error) {
		t.Helper()
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		opts := testOptions(home, path)
		opts.NoCooldown = true
		return Load(opts)
	}
	want, err := load(example)
	if err != nil {
		t.Fatal(err)
	}
	defer RegisterYAML(yamlReader)
	RegisterYAML(nil) // as in guard
	for how, data := range windowsVariants(example) {
		got, err := load(data)
		if err != nil {
			t.Errorf("with %s: %v", how, err)
			continue
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("with %s: loaded\n%+v\nwith LF:\n%+v", how, got, want)
		}
	}
}

// scriptConfigs is every config file of the end-to-end scripts
// (tests/testdata/*.txtar), by "SCRIPT:FILE".
func scriptConfigs(t *testing.T) map[string][]byte {
	t.Helper()
	archives, err := filepath.Glob("../tests/testdata/*.txtar")
	if err != nil || len(archives) == 0 {
		t.Fatalf("no testscripts: %v", err)
	}
	configs := map[string][]byte{}
	for _, name := range archives {
		a, err := txtar.ParseFile(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range a.Files {
			if strings.HasSuffix(f.Name, ".yaml") {
				configs[filepath.Base(name)+":"+f.Name] = f.Data
			}
		}
	}
	return configs
}
