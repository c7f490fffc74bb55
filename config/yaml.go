package config

import (
	"errors"
	"reflect"
)

// A YAMLReader is the full YAML library (yaml.v3), for the configs guard's
// fast parser and decoder leave to it (anchors, tags, block scalars, a
// value they would refuse, ...) and for writing a config out (guard config
// show). config links none: package config/yamlv3 registers one when it is
// linked in (guard-cli, guard-pg and guard-web link it); guard, whose every
// hook call reads a config, does not, and hands a command whose config
// needs it over to guard-cli (ErrNeedsYAML).
type YAMLReader interface {
	// Parse parses data's first document (root is its document node,
	// with no content for an empty stream), and reports the second one,
	// if there is one that parses; err is a syntax error.
	Parse(data []byte) (root, second *Node, err error)
	// Decode decodes n into v as yaml.v3's Node.Decode does; a value of
	// the wrong type is a *DecodeErrors.
	Decode(n *Node, v any) error
	// Node returns the node a type's UnmarshalYAML(func(any) error) is
	// given, through the unmarshal function yaml.v3 passes it.
	Node(unmarshal func(any) error) (*Node, error)
	// Marshal writes v as YAML, indented by two spaces.
	Marshal(v any) ([]byte, error)
}

var yamlReader YAMLReader

// RegisterYAML links the full YAML reader in (package config/yamlv3 calls
// it when it is linked).
func RegisterYAML(r YAMLReader) { yamlReader = r }

// ErrNeedsYAML is the error of Load (and of writing a config out) for a
// config the fast parser and decoder cannot read, in a program that links
// no full YAML reader: guard hands the command over to guard-cli, which
// does.
var ErrNeedsYAML = errors.New("this config needs the full YAML reader, which this guard does not link (guard-cli does)")

// DecodeErrors are the values a decoder could not put into their settings
// (yaml.v3's TypeError): one message per value, "line N: cannot unmarshal
// ...".
type DecodeErrors struct{ Errors []string }

func (e *DecodeErrors) Error() string {
	msg := "yaml: unmarshal errors:"
	for _, s := range e.Errors {
		msg += "\n  " + s
	}
	return msg
}

// decodeYAML decodes n into v with the full YAML reader.
func decodeYAML(n *Node, v any) error {
	if yamlReader == nil {
		return ErrNeedsYAML
	}
	return yamlReader.Decode(n, v)
}

// marshalYAML writes v as YAML with the full YAML reader.
func marshalYAML(v any) ([]byte, error) {
	if yamlReader == nil {
		return nil, ErrNeedsYAML
	}
	return yamlReader.Marshal(v)
}

// A nodeDecoder is a setting's type that reads itself from a scalar node
// (a Duration, a Size, a Percent): fastDecode and, through their
// UnmarshalYAML, the full reader both use it.
type nodeDecoder interface {
	decodeNode(n *Node) error
}

var nodeDecoderType = reflect.TypeFor[nodeDecoder]()

// unmarshalWith is the UnmarshalYAML of a nodeDecoder: yaml.v3's older
// Unmarshaler interface, UnmarshalYAML(func(any) error) error, which config
// can implement without importing yaml.v3; the node comes through the
// full reader (YAMLReader.Node).
func unmarshalWith(d nodeDecoder, unmarshal func(any) error) error {
	if yamlReader == nil {
		return ErrNeedsYAML
	}
	n, err := yamlReader.Node(unmarshal)
	if err != nil {
		return err
	}
	return d.decodeNode(n)
}
