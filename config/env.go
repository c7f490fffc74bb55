package config

import (
	"math"
	"reflect"
	"strconv"
	"strings"
)

// envSections are the sections a GUARDRAILS_ variable can address, longest
// first. GUARDRAILS_CIRCUIT_BREAKER_FAILURE_THRESHOLD sets
// circuit_breaker.failure_threshold; GUARDRAILS_STATE_FILE sets state_file.
var envSections = []string{"circuit_breaker", "cooldown", "logging"}

// loadEnv applies GUARDRAILS_* variables, the way the Python guardrails
// read them. Lists (exclude, exit codes) are comma-separated. Variables
// that name no setting guard knows are ignored, as the Python tool ignores
// them, because they may be meant for it.
func (c *Config) loadEnv(environ []string, opts Options) error {
	root, names, err := envTree(environ)
	if err != nil || root == nil {
		return err
	}
	var f fileFields
	if !fastDecode(root, &f) {
		f = fileFields{}
		if err := decodeYAML(root, &f); err != nil {
			return decodeError(err, func(line int) string { return names[line] })
		}
	}
	at := func(section string) locator {
		return func(key string) string {
			return "GUARDRAILS_" + strings.ToUpper(strings.ReplaceAll(joinKey(section, key), ".", "_"))
		}
	}
	if err := c.apply(&f, at); err != nil {
		return err
	}
	// A relative path from the environment is relative to where guard runs,
	// as a shell would take it.
	return c.expandPaths(&f, at, func(p string) string { return p }, opts)
}

// envTree builds the tree of settings the GUARDRAILS_* variables in
// environ give, in the shape of guardrails.yaml (nil if none does). A
// node's Line is an index into names, so that an error can name the
// variable it came from.
func envTree(environ []string) (root *Node, names []string, err error) {
	root = &Node{Kind: MappingNode}
	sections := map[string]*Node{}
	names = []string{""}
	var top map[string]reflect.Type // found when a variable needs it
	for _, kv := range environ {
		name, value, _ := strings.Cut(kv, "=")
		rest, ok := strings.CutPrefix(name, "GUARDRAILS_")
		if !ok {
			continue
		}
		if top == nil {
			top = yamlFields(reflect.TypeFor[fileFields]())
		}
		key := strings.ToLower(rest)
		section, fields := "", top
		for _, s := range envSections {
			if k, ok := strings.CutPrefix(key, s+"_"); ok {
				section, key = s, k
				fields = yamlFields(top[s].Elem())
				break
			}
		}
		t, ok := fields[key]
		if !ok {
			continue
		}
		for t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		line := len(names)
		names = append(names, name)
		val := envValue(value, t, line)
		if val == nil {
			continue
		}
		if bad := notWhole(val, t); bad != "" {
			return nil, nil, invalid("%s: %q is not a whole number%s", name, bad, wholeHint(key, name))
		}
		parent := root
		if section != "" {
			if sections[section] == nil {
				sections[section] = &Node{Kind: MappingNode}
				root.Content = append(root.Content, &Node{Kind: ScalarNode, Value: section}, sections[section])
			}
			parent = sections[section]
		}
		parent.Content = append(parent.Content, &Node{Kind: ScalarNode, Value: key, Line: line}, val)
	}
	if len(root.Content) == 0 {
		return nil, nil, nil
	}
	return root, names, nil
}

// envValue turns a variable's value into a YAML node for a field of type t,
// or nil for a type that cannot be set from the environment.
func envValue(value string, t reflect.Type, line int) *Node {
	scalar := func(v string) *Node {
		return &Node{Kind: ScalarNode, Value: v, Line: line}
	}
	switch t.Kind() {
	case reflect.Bool:
		// The Python tool's spellings of true and false.
		switch strings.ToLower(strings.TrimSpace(value)) {
		case "1", "true", "yes", "on":
			value = "true"
		case "0", "false", "no", "off":
			value = "false"
		}
		return scalar(value)
	case reflect.Slice:
		seq := &Node{Kind: SequenceNode, Line: line}
		for _, item := range strings.Split(value, ",") {
			if item = strings.TrimSpace(item); item != "" {
				seq.Content = append(seq.Content, scalar(item))
			}
		}
		return seq
	case reflect.Struct, reflect.Map:
		return nil
	}
	n := scalar(value)
	if t.Kind() == reflect.String {
		n.Tag = "!!str"
	}
	return n
}

// notWhole returns the value n gives a setting of type t (an int, or a list
// of ints) that is a number but not a whole one, such as 1.5; "" if there is
// none. yaml.v3 would truncate 1.5 to 1 without a word, so the config file
// and the environment both refuse it, as they refuse any bad value. A
// whole number written as a float (2.0, 1e3) is accepted; a value that is
// not a number at all is left to the decoder, which refuses it.
func notWhole(n *Node, t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if n.Kind == AliasNode && n.Alias != nil {
		n = n.Alias
	}
	switch {
	case t.Kind() == reflect.Int && n.Kind == ScalarNode:
		if n.ShortTag() != "!!float" {
			return ""
		}
		f, err := strconv.ParseFloat(strings.ReplaceAll(n.Value, "_", ""), 64)
		if err != nil || f != math.Trunc(f) || math.Abs(f) > 1<<53 {
			return n.Value
		}
	case t.Kind() == reflect.Slice && n.Kind == SequenceNode:
		for _, item := range n.Content {
			if bad := notWhole(item, t.Elem()); bad != "" {
				return bad
			}
		}
	}
	return ""
}

// wholeHint is what an error about a fraction given to setting key (named
// where the user wrote it) suggests: cooldown_seconds has a sibling that
// takes fractions.
func wholeHint(key, written string) string {
	if !strings.HasSuffix(key, "cooldown_seconds") {
		return ""
	}
	if strings.HasPrefix(written, "GUARDRAILS_") {
		return "; for fractions of a second set " + strings.TrimSuffix(written, "_SECONDS") + " instead (1500ms, 1.5s)"
	}
	return "; for fractions of a second use cooldown instead (1500ms, 1.5s)"
}
