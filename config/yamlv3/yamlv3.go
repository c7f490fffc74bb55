// Package yamlv3 is the full YAML reader of package config: gopkg.in/yaml.v3,
// for the configs guard's fast parser and decoder leave to it and for
// writing a config out. Linking it registers it (config.RegisterYAML):
// guard-cli, guard-pg and guard-web link it, guard does not, so that no
// hook call pays for yaml.v3's start-up (its init compiles a regular
// expression and builds its tables).
package yamlv3

import (
	"bytes"
	"errors"
	"io"

	"gopkg.in/yaml.v3"

	"guard/config"
)

func init() { config.RegisterYAML(reader{}) }

type reader struct{}

func (reader) Parse(data []byte) (root, second *config.Node, err error) {
	var r yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&r); err != nil && err != io.EOF {
		return nil, nil, err
	}
	root = From(&r)
	var s yaml.Node
	if err := dec.Decode(&s); err == nil {
		second = From(&s)
	}
	return root, second, nil
}

func (reader) Decode(n *config.Node, v any) error {
	err := To(n).Decode(v)
	var te *yaml.TypeError
	if errors.As(err, &te) {
		return &config.DecodeErrors{Errors: te.Errors}
	}
	return err
}

// captured takes the node yaml.v3 hands an Unmarshaler.
type captured struct{ n *yaml.Node }

func (c *captured) UnmarshalYAML(n *yaml.Node) error {
	c.n = n
	return nil
}

func (reader) Node(unmarshal func(any) error) (*config.Node, error) {
	var c captured
	if err := unmarshal(&c); err != nil {
		return nil, err
	}
	return From(c.n), nil
}

func (reader) Marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	err := enc.Close()
	return buf.Bytes(), err
}

// From returns yaml.v3's tree n as config's, field for field (comments
// aside), aliases pointing to the copies of their targets.
func From(n *yaml.Node) *config.Node {
	seen := map[*yaml.Node]*config.Node{}
	var from func(n *yaml.Node) *config.Node
	from = func(n *yaml.Node) *config.Node {
		if n == nil {
			return nil
		}
		if c, ok := seen[n]; ok {
			return c
		}
		c := &config.Node{Kind: config.Kind(n.Kind), Style: config.Style(n.Style), Tag: n.Tag, Value: n.Value,
			Anchor: n.Anchor, Line: n.Line, Column: n.Column}
		seen[n] = c
		c.Alias = from(n.Alias)
		if n.Content != nil {
			c.Content = make([]*config.Node, len(n.Content))
			for i, k := range n.Content {
				c.Content[i] = from(k)
			}
		}
		return c
	}
	return from(n)
}

// To returns config's tree n as yaml.v3's (see From).
func To(n *config.Node) *yaml.Node {
	seen := map[*config.Node]*yaml.Node{}
	var to func(n *config.Node) *yaml.Node
	to = func(n *config.Node) *yaml.Node {
		if n == nil {
			return nil
		}
		if y, ok := seen[n]; ok {
			return y
		}
		y := &yaml.Node{Kind: yaml.Kind(n.Kind), Style: yaml.Style(n.Style), Tag: n.Tag, Value: n.Value,
			Anchor: n.Anchor, Line: n.Line, Column: n.Column}
		seen[n] = y
		y.Alias = to(n.Alias)
		if n.Content != nil {
			y.Content = make([]*yaml.Node, len(n.Content))
			for i, k := range n.Content {
				y.Content[i] = to(k)
			}
		}
		return y
	}
	return to(n)
}
