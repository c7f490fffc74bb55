package jsonx

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
)

// A Member is one member of a JSON object: its key, decoded, and its value
// as the bytes it was written as.
type Member struct {
	Key    string
	KeyRaw []byte // the key as written, quotes and escapes included
	Value  []byte
}

// Members splits the JSON object data into its members, in order, and
// checks that data is valid JSON as it goes (it accepts exactly what
// json.Valid accepts). A document type that decodes lazily uses it to find
// its parts without decoding them; it is much faster than json.Unmarshal
// into a map of json.RawMessage, which checks the input once more first.
//
// If nest names a member whose value is an object, that object's members
// are returned too, as inner, from the same pass.
func Members(data []byte, nest string) (members, inner []Member, err error) {
	s := scanner{data: data, nest: nest}
	s.space()
	members, err = s.object(true)
	if err != nil {
		return nil, nil, err
	}
	s.space()
	if s.i != len(s.data) {
		return nil, nil, s.errorf("data after the top-level value")
	}
	return members, s.inner, nil
}

// ObjectMembers is Members for a value already checked by Members: it
// splits the object value into its members without checking them again.
// A null value has no members.
func ObjectMembers(value []byte) ([]Member, error) {
	s := scanner{data: value, trusted: true}
	s.space()
	if s.i < len(s.data) && s.data[s.i] == 'n' {
		return nil, nil
	}
	return s.object(true)
}

type scanner struct {
	data    []byte
	i       int
	trusted bool // the input is known to be valid: skip, do not check

	nest  string   // a top-level member whose object's members to collect
	inner []Member // those members
	depth int
}

var errEnd = errors.New("unexpected end of JSON input")

func (s *scanner) errorf(format string, args ...any) error {
	return fmt.Errorf("invalid JSON at offset %d: %s", s.i, fmt.Sprintf(format, args...))
}

func (s *scanner) space() {
	// Indentation comes in runs of spaces: take them eight at a time.
	for s.i < len(s.data) && isSpace[s.data[s.i]] {
		s.i++
		for s.i+8 <= len(s.data) && binary.LittleEndian.Uint64(s.data[s.i:]) == ones*' ' {
			s.i += 8
		}
	}
}

var isSpace = [256]bool{' ': true, '\t': true, '\n': true, '\r': true}

// object reads an object starting at '{'; with collect, it returns the
// members.
func (s *scanner) object(collect bool) ([]Member, error) {
	if s.i >= len(s.data) {
		return nil, errEnd
	}
	if s.data[s.i] != '{' {
		return nil, s.errorf("want an object")
	}
	s.i++
	s.depth++
	defer func() { s.depth-- }()
	var members []Member
	s.space()
	if s.i < len(s.data) && s.data[s.i] == '}' {
		s.i++
		return members, nil
	}
	for {
		s.space()
		start := s.i
		if err := s.string(); err != nil {
			return nil, err
		}
		keyRaw := s.data[start:s.i]
		s.space()
		if s.i >= len(s.data) {
			return nil, errEnd
		}
		if s.data[s.i] != ':' {
			return nil, s.errorf("want ':'")
		}
		s.i++
		s.space()
		vstart := s.i
		var key string
		if collect {
			var err error
			if key, err = decodeKey(keyRaw); err != nil {
				return nil, err
			}
		}
		if collect && s.depth == 1 && s.nest != "" && key == s.nest && s.i < len(s.data) && s.data[s.i] == '{' {
			inner, err := s.object(true)
			if err != nil {
				return nil, err
			}
			s.inner = inner
		} else if err := s.value(); err != nil {
			return nil, err
		}
		if collect {
			members = append(members, Member{Key: key, KeyRaw: keyRaw, Value: s.data[vstart:s.i]})
		}
		s.space()
		if s.i >= len(s.data) {
			return nil, errEnd
		}
		switch s.data[s.i] {
		case ',':
			s.i++
		case '}':
			s.i++
			return members, nil
		default:
			return nil, s.errorf("want ',' or '}'")
		}
	}
}

// decodeKey decodes a key, quickly when it has no escapes.
func decodeKey(raw []byte) (string, error) {
	plain := true
	for _, c := range raw[1 : len(raw)-1] {
		if c == '\\' || c >= 0x80 {
			plain = false
			break
		}
	}
	if plain {
		return string(raw[1 : len(raw)-1]), nil
	}
	var k string
	err := json.Unmarshal(raw, &k)
	return k, err
}

func (s *scanner) value() error {
	if s.i >= len(s.data) {
		return errEnd
	}
	switch c := s.data[s.i]; {
	case c == '{':
		_, err := s.object(false)
		return err
	case c == '[':
		return s.array()
	case c == '"':
		return s.string()
	case c == 't':
		return s.literal("true")
	case c == 'f':
		return s.literal("false")
	case c == 'n':
		return s.literal("null")
	case c == '-' || c >= '0' && c <= '9':
		return s.number()
	}
	return s.errorf("unexpected character %q", s.data[s.i])
}

func (s *scanner) array() error {
	s.i++ // '['
	s.space()
	if s.i < len(s.data) && s.data[s.i] == ']' {
		s.i++
		return nil
	}
	for {
		s.space()
		if err := s.value(); err != nil {
			return err
		}
		s.space()
		if s.i >= len(s.data) {
			return errEnd
		}
		switch s.data[s.i] {
		case ',':
			s.i++
		case ']':
			s.i++
			return nil
		default:
			return s.errorf("want ',' or ']'")
		}
	}
}

func (s *scanner) literal(lit string) error {
	if len(s.data)-s.i < len(lit) {
		return errEnd
	}
	if string(s.data[s.i:s.i+len(lit)]) != lit {
		return s.errorf("want %s", lit)
	}
	s.i += len(lit)
	return nil
}

// string reads a string starting at '"'.
func (s *scanner) string() error {
	if s.i >= len(s.data) {
		return errEnd
	}
	if s.data[s.i] != '"' {
		return s.errorf("want a string")
	}
	s.i++
	if s.trusted {
		// Known to be valid: jump from quote to quote, stepping over an
		// escaped one (preceded by an odd number of backslashes).
		for {
			j := bytes.IndexByte(s.data[s.i:], '"')
			if j < 0 {
				return errEnd
			}
			s.i += j + 1
			n := 0
			for k := s.i - 2; k >= 0 && s.data[k] == '\\'; k-- {
				n++
			}
			if n%2 == 0 {
				return nil
			}
		}
	}
	for s.i < len(s.data) {
		// Most of a state file is text inside strings: skip plain bytes
		// eight at a time while none of them can end the run, then one at
		// a time.
		for s.i+8 <= len(s.data) && !mayStop(binary.LittleEndian.Uint64(s.data[s.i:])) {
			s.i += 8
		}
		for s.i < len(s.data) && !stringStop[s.data[s.i]] {
			s.i++
		}
		if s.i >= len(s.data) {
			break
		}
		c := s.data[s.i]
		switch {
		case c == '"':
			s.i++
			return nil
		case c == '\\':
			if s.i+1 >= len(s.data) {
				return errEnd
			}
			switch s.data[s.i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				s.i += 2
			case 'u':
				if len(s.data)-s.i < 6 {
					return errEnd
				}
				for _, h := range s.data[s.i+2 : s.i+6] {
					if !isHex(h) && !s.trusted {
						return s.errorf("bad \\u escape")
					}
				}
				s.i += 6
			default:
				return s.errorf("bad escape")
			}
		case c < 0x20 && !s.trusted:
			return s.errorf("control character in string")
		default:
			s.i++
		}
	}
	return errEnd
}

// stringStop marks the bytes that end a run of plain string text: the
// closing quote, a backslash, and control characters, which JSON forbids.
var stringStop = func() (t [256]bool) {
	t['"'], t['\\'] = true, true
	for c := range 0x20 {
		t[c] = true
	}
	return t
}()

const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// mayStop reports whether any of the eight bytes in x may be a stop byte:
// below 0x20, '"' or '\\'. It never misses one (it may report one that is
// not there, when a byte is 0x80 or above, which only costs a slower look).
func mayStop(x uint64) bool {
	less := (x - ones*0x20) & ^x & highs
	quote := x ^ (ones * '"')
	quote = (quote - ones) & ^quote & highs
	slash := x ^ (ones * '\\')
	slash = (slash - ones) & ^slash & highs
	return less|quote|slash != 0
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func (s *scanner) digits() int {
	n := 0
	for s.i < len(s.data) && s.data[s.i] >= '0' && s.data[s.i] <= '9' {
		s.i++
		n++
	}
	return n
}

// number reads a number as JSON's grammar has it.
func (s *scanner) number() error {
	if s.data[s.i] == '-' {
		s.i++
	}
	if s.i >= len(s.data) {
		return errEnd
	}
	switch {
	case s.data[s.i] == '0':
		s.i++
	case s.data[s.i] >= '1' && s.data[s.i] <= '9':
		s.digits()
	default:
		return s.errorf("bad number")
	}
	if s.i < len(s.data) && s.data[s.i] == '.' {
		s.i++
		if s.digits() == 0 {
			return s.errorf("bad number")
		}
	}
	if s.i < len(s.data) && (s.data[s.i] == 'e' || s.data[s.i] == 'E') {
		s.i++
		if s.i < len(s.data) && (s.data[s.i] == '+' || s.data[s.i] == '-') {
			s.i++
		}
		if s.digits() == 0 {
			return s.errorf("bad number")
		}
	}
	return nil
}

// Find returns the value at path (a member of the top-level object, a
// member of that member's object, ...) in a JSON document, and whether it
// is there. It is for a quick look without the lock: it stops as soon as
// it has found the value, and it does not check the document (Members
// does, on the way to a write), so on a broken document it may find
// nothing or something wrong; what it finds must be taken as advice.
func Find(data []byte, path ...string) ([]byte, bool) {
	s := scanner{data: data, trusted: true}
	for _, want := range path {
		s.space()
		if s.i >= len(s.data) || s.data[s.i] != '{' {
			return nil, false
		}
		s.i++
		found := false
		for !found {
			s.space()
			if s.i >= len(s.data) || s.data[s.i] != '"' {
				return nil, false // '}' or garbage: not here
			}
			start := s.i
			if s.string() != nil {
				return nil, false
			}
			key, err := decodeKey(s.data[start:s.i])
			s.space()
			if err != nil || s.i >= len(s.data) || s.data[s.i] != ':' {
				return nil, false
			}
			s.i++
			s.space()
			if key == want {
				found = true
				break
			}
			if s.value() != nil {
				return nil, false
			}
			s.space()
			if s.i < len(s.data) && s.data[s.i] == ',' {
				s.i++
			}
		}
	}
	start := s.i
	if s.value() != nil {
		return nil, false
	}
	return s.data[start:s.i], true
}
