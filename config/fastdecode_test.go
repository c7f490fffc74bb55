package config

import (
	"os"
	"reflect"
	"regexp/syntax"
	"slices"
	"testing"

	"gopkg.in/yaml.v3"
)

// checkFastDecode fails t if fastDecode decodes data's tree (as fastParse
// or yaml.v3 builds it) into anything but what yaml.v3's Node.Decode
// gives, or decodes a tree checkKeys finds fault with; it reports whether
// fastDecode took it.
func checkFastDecode(t *testing.T, data []byte) bool {
	t.Helper()
	doc, ok := fastParse(data)
	if !ok {
		var err error
		if doc, err = yamlV3Doc(data); err != nil {
			return false
		}
	}
	if doc == nil || doc.Kind != MappingNode {
		return false
	}
	var fast fileFields
	if !fastDecode(doc, &fast) {
		return false
	}
	if err := checkKeys(doc, reflect.TypeFor[fileFields](), "", map[string]int{}, "f"); err != nil {
		t.Fatalf("fastDecode took what checkKeys refuses (%v):\n%s", err, data)
	}
	var v3 fileFields
	if err := decodeYAML(doc, &v3); err != nil {
		t.Fatalf("fastDecode took what yaml.v3 refuses (%v):\n%s", err, data)
	}
	if !reflect.DeepEqual(fast, v3) {
		a, _ := yaml.Marshal(fast)
		b, _ := yaml.Marshal(v3)
		t.Fatalf("fastDecode gives\n%s\nyaml.v3 gives\n%s\nfor:\n%s", a, b, data)
	}
	return true
}

var fastDecodeCases = []struct {
	yaml string
	fast bool // fastDecode takes it (else checkKeys and yaml.v3 do)
}{
	{"lock_timeout: 2s\nrecord_timeout: 10s\nnotice: auto\n", true},
	{"circuit_breaker: {enabled: true, failure_threshold: 5, cooldown: 1m}\n", true},
	{"circuit_breaker:\n  success_exit_codes: [0, 3]\n  exclude: ['a', \"b c\", d*]\n  failure_rate: 50%\n", true},
	{"hooks:\n  - match: \"*lint*\"\n    failure_threshold: 5\n    timeout: 30s\n  - regex: '^uv run'\n    cooldown: 1m\n", true},
	{"logging: {max_size: 10MiB, max_files: 3}\n", true},
	{"cooldown:\n  actions:\n    restart: {field: restarts, limit: 2, window: 4h}\n  patterns:\n    - {regex: 'a(?P<service>b)', action: restart}\n", true},
	{"state_file: 12\n", true},                            // a number as a string: its text
	{"notice: true\n", true},                              // so is a boolean
	{"circuit_breaker:\n  failure_threshold: -1\n", true}, // apply refuses it, not the decoder
	{"circuit_breaker: {failure_threshold: -1}\n", false}, // yaml.v3 parses it: its tree goes its way
	{"circuit_breaker: {success_exit_codes: [], exclude: []}\nhooks: []\ncooldown: {actions: {}, patterns: []}\n", true},
	{"hooks:\n  -\n    match: x\n", true},
	{"unknown: 1\n", false},                                // checkKeys names it
	{"circuit_breaker: {failure_threshold: 010}\n", false}, // yaml.v3 reads 8
	{"circuit_breaker: {failure_threshold: 1_000}\n", false},
	{"circuit_breaker: {failure_threshold: 0x10}\n", false},
	{"circuit_breaker: {failure_threshold: 1.5}\n", false},
	{"circuit_breaker: {failure_threshold: x}\n", false},
	{"circuit_breaker: {enabled: yes}\n", false},
	{"circuit_breaker: {enabled: True}\n", false},
	{"circuit_breaker: {timeout: 300}\n", false}, // Duration refuses it
	{"circuit_breaker: {timeout: ~}\n", false},   // null
	{"circuit_breaker:\n", false},                // null
	{"notice: auto\nnotice: none\n", false},      // a key set twice
	{"circuit_breaker: 3\n", false},
	{"hooks: {match: x}\n", false},
	{"cooldown: {actions: {1: {field: x}}}\n", false}, // a number as an action's name
	{"cooldown: {actions: [x]}\n", false},
	{"<<: {notice: auto}\n", false},
}

func TestFastDecode(t *testing.T) {
	for _, c := range fastDecodeCases {
		if got := checkFastDecode(t, []byte(c.yaml)); got != c.fast {
			t.Errorf("fastDecode took %q: %v; want %v", c.yaml, got, c.fast)
		}
	}
}

// TestFastDecodeMatchesYAML checks fastDecode against yaml.v3 on every
// config file of the project, and that the example, which every figure in
// BENCHMARKS.md is measured with, goes the fast way.
func TestFastDecodeMatchesYAML(t *testing.T) {
	example, err := os.ReadFile("../guardrails.example.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if !checkFastDecode(t, example) {
		t.Error("fastDecode leaves guardrails.example.yaml to yaml.v3")
	}
	fast, all := 0, 0
	for _, data := range scriptConfigs(t) {
		all++
		if checkFastDecode(t, data) {
			fast++
		}
	}
	t.Logf("%d of the %d config files in tests/testdata went the fast way", fast, all)
}

func FuzzFastDecode(f *testing.F) {
	for _, c := range fastDecodeCases {
		f.Add([]byte(c.yaml))
	}
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
		checkFastDecode(t, data)
	})
}

// TestBuiltinPatternsParse: the patterns compilePattern takes without
// parsing them, guard's own, do parse, with their service group.
func TestBuiltinPatternsParse(t *testing.T) {
	ps := defaultPatterns()
	for _, preset := range Presets {
		ps = append(ps, preset().Patterns...)
	}
	for _, p := range ps {
		if !builtinPattern(p.Regex) {
			t.Errorf("builtinPattern(%q) = false", p.Regex)
		}
		re, err := syntax.Parse(p.Regex, syntax.Perl)
		if err != nil {
			t.Errorf("built-in pattern %q: %v", p.Regex, err)
			continue
		}
		if names := re.CapNames(); !slices.Contains(names, "service") && !slices.Contains(names, "services") {
			t.Errorf("built-in pattern %q has no service group", p.Regex)
		}
	}
	if builtinPattern(`^docker restart (?P<x>\\w+)`) {
		t.Error("builtinPattern takes a pattern of the user's")
	}
}

// TestFastDecodeMatchesYAMLOnTheEnvironment: the trees GUARDRAILS_*
// variables give decode the same both ways too.
func TestFastDecodeMatchesYAMLOnTheEnvironment(t *testing.T) {
	for _, environ := range [][]string{
		{"GUARDRAILS_CIRCUIT_BREAKER_ENABLED=false"},
		{"GUARDRAILS_CIRCUIT_BREAKER_ENABLED=0", "GUARDRAILS_LOCK_TIMEOUT=5s", "GUARDRAILS_STATE_FILE=/x/y.json"},
		{"GUARDRAILS_CIRCUIT_BREAKER_FAILURE_THRESHOLD=7", "GUARDRAILS_CIRCUIT_BREAKER_COOLDOWN_SECONDS=60",
			"GUARDRAILS_CIRCUIT_BREAKER_EXCLUDE=a, b", "GUARDRAILS_CIRCUIT_BREAKER_IGNORE_EXIT_CODES=2,3",
			"GUARDRAILS_CIRCUIT_BREAKER_TIMEOUT=30s", "GUARDRAILS_LOGGING_LEVEL=DEBUG", "GUARDRAILS_LOGGING_MAX_SIZE=1MiB"},
		{"GUARDRAILS_CIRCUIT_BREAKER_FAILURE_THRESHOLD=07"},
		{"GUARDRAILS_CIRCUIT_BREAKER_FAILURE_THRESHOLD=x"},
		{"GUARDRAILS_CIRCUIT_BREAKER_ENABLED=maybe"},
		{"GUARDRAILS_NOTICE=123", "GUARDRAILS_FAILURE_MODE=true"},
		{"GUARDRAILS_CIRCUIT_BREAKER_FAILURE_RATE=50%", "GUARDRAILS_CIRCUIT_BREAKER_SUCCESS_EXIT_CODES="},
	} {
		root, _, err := envTree(environ)
		if err != nil || root == nil {
			t.Fatalf("envTree(%q) = %v, %v", environ, root, err)
		}
		var fast, v3 fileFields
		if !fastDecode(root, &fast) {
			continue
		}
		if err := decodeYAML(root, &v3); err != nil {
			t.Errorf("fastDecode took %q, which yaml.v3 refuses: %v", environ, err)
			continue
		}
		if !reflect.DeepEqual(fast, v3) {
			a, _ := yaml.Marshal(fast)
			b, _ := yaml.Marshal(v3)
			t.Errorf("for %q fastDecode gives\n%s\nyaml.v3 gives\n%s", environ, a, b)
		}
	}
}
