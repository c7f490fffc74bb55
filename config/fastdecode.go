package config

import (
	"reflect"
	"strconv"
	"strings"
	"sync"
)

// fastDecode decodes the settings of a tree fastParse built into f, for
// the values config files hold: plain keys, strings, decimal whole numbers,
// true and false, durations, sizes and shares (the types' own
// UnmarshalYAML), lists and mappings of those. It reports false for
// anything else, and for anything that would be an error (a key guard
// does not know, a value of the wrong kind, a key set twice, a value its
// type refuses); then checkKeys and yaml.v3's Node.Decode read the tree
// as they always did, and say what is wrong where. Whatever it decodes,
// it decodes as yaml.v3 would, and checkKeys would have let it through:
// TestFastDecodeMatchesYAML and FuzzFastDecode hold it to that.
//
// It exists for speed: yaml.v3's decoder, with its reflection on every
// node and its check of every key before it (checkKeys), took about a
// quarter of the config's cost in a cold guard call (bench/causes.md).
func fastDecode(doc *Node, f *fileFields) bool {
	var d fastDecoder
	return d.value(doc, reflect.ValueOf(f).Elem())
}

type fastDecoder struct{}

// value decodes n into v, which is settable.
func (d *fastDecoder) value(n *Node, v reflect.Value) bool {
	if n.Anchor != "" || n.Kind == AliasNode {
		return false
	}
	plain := n.Kind == ScalarNode && n.Tag == "" && n.Style == 0
	if n.Kind == ScalarNode && !plain && n.Tag != "!!str" {
		return false // null (fastParse's empty value), or a tag of its own
	}
	if plain && (nullValue(n.Value) || n.Value == "<<") {
		return false
	}
	if v.Kind() == reflect.Pointer {
		p := reflect.New(v.Type().Elem())
		if !d.value(n, p.Elem()) {
			return false
		}
		v.Set(p)
		return true
	}
	if v.CanAddr() && v.Addr().Type().Implements(nodeDecoderType) {
		if n.Kind != ScalarNode {
			return false
		}
		return v.Addr().Interface().(nodeDecoder).decodeNode(n) == nil
	}
	switch v.Kind() {
	case reflect.Struct:
		return d.mapping(n, v)
	case reflect.Map:
		return d.dict(n, v)
	case reflect.Slice:
		return d.list(n, v)
	case reflect.String:
		if n.Kind != ScalarNode {
			return false
		}
		v.SetString(n.Value)
		return true
	case reflect.Int:
		// A plain decimal number is what yaml.v3 resolves to an int.
		if !plain || !decimal(n.Value) {
			return false
		}
		i, err := strconv.Atoi(n.Value)
		if err != nil {
			return false
		}
		v.SetInt(int64(i))
		return true
	case reflect.Bool:
		if !plain {
			return false
		}
		switch n.Value {
		case "true":
			v.SetBool(true)
			return true
		case "false":
			v.SetBool(false)
			return true
		}
	}
	return false
}

// decimal reports whether s is a whole number written the one way every
// YAML reader agrees on: an optional minus and decimal digits, without a
// leading zero (yaml.v3 reads 010 as 8, and 1_000 as 1000).
func decimal(s string) bool {
	s = strings.TrimPrefix(s, "-")
	if s == "" || len(s) > 18 || (s[0] == '0' && len(s) > 1) {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// mapping decodes a mapping into the struct v, by the fields' yaml names.
func (d *fastDecoder) mapping(n *Node, v reflect.Value) bool {
	if n.Kind != MappingNode {
		return false
	}
	fields := fieldsOf(v.Type())
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := n.Content[i]
		if !plainKey(k) || seenBefore(n, i) {
			return false
		}
		index, ok := fields[k.Value]
		if !ok {
			return false
		}
		if !d.value(n.Content[i+1], v.FieldByIndex(index)) {
			return false
		}
	}
	return true
}

// dict decodes a mapping into the map v, whose keys are strings.
func (d *fastDecoder) dict(n *Node, v reflect.Value) bool {
	if n.Kind != MappingNode || v.Type().Key().Kind() != reflect.String {
		return false
	}
	m := reflect.MakeMapWithSize(v.Type(), len(n.Content)/2)
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := n.Content[i]
		if !plainKey(k) || seenBefore(n, i) {
			return false
		}
		e := reflect.New(v.Type().Elem()).Elem()
		if !d.value(n.Content[i+1], e) {
			return false
		}
		m.SetMapIndex(reflect.ValueOf(k.Value).Convert(v.Type().Key()), e)
	}
	v.Set(m)
	return true
}

// list decodes a sequence into the slice v.
func (d *fastDecoder) list(n *Node, v reflect.Value) bool {
	if n.Kind != SequenceNode {
		return false
	}
	s := reflect.MakeSlice(v.Type(), len(n.Content), len(n.Content))
	for i, item := range n.Content {
		if !d.value(item, s.Index(i)) {
			return false
		}
	}
	v.Set(s)
	return true
}

// nullValue reports whether a plain scalar's value is YAML's null.
func nullValue(v string) bool {
	switch v {
	case "", "~", "null", "Null", "NULL":
		return true
	}
	return false
}

// plainKey reports whether k is a key fastDecode reads as it is: a string,
// quoted, or plain and starting with a letter or _ (which yaml.v3 resolves
// to a string unless it is one of its words for true, false or null).
func plainKey(k *Node) bool {
	if k.Kind != ScalarNode || k.Anchor != "" {
		return false
	}
	if k.Tag == "!!str" {
		return true
	}
	if k.Tag != "" || k.Style != 0 || k.Value == "" {
		return false
	}
	switch c := k.Value[0]; {
	case c == '_', c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z':
	default:
		return false
	}
	switch k.Value {
	case "true", "True", "TRUE", "false", "False", "FALSE", "null", "Null", "NULL":
		return false
	}
	return true
}

// seenBefore reports whether the key at Content[i] of the mapping n is
// also an earlier key of it: yaml.v3 refuses a key set twice.
func seenBefore(n *Node, i int) bool {
	for j := 0; j < i; j += 2 {
		if n.Content[j].Value == n.Content[i].Value {
			return true
		}
	}
	return false
}

// fieldsOf returns the fields of the struct type t by their yaml names,
// those of its inline structs included, as the index FieldByIndex takes.
func fieldsOf(t reflect.Type) map[string][]int {
	if m, ok := fieldCache.Load(t); ok {
		return m.(map[string][]int)
	}
	m := map[string][]int{}
	var walk func(t reflect.Type, prefix []int)
	walk = func(t reflect.Type, prefix []int) {
		for i := range t.NumField() {
			f := t.Field(i)
			index := append(prefix[:len(prefix):len(prefix)], i)
			name, opts, _ := strings.Cut(f.Tag.Get("yaml"), ",")
			if opts == "inline" {
				walk(f.Type, index)
				continue
			}
			if name != "" && name != "-" {
				m[name] = index
			}
		}
	}
	walk(t, nil)
	fieldCache.Store(t, m)
	return m
}

var fieldCache sync.Map // reflect.Type to map[string][]int
