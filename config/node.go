package config

import (
	"strconv"
	"strings"
	"time"
)

// A Node is a node of a YAML document as guard reads a config: the tree
// guard's fast parser builds (fastParse) for the plain YAML config files
// are written in, and the one the full YAML reader's tree is turned into
// (see YAMLReader). Its fields are those of yaml.v3's Node that decoding a
// config uses, with the same meanings and values, so that the two turn
// into each other field by field; config itself links no YAML library, so
// that guard run, which reads a plain config on every call, pays for none.
type Node struct {
	Kind    Kind
	Style   Style
	Tag     string // "" for a plain scalar fastParse built: see ShortTag
	Value   string
	Anchor  string
	Alias   *Node // an AliasNode's target
	Content []*Node
	Line    int
	Column  int
}

// A Kind is what a Node is: yaml.v3's Kind, with the same values.
type Kind uint32

const (
	DocumentNode Kind = 1 << iota
	SequenceNode
	MappingNode
	ScalarNode
	AliasNode
)

// A Style is how a Node was written: yaml.v3's Style, with the same values.
type Style uint32

const (
	TaggedStyle Style = 1 << iota
	DoubleQuotedStyle
	SingleQuotedStyle
	LiteralStyle
	FoldedStyle
	FlowStyle
)

// The tags guard's decoding tells apart.
const (
	nullTag  = "!!null"
	boolTag  = "!!bool"
	strTag   = "!!str"
	intTag   = "!!int"
	floatTag = "!!float"
	mapTag   = "!!map"
	seqTag   = "!!seq"
	mergeTag = "!!merge"
	timeTag  = "!!timestamp"
)

// ShortTag returns n's tag in its short form (!!str, !!int, ...), resolving
// a plain scalar's as yaml.v3 does (FuzzShortTagMatchesYAML).
func (n *Node) ShortTag() string {
	if n.Kind == ScalarNode && (n.Tag == "" || n.Tag == "!") && n.Style&(SingleQuotedStyle|DoubleQuotedStyle|LiteralStyle|FoldedStyle) != 0 {
		return strTag
	}
	if n.Tag == "" || n.Tag == "!" {
		switch n.Kind {
		case MappingNode:
			return mapTag
		case SequenceNode:
			return seqTag
		case AliasNode:
			if n.Alias != nil {
				return n.Alias.ShortTag()
			}
		case ScalarNode:
			return resolveTag(n.Value)
		}
		return ""
	}
	if t, ok := strings.CutPrefix(n.Tag, "tag:yaml.org,2002:"); ok {
		return "!!" + t
	}
	return n.Tag
}

// resolveTag is the tag yaml.v3 resolves the plain scalar s to.
func resolveTag(s string) string {
	switch s {
	case "true", "True", "TRUE", "false", "False", "FALSE":
		return boolTag
	case "", "~", "null", "Null", "NULL":
		return nullTag
	case ".nan", ".NaN", ".NAN", ".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF", "-.inf", "-.Inf", "-.INF":
		return floatTag
	}
	switch c := s[0]; {
	case c == '.':
		if _, err := strconv.ParseFloat(s, 64); err == nil {
			return floatTag
		}
	case c == '+' || c == '-' || c >= '0' && c <= '9':
		if timestamp(s) {
			return timeTag
		}
		plain := strings.ReplaceAll(s, "_", "")
		if _, err := strconv.ParseInt(plain, 0, 64); err == nil {
			return intTag
		}
		if _, err := strconv.ParseUint(plain, 0, 64); err == nil {
			return intTag
		}
		if yamlFloat(plain) {
			if _, err := strconv.ParseFloat(plain, 64); err == nil {
				return floatTag
			}
		}
		for _, p := range []struct {
			prefix string
			base   int
		}{{"0b", 2}, {"-0b", 2}, {"0o", 8}, {"-0o", 8}} {
			if digits, ok := strings.CutPrefix(plain, p.prefix); ok {
				if p.prefix[0] == '-' {
					digits = "-" + digits
				}
				if _, err := strconv.ParseInt(digits, p.base, 64); err == nil {
					return intTag
				}
				if _, err := strconv.ParseUint(digits, p.base, 64); err == nil && p.prefix[0] != '-' {
					return intTag
				}
			}
		}
	}
	return strTag
}

// yamlFloat reports whether s is written as yaml.v3 takes a float:
// [-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?
func yamlFloat(s string) bool {
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	digits := func() int {
		n := 0
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
			n++
		}
		return n
	}
	if i < len(s) && s[i] == '.' {
		i++
		if digits() == 0 {
			return false
		}
	} else {
		if digits() == 0 {
			return false
		}
		if i < len(s) && s[i] == '.' {
			i++
			digits()
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if digits() == 0 {
			return false
		}
	}
	return i == len(s)
}

// timestamp reports whether yaml.v3 reads s as a timestamp: YYYY-... in one
// of its formats.
func timestamp(s string) bool {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	if i != 4 || i == len(s) || s[i] != '-' {
		return false
	}
	for _, layout := range []string{"2006-1-2T15:4:5.999999999Z07:00", "2006-1-2t15:4:5.999999999Z07:00", "2006-1-2 15:4:5.999999999", "2006-1-2"} {
		if _, err := time.Parse(layout, s); err == nil {
			return true
		}
	}
	return false
}

// dropMember removes the member key from the mapping n, if it has it.
func (n *Node) dropMember(key string) {
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Kind == ScalarNode && n.Content[i].Value == key {
			n.Content = append(n.Content[:i:i], n.Content[i+2:]...)
			i -= 2
		}
	}
}
