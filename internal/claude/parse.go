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

// bom is the UTF-8 byte order mark, which Windows editors put at the start
// of a file. Claude Code reads a settings file that starts with one (its
// CLI does, at least), so guard does too, and keeps it.
var bom = []byte("\xef\xbb\xbf")

// parse parses doc, which must be one JSON value after an optional UTF-8
// byte order mark, recording spans (offsets into doc, the mark included).
func parse(doc []byte) (*node, error) {
	body := bytes.TrimPrefix(doc, bom)
	skip := len(doc) - len(body)
	if bytes.HasPrefix(body, []byte("\xff\xfe")) || bytes.HasPrefix(body, []byte("\xfe\xff")) {
		return nil, &SyntaxError{Line: 1, Column: 1, Msg: "the file is UTF-16 (it starts with a UTF-16 byte order mark); save it as UTF-8"}
	}
	if !json.Valid(body) {
		var v any
		err := json.Unmarshal(body, &v)
		off := len(body)
		if se, ok := err.(*json.SyntaxError); ok {
			off = int(se.Offset)
		}
		line, col := position(body, max(off-1, 0))
		msg := "not valid JSON"
		if err != nil {
			msg = err.Error()
		}
		if at := max(off-1, 0); at < len(body) && bytes.HasPrefix(body[at:], bom) {
			msg = "a byte order mark (EF BB BF) where JSON is expected (remove it)"
		}
		return nil, &SyntaxError{Line: line, Column: col, Msg: msg}
	}
	return build(doc, bytes.TrimSpace(doc[skip:])), nil
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
