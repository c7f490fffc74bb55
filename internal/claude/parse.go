package claude

import (
	"bytes"
	"encoding/json"
	"fmt"

	"guard/internal/jsonx"
)

// A node is a JSON value and where it sits in the document. The rewrite
// edits the document's bytes in place, so everything it does not touch
// (key order, indentation, escapes, the final newline) stays as it was.
type node struct {
	kind       byte // '{', '[', '"', or 'v' for a number, true, false or null
	start, end int  // the value's bytes are doc[start:end]
	members    []member
	elems      []*node
}

type member struct {
	key   string
	value *node
}

// get returns the value of an object's member, or nil. Of several members
// of one name it returns the last, as JSON readers do.
func (n *node) get(key string) *node {
	if n == nil || n.kind != '{' {
		return nil
	}
	for i := len(n.members) - 1; i >= 0; i-- {
		if n.members[i].key == key {
			return n.members[i].value
		}
	}
	return nil
}

// count returns how many members of an object are named key: JSON readers
// take the last of several, so a hook with two is not rewritten.
func (n *node) count(key string) int {
	c := 0
	if n != nil && n.kind == '{' {
		for _, m := range n.members {
			if m.key == key {
				c++
			}
		}
	}
	return c
}

// A SyntaxError is a settings file that is not JSON, with where.
type SyntaxError struct {
	Line, Column int
	Msg          string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("line %d, column %d: %s", e.Line, e.Column, e.Msg)
}

// position turns a byte offset into a line and column, counting from 1.
func position(doc []byte, off int) (int, int) {
	off = min(off, len(doc))
	line := 1 + bytes.Count(doc[:off], []byte("\n"))
	col := off - bytes.LastIndexByte(doc[:off], '\n')
	return line, col
}

// parse parses doc, which must be one JSON value, recording spans.
func parse(doc []byte) (*node, error) {
	if !json.Valid(doc) {
		var v any
		err := json.Unmarshal(doc, &v)
		off := len(doc)
		if se, ok := err.(*json.SyntaxError); ok {
			off = int(se.Offset)
		}
		line, col := position(doc, max(off-1, 0))
		msg := "not valid JSON"
		if err != nil {
			msg = err.Error()
		}
		return nil, &SyntaxError{Line: line, Column: col, Msg: msg}
	}
	return build(doc, bytes.TrimSpace(doc)), nil
}

// build makes the node of v, a value inside doc (a subslice of it), with
// statefile's scanner, the one JSON scanner guard has. doc is valid JSON.
func build(doc, v []byte) *node {
	start := cap(doc) - cap(v) // v's offset in doc
	n := &node{start: start, end: start + len(v), kind: 'v'}
	switch v[0] {
	case '{':
		n.kind = '{'
		ms, _ := jsonx.ObjectMembers(v)
		for _, m := range ms {
			n.members = append(n.members, member{key: m.Key, value: build(doc, m.Value)})
		}
	case '[':
		n.kind = '['
		es, _ := jsonx.Elements(v)
		for _, e := range es {
			n.elems = append(n.elems, build(doc, e))
		}
	case '"':
		n.kind = '"'
	}
	return n
}

// str decodes a string node.
func (n *node) str(doc []byte) (string, bool) {
	if n == nil || n.kind != '"' {
		return "", false
	}
	s, err := jsonx.ParseString(doc[n.start:n.end])
	return s, err == nil
}
