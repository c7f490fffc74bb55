package config

import (
	"bytes"
	"strings"
	"unicode/utf8"
)

// fastParse builds the node tree yaml.v3 would build for data, for the
// plain YAML that config files are written in: block mappings and
// sequences indented with spaces, one-line flow collections of scalars,
// plain and quoted one-line scalars, and comments. It reports false for
// anything else (anchors, tags, block or multi-line scalars, escapes,
// tabs, documents markers, ...), and then yaml.v3 parses the file.
// Files saved on Windows are read as they are: a leading UTF-8 byte order
// mark, which yaml.v3 skips, and CRLF line ends, which YAML reads as one
// line break (a lone CR, also a break to YAML, is left to yaml.v3).
//
// It exists for speed: BenchmarkParse (BENCHMARKS.md) measured 37 µs warm
// for the example config against yaml.v3's 252 µs, and about 0.12 ms
// against 0.45 ms in a cold guard call, some 7-9% of a closed call.
// Its trees are checked against yaml.v3's by TestFastParseMatchesYAML and
// FuzzFastParse.
//
// doc is the document's root node, nil for a file of comments only.
func fastParse(data []byte) (doc *Node, ok bool) { return fastParseWithout(data, "") }

// fastParseWithout is fastParse, leaving out the top-level key skip and its
// value ("": none): the lines from its own, at no indent, to the next at no
// indent (or the end) are not parsed, as if they were not there.
func fastParseWithout(data []byte, skip string) (doc *Node, ok bool) {
	// yaml.v3 skips a byte order mark that opens the stream, and counts no
	// line or column for it. (It is a slice: the common file, with none,
	// costs one comparison.)
	data = bytes.TrimPrefix(data, utf8BOM)
	if !plainText(data) {
		return nil, false
	}
	src := string(data)
	p := fastParser{lines: make([]fastLine, 0, bytes.Count(data, []byte{'\n'})+1)}
	skipping := false
	for no := 1; len(src) > 0; no++ {
		line := src
		if i := strings.IndexByte(src, '\n'); i >= 0 {
			line, src = src[:i], src[i+1:]
			// CRLF is one line break: plainText let a CR through only
			// before a LF, so a line holds none but this one, and no
			// scalar fastParse reads (all of one line) holds a CR.
			line = strings.TrimSuffix(line, "\r")
		} else {
			src = ""
		}
		text := strings.TrimLeft(line, " ")
		switch {
		case text == "" || text[0] == '#':
			continue
		case len(text) == len(line) && (strings.HasPrefix(text, "---") || strings.HasPrefix(text, "...") || text[0] == '%'):
			return nil, false // a document marker or directive
		}
		if skip != "" && len(text) == len(line) {
			// A top-level line: the skipped key's starts its lines, and
			// another key's ends them. Any other line at no indent after
			// them (a list item, a quoted key) is left to a full parse.
			was := skipping
			skipping = keyLength(text) == len(skip) && strings.HasPrefix(text, skip)
			if was && !skipping && keyLength(text) == 0 {
				return nil, false
			}
		}
		if skipping {
			if !flowClosed(text) {
				// A flow collection or quoted scalar that goes on over the
				// next line, which may be at no indent yet still the
				// skipped value's: only a full parse tells.
				return nil, false
			}
			continue
		}
		p.lines = append(p.lines, fastLine{no: no, indent: len(line) - len(text), text: text, raw: line})
	}
	if len(p.lines) == 0 {
		return nil, true
	}
	// Nodes come from one allocation: most lines hold a key and a value.
	p.nodes = make([]Node, 0, 2*len(p.lines)+8)
	if p.lines[0].indent != 0 || isSeqItem(p.lines[0].text) {
		return nil, false
	}
	root := p.block(0)
	if p.bad || p.i != len(p.lines) {
		return nil, false
	}
	return root, true
}

// flowClosed reports whether a line's text (its indent cut) leaves no flow
// collection ({...}, [...]) or quoted scalar open at its end. A quote or a
// bracket starts one only where YAML lets it start a node (after the
// line's start, ':', '-', '?', ',', '[' or '{' and a space or flow
// indicator), so "don't" or "a[1]" in a plain scalar open nothing; a #
// after a space, outside a scalar, starts a comment.
func flowClosed(text string) bool {
	depth := 0
	prev := byte(0) // the last byte before this one that is not a space; 0 at the start
	for i := 0; i < len(text); i++ {
		c := text[i]
		starts := prev == 0 || strings.IndexByte(":-?,[{", prev) >= 0
		switch {
		case c == ' ':
			continue
		case c == '#' && (i == 0 || text[i-1] == ' '):
			return depth == 0
		case (c == '\'' || c == '"') && starts:
			end := closingQuote(text, i)
			if end < 0 {
				return false
			}
			i = end
		case c == '!' && starts:
			return false // a tag: a full parse reads what it tags
		case (c == '[' || c == '{') && (starts || depth > 0):
			depth++
		case (c == ']' || c == '}') && depth > 0:
			depth--
		}
		prev = text[i]
	}
	return depth == 0
}

// closingQuote returns the index of the quote that closes the quoted
// scalar opening at text[open], or -1 if the line ends first: two single
// quotes are one quote inside single quotes, a backslash escapes inside
// double quotes.
func closingQuote(text string, open int) int {
	q := text[open]
	for i := open + 1; i < len(text); i++ {
		switch {
		case q == '"' && text[i] == '\\':
			i++
		case text[i] == q && q == '\'' && i+1 < len(text) && text[i+1] == '\'':
			i++
		case text[i] == q:
			return i
		}
	}
	return -1
}

// utf8BOM is the UTF-8 byte order mark, U+FEFF.
var utf8BOM = []byte{0xef, 0xbb, 0xbf}

// plainText reports whether data has only the characters fastParse
// handles the way yaml.v3 does: printable UTF-8, spaces and line ends, LF
// or CRLF (no tabs, lone carriage returns, byte order marks or Unicode
// line breaks).
func plainText(data []byte) bool {
	for i := 0; i < len(data); {
		c := data[i]
		if c >= ' ' && c < 0x7f || c == '\n' {
			i++
			continue
		}
		if c == '\r' && i+1 < len(data) && data[i+1] == '\n' {
			i += 2
			continue
		}
		if c < utf8.RuneSelf {
			return false
		}
		r, n := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError || r < 0xa0 || r == 0x2028 || r == 0x2029 || r == 0xfeff || (r >= 0xd800 && r < 0xe000) || r == 0xfffe || r == 0xffff {
			return false
		}
		i += n
	}
	return true
}

type fastLine struct {
	no     int    // 1-based line number
	indent int    // column of text, 0-based, in bytes (all spaces)
	text   string // the line from its first non-space character
	raw    string // the whole line, for columns
}

type fastParser struct {
	lines []fastLine
	i     int  // the next line
	bad   bool // outside the subset: yaml.v3 must parse it
	nodes []Node
}

// node returns a new node like n.
func (p *fastParser) node(n Node) *Node {
	if len(p.nodes) == cap(p.nodes) {
		return &n
	}
	p.nodes = append(p.nodes, n)
	return &p.nodes[len(p.nodes)-1]
}

// column is the 1-based column yaml.v3 gives the byte at offset off of
// line l's text: it counts characters, not bytes.
func (l *fastLine) column(off int) int {
	prefix := l.raw[:len(l.raw)-len(l.text)+off]
	return utf8.RuneCountInString(prefix) + 1
}

func isSeqItem(text string) bool {
	return text == "-" || strings.HasPrefix(text, "- ")
}

// block parses the mapping or sequence that starts at the current line,
// whose items are at indent.
func (p *fastParser) block(indent int) *Node {
	if isSeqItem(p.lines[p.i].text) {
		return p.sequence(indent)
	}
	return p.mapping(indent)
}

func (p *fastParser) mapping(indent int) *Node {
	first := &p.lines[p.i]
	n := p.node(Node{Kind: MappingNode, Tag: "!!map", Line: first.no, Column: first.column(0)})
	for !p.bad && p.i < len(p.lines) && p.lines[p.i].indent == indent && !isSeqItem(p.lines[p.i].text) {
		l := &p.lines[p.i]
		klen := keyLength(l.text)
		if klen == 0 {
			p.bad = true
			break
		}
		key := p.node(plainScalar(l.text[:klen], l.no, l.column(0)))
		rest := l.text[klen+1:]
		value := strings.TrimLeft(rest, " ")
		var v *Node
		switch {
		case value == "" || (value[0] == '#' && len(value) < len(rest)):
			v = p.nested(indent, true, l.no, l.column(klen+1))
		default:
			v = p.inline(l, len(l.text)-len(value))
			p.i++
		}
		n.Content = append(n.Content, key, v)
	}
	p.checkDedent(indent)
	return n
}

func (p *fastParser) sequence(indent int) *Node {
	first := &p.lines[p.i]
	n := p.node(Node{Kind: SequenceNode, Tag: "!!seq", Line: first.no, Column: first.column(0)})
	for !p.bad && p.i < len(p.lines) && p.lines[p.i].indent == indent && isSeqItem(p.lines[p.i].text) {
		l := &p.lines[p.i]
		rest := l.text[1:]
		value := strings.TrimLeft(rest, " ")
		var item *Node
		switch {
		case value == "" || value[0] == '#':
			item = p.nested(indent, false, l.no, l.column(1))
		case isSeqItem(value):
			p.bad = true // a compact nested sequence
			return n
		case keyLength(value) > 0:
			// "- key: value": a mapping whose keys are at the column of
			// this first one.
			off := len(l.text) - len(value)
			l.indent += off
			l.text = value
			item = p.mapping(l.indent)
		default:
			item = p.inline(l, len(l.text)-len(value))
			p.i++
		}
		n.Content = append(n.Content, item)
	}
	p.checkDedent(indent)
	return n
}

// nested parses the value of a key or sequence item that has nothing after
// it on its line (line no, where an empty value has column col): a block
// on the lines below, indented more, or (for a key) a sequence at the
// key's own indent. Otherwise the value is null.
func (p *fastParser) nested(indent int, isKey bool, no, col int) *Node {
	p.i++
	if p.i < len(p.lines) {
		next := &p.lines[p.i]
		switch {
		case next.indent > indent:
			return p.block(next.indent)
		case isKey && next.indent == indent && isSeqItem(next.text):
			return p.sequence(indent)
		}
	}
	if !isKey {
		p.bad = true // yaml.v3 places an empty item's null elsewhere
	}
	return p.node(Node{Kind: ScalarNode, Tag: "!!null", Line: no, Column: col})
}

// checkDedent marks as bad a line after a block that is indented more than
// the block but is not part of it (a continuation line, say).
func (p *fastParser) checkDedent(indent int) {
	if p.i < len(p.lines) && p.lines[p.i].indent > indent {
		p.bad = true
	}
}

// keyLength returns the length of the plain key that starts text, followed
// by ":" and a space or the end of the line; 0 if text does not start with
// such a key. Keys are restricted to letters, digits, '_', '-' and '.',
// which is what config keys and action names are made of, and to 1,000
// bytes (YAML's limit for such keys is 1,024 characters).
func keyLength(text string) int {
	i := 0
	for i < len(text) && isKeyByte(text[i], i == 0) {
		i++
	}
	if i == 0 || i > 1000 || i == len(text) || text[i] != ':' || (i+1 < len(text) && text[i+1] != ' ') {
		return 0
	}
	return i
}

func isKeyByte(c byte, first bool) bool {
	switch {
	case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '_':
		return true
	case c == '-' || c == '.':
		return !first
	}
	return false
}

// inline parses the value that starts at offset off of l's text and takes
// the rest of the line: a quoted or plain scalar, or a flow collection.
func (p *fastParser) inline(l *fastLine, off int) *Node {
	s := l.text[off:]
	var n *Node
	end, ok := 0, false
	switch s[0] {
	case '"', '\'':
		var v Node
		v, end, ok = quoted(s)
		n = p.node(v)
	case '[', '{':
		n, end = p.flow(l, off)
		ok = n != nil
	case '&', '*', '!', '|', '>', '%', '@', '`', ',', ']', '}', '?', ':', '#':
		// anchors, aliases, tags, block scalars, reserved and flow
		// indicators, complex keys
	case '-':
		if len(s) > 1 && s[1] != ' ' {
			n, end, ok = p.plainValue(s)
		}
	default:
		n, end, ok = p.plainValue(s)
	}
	if !ok || !restIsComment(s[end:]) {
		p.bad = true
		return &Node{}
	}
	n.Line, n.Column = l.no, l.column(off)
	return n
}

// restIsComment reports whether what follows a value on its line is
// nothing, or spaces and a comment.
func restIsComment(rest string) bool {
	t := strings.TrimLeft(rest, " ")
	return t == "" || (t[0] == '#' && len(t) < len(rest))
}

// plainValue is the plain scalar that starts s, in block context: up to a
// comment or the end of the line. A value with ": " (or ending with ":")
// in it would be a mapping, which yaml.v3 refuses here.
func (p *fastParser) plainValue(s string) (*Node, int, bool) {
	end := len(s)
	if i := strings.Index(s, " #"); i >= 0 {
		end = i
	}
	v := strings.TrimRight(s[:end], " ")
	if strings.Contains(v, ": ") || strings.HasSuffix(v, ":") || v == "<<" {
		return nil, 0, false
	}
	return p.node(plainScalar(v, 0, 0)), end, true
}

// plainScalar is a plain scalar node. Its Tag is left empty: yaml.v3
// resolves it from the value when it decodes the node, as it would have
// when it parsed it, and ShortTag gives it.
func plainScalar(v string, line, col int) Node {
	return Node{Kind: ScalarNode, Value: v, Line: line, Column: col}
}

// quoted parses the one-line quoted scalar that starts s, and returns
// where it ends. A double-quoted scalar with an escape is left to yaml.v3.
func quoted(s string) (Node, int, bool) {
	if s[0] == '"' {
		i := strings.IndexAny(s[1:], "\"\\")
		if i < 0 || s[1+i] == '\\' {
			return Node{}, 0, false
		}
		return Node{Kind: ScalarNode, Tag: "!!str", Style: DoubleQuotedStyle, Value: s[1 : 1+i]}, i + 2, true
	}
	// 'it''s': the value is a slice of s unless it has a doubled quote.
	var b []byte
	for i := 1; i < len(s); i++ {
		switch {
		case s[i] != '\'':
			if b != nil {
				b = append(b, s[i])
			}
		case i+1 < len(s) && s[i+1] == '\'':
			if b == nil {
				b = append(make([]byte, 0, len(s)), s[1:i]...)
			}
			b = append(b, '\'')
			i++
		default:
			v := s[1:i]
			if b != nil {
				v = string(b)
			}
			return Node{Kind: ScalarNode, Tag: "!!str", Style: SingleQuotedStyle, Value: v}, i + 1, true
		}
	}
	return Node{}, 0, false
}

// flow parses the one-line flow sequence ([a, b]) or mapping ({k: v})
// that starts at offset off of l's text, of scalars only, and returns
// where it ends, relative to off.
func (p *fastParser) flow(l *fastLine, off int) (*Node, int) {
	s := l.text[off:]
	isMap := s[0] == '{'
	n := p.node(Node{Kind: SequenceNode, Tag: "!!seq", Style: FlowStyle})
	closing := byte(']')
	if isMap {
		n.Kind, n.Tag, closing = MappingNode, "!!map", '}'
	}
	i := 1
	skip := func() {
		for i < len(s) && s[i] == ' ' {
			i++
		}
	}
	item := func() *Node {
		skip()
		if i >= len(s) {
			return nil
		}
		var v Node
		end, ok := 0, false
		switch c := s[i]; {
		case c == '"' || c == '\'':
			v, end, ok = quoted(s[i:])
		case strings.IndexByte("[]{},#&*!|>%@`?:-", c) >= 0:
		default:
			// In a flow collection yaml.v3 ends a plain scalar at ? as
			// well; what follows it then is not "," or the closing
			// bracket, so the line goes to yaml.v3.
			end = strings.IndexAny(s[i:], ",[]{}#:?")
			if end > 0 {
				// "<<" is a merge key to yaml.v3 wherever it stands.
				val := strings.TrimRight(s[i:i+end], " ")
				v, ok = plainScalar(val, 0, 0), val != "" && val != "<<"
			}
		}
		if !ok {
			return nil
		}
		v.Line, v.Column = l.no, l.column(off+i)
		i += end
		skip()
		return p.node(v)
	}
	for {
		skip()
		if i < len(s) && s[i] == closing {
			i++
			break
		}
		if isMap {
			klen := keyLength(s[i:])
			if klen == 0 || i+klen+1 >= len(s) {
				return nil, 0 // a key with no ": value" on this line
			}
			n.Content = append(n.Content, p.node(plainScalar(s[i:i+klen], l.no, l.column(off+i))))
			i += klen + 1
		}
		v := item()
		if v == nil {
			return nil, 0
		}
		n.Content = append(n.Content, v)
		switch {
		case i < len(s) && s[i] == ',':
			i++
		case i < len(s) && s[i] == closing:
			i++
			return n, i
		default:
			return nil, 0
		}
	}
	return n, i
}
