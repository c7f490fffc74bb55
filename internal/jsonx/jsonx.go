package jsonx

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"
	"unicode/utf16"
	"unicode/utf8"
)

// This file is a small JSON reader and writer for the types every guard run
// reads and writes. encoding/json would do, but it builds its per-type
// machinery by reflection once per process, and guard is a new process
// every time: the hand-written code saves that on every call.

// An ObjectWriter writes one JSON object, a member at a time, indented the
// way Marshal indents (two spaces a level) or, with no indent, compact.
// Members are written in the order they are given.
type ObjectWriter struct {
	b       *bytes.Buffer
	indent  string // the indentation of the line the object starts on
	compact bool
	n       int
}

// NewObjectWriter starts an object in b. indent is the indentation of the
// line it starts on; compact writes it on one line.
func NewObjectWriter(b *bytes.Buffer, indent string, compact bool) *ObjectWriter {
	b.WriteByte('{')
	return &ObjectWriter{b: b, indent: indent, compact: compact}
}

func (w *ObjectWriter) key(k string) {
	if w.n > 0 {
		w.b.WriteByte(',')
	}
	w.n++
	if !w.compact {
		w.b.WriteByte('\n')
		w.b.WriteString(w.indent)
		w.b.WriteString("  ")
	}
	AppendString(w.b, k)
	w.b.WriteByte(':')
	if !w.compact {
		w.b.WriteByte(' ')
	}
}

// String writes a string member.
func (w *ObjectWriter) String(k, v string) { w.key(k); AppendString(w.b, v) }

// StringOrNull writes a string member, or null for "".
func (w *ObjectWriter) StringOrNull(k, v string) {
	w.key(k)
	if v == "" {
		w.b.WriteString("null")
		return
	}
	AppendString(w.b, v)
}

// Int writes a number member.
func (w *ObjectWriter) Int(k string, v int64) {
	w.key(k)
	w.b.WriteString(strconv.FormatInt(v, 10))
}

// Bool writes a boolean member.
func (w *ObjectWriter) Bool(k string, v bool) {
	w.key(k)
	w.b.WriteString(strconv.FormatBool(v))
}

// Time writes a timestamp member as Time does: seconds, UTC, or null.
func (w *ObjectWriter) Time(k string, t time.Time) {
	w.key(k)
	AppendTime(w.b, t)
}

// Raw writes a member whose value is already JSON, valid JSON. A value
// that spans lines is indented to fit (compacted, for a compact object),
// so that the object keeps its layout; its tokens are kept as they are.
func (w *ObjectWriter) Raw(k string, raw []byte) {
	w.key(k)
	if w.compact {
		if bytes.IndexByte(raw, '\n') < 0 || json.Compact(w.b, raw) != nil {
			w.b.Write(raw)
		}
		return
	}
	AppendRaw(w.b, raw, w.indent+"  ")
}

// AppendRaw writes raw, valid JSON, as the value of a member whose line
// starts with indent: a value that spans lines is indented to fit, two
// spaces a level, with its tokens kept as they are; one that fits on one
// line is written as it is.
func AppendRaw(b *bytes.Buffer, raw []byte, indent string) {
	if bytes.IndexByte(raw, '\n') < 0 || json.Indent(b, raw, indent, "  ") != nil {
		b.Write(raw)
	}
}

// Object starts an object member; close it before writing the next member.
func (w *ObjectWriter) Object(k string) *ObjectWriter {
	w.key(k)
	return NewObjectWriter(w.b, w.indent+"  ", w.compact)
}

// Array writes an array member, calling item for each of n elements; item
// writes the ith element at the indentation it is given.
func (w *ObjectWriter) Array(k string, n int, item func(i int, indent string)) {
	w.key(k)
	w.b.WriteByte('[')
	for i := range n {
		if i > 0 {
			w.b.WriteByte(',')
		}
		if !w.compact {
			w.b.WriteByte('\n')
			w.b.WriteString(w.indent + "    ")
		}
		item(i, w.indent+"    ")
	}
	if n > 0 && !w.compact {
		w.b.WriteByte('\n')
		w.b.WriteString(w.indent + "  ")
	}
	w.b.WriteByte(']')
}

// Extra writes the members of e, in name order.
func (w *ObjectWriter) Extra(e Extra) {
	if len(e) == 0 {
		return
	}
	names := make([]string, 0, len(e))
	for name := range e {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		w.Raw(name, e[name])
	}
}

// Close ends the object.
func (w *ObjectWriter) Close() {
	if w.n > 0 && !w.compact {
		w.b.WriteByte('\n')
		w.b.WriteString(w.indent)
	}
	w.b.WriteByte('}')
}

// OffsetTime writes a member whose value is t as AppendOffsetTime writes it.
func (w *ObjectWriter) OffsetTime(k string, t time.Time) {
	w.key(k)
	AppendOffsetTime(w.b, t)
}

// OffsetTimeMilli writes a member whose value is t as AppendOffsetTimeMilli
// writes it.
func (w *ObjectWriter) OffsetTimeMilli(k string, t time.Time) {
	w.key(k)
	AppendOffsetTimeMilli(w.b, t)
}

// AppendOffsetTimeMilli writes t as AppendOffsetTime does, but to the
// millisecond, "2026-02-10T23:32:15.250+00:00" (truncated: callers round
// up first where a time must never come early), for the one stamp that
// needs it: min_interval's last start, since an interval may be shorter
// than a second. Python 3.10's datetime.fromisoformat reads it too.
func AppendOffsetTimeMilli(b *bytes.Buffer, t time.Time) {
	if t.IsZero() {
		b.WriteString("null")
		return
	}
	var buf [40]byte
	out := append(buf[:0], '"')
	out = t.UTC().Truncate(time.Millisecond).AppendFormat(out, OffsetTimeMilliLayout)
	b.Write(append(out, '"'))
}

// AppendOffsetTime writes t in UTC seconds with a numeric offset,
// "2026-02-10T23:32:15+00:00", or null: the form Python's isoformat gives
// an aware UTC time, and the only RFC 3339 form that Python 3.10's
// datetime.fromisoformat reads (it rejects "Z"). jq reads it with
// strptime("%Y-%m-%dT%H:%M:%S%z"). hook_state.json is written this way,
// for the Python guardrails that read it.
func AppendOffsetTime(b *bytes.Buffer, t time.Time) { appendTime(b, t, OffsetTimeLayout) }

// AppendTime writes t as a Time does: RFC 3339 UTC seconds, or null.
func AppendTime(b *bytes.Buffer, t time.Time) { appendTime(b, t, TimeLayout) }

// appendTime writes t in UTC seconds in layout, quoted, or null.
func appendTime(b *bytes.Buffer, t time.Time, layout string) {
	if t.IsZero() {
		b.WriteString("null")
		return
	}
	var buf [32]byte
	out := append(buf[:0], '"')
	out = t.UTC().Truncate(time.Second).AppendFormat(out, layout)
	b.Write(append(out, '"'))
}

const hexDigits = "0123456789abcdef"

// AppendString writes s as a JSON string the way encoding/json does with
// HTML escaping off: invalid UTF-8 becomes U+FFFD, and U+2028 and U+2029
// are escaped.
func AppendString(b *bytes.Buffer, s string) {
	b.WriteByte('"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b.WriteString(s[start:i])
			switch c {
			case '"', '\\':
				b.WriteByte('\\')
				b.WriteByte(c)
			case '\n':
				b.WriteString(`\n`)
			case '\r':
				b.WriteString(`\r`)
			case '\t':
				b.WriteString(`\t`)
			case '\b':
				b.WriteString(`\b`)
			case '\f':
				b.WriteString(`\f`)
			default:
				b.WriteString(`\u00`)
				b.WriteByte(hexDigits[c>>4])
				b.WriteByte(hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b.WriteString(s[start:i])
			b.WriteString(`\ufffd`)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b.WriteString(s[start:i])
			b.WriteString(`\u202`)
			b.WriteByte(hexDigits[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	b.WriteString(s[start:])
	b.WriteByte('"')
}

// ErrType is matched by the errors of the Parse functions when a value is
// valid JSON of the wrong type.
var ErrType = errors.New("wrong JSON type")

func typeError(want string, raw []byte) error {
	if len(raw) > 40 {
		raw = append(raw[:37:37], "..."...)
	}
	return fmt.Errorf("%w: want %s, got %s", ErrType, want, raw)
}

// ParseString decodes a JSON string value, which Members has checked.
func ParseString(raw []byte) (string, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) < 2 || raw[0] != '"' {
		return "", typeError("a string", raw)
	}
	inner := raw[1 : len(raw)-1]
	if bytes.IndexByte(inner, '\\') < 0 && utf8.Valid(inner) {
		return string(inner), nil
	}
	out := make([]byte, 0, len(inner))
	for i := 0; i < len(inner); {
		c := inner[i]
		if c != '\\' {
			r, size := utf8.DecodeRune(inner[i:])
			if r == utf8.RuneError && size == 1 {
				out = utf8.AppendRune(out, utf8.RuneError)
			} else {
				out = append(out, inner[i:i+size]...)
			}
			i += size
			continue
		}
		if i+1 >= len(inner) {
			return "", fmt.Errorf("bad escape in %s", raw)
		}
		switch e := inner[i+1]; e {
		case '"', '\\', '/':
			out = append(out, e)
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			r, ok := hex4(inner[i+2:])
			if !ok {
				return "", fmt.Errorf("bad escape in %s", raw)
			}
			i += 6
			if utf16.IsSurrogate(r) {
				// A pair makes one rune; anything else is U+FFFD, as
				// encoding/json reads it.
				if r2, ok := pairLow(inner[i:]); ok {
					if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
						out = utf8.AppendRune(out, dec)
						i += 6
						continue
					}
				}
				r = utf8.RuneError
			}
			out = utf8.AppendRune(out, r)
			continue
		default:
			return "", fmt.Errorf("bad escape in %s", raw)
		}
		i += 2
	}
	return string(out), nil
}

func pairLow(b []byte) (rune, bool) {
	if len(b) < 6 || b[0] != '\\' || b[1] != 'u' {
		return 0, false
	}
	return hex4(b[2:])
}

func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range b[:4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, false
		}
		r = r*16 + rune(c)
	}
	return r, true
}

// ParseStringOrNull decodes a string value, reading null as "".
func ParseStringOrNull(raw []byte) (string, error) {
	if string(raw) == "null" {
		return "", nil
	}
	return ParseString(raw)
}

// ParseInt decodes a number value that must be a whole number. null reads
// as 0, as encoding/json leaves a field alone for null.
func ParseInt(raw []byte) (int64, error) {
	if string(raw) == "null" {
		return 0, nil
	}
	n, err := strconv.ParseInt(string(raw), 10, 64)
	if err != nil {
		return 0, typeError("a whole number", raw)
	}
	return n, nil
}

// ParseBool decodes a boolean value; null reads as false.
func ParseBool(raw []byte) (bool, error) {
	switch string(raw) {
	case "true":
		return true, nil
	case "false", "null":
		return false, nil
	}
	return false, typeError("true or false", raw)
}

// ParseTimeValue decodes a timestamp value as Time reads one; null reads
// as the zero time.
func ParseTimeValue(raw []byte) (time.Time, error) {
	if string(raw) == "null" {
		return time.Time{}, nil
	}
	s, err := ParseString(raw)
	if err != nil {
		return time.Time{}, err
	}
	return ParseTime(s)
}

// Elements splits an array value, which Members has checked, into its
// elements. null has none.
func Elements(raw []byte) ([][]byte, error) {
	s := scanner{data: raw, trusted: true}
	s.space()
	if s.i < len(s.data) && s.data[s.i] == 'n' {
		return nil, nil
	}
	if s.i >= len(s.data) || s.data[s.i] != '[' {
		return nil, typeError("an array", raw)
	}
	s.i++
	var out [][]byte
	for {
		s.space()
		if s.i >= len(s.data) {
			return nil, errEnd
		}
		if s.data[s.i] == ']' {
			return out, nil
		}
		if s.data[s.i] == ',' {
			s.i++
			s.space()
		}
		start := s.i
		if err := s.value(); err != nil {
			return nil, err
		}
		out = append(out, s.data[start:s.i])
	}
}

// ObjectValue checks that raw is a JSON object and returns its members:
// the way to decode a part of a document that has not been checked.
func ObjectValue(raw []byte) ([]Member, error) {
	if t := bytes.TrimLeft(raw, " \t\r\n"); len(t) == 0 || t[0] != '{' {
		return nil, typeError("an object", raw)
	}
	ms, _, err := Members(raw, "")
	return ms, err
}

// bom is the UTF-8 encoding of U+FEFF, the byte order mark some editors
// (Notepad, PowerShell's Out-File) put at the start of a file.
const bom = "\xef\xbb\xbf"

// TrimBOM returns data without a leading UTF-8 byte order mark: RFC 8259
// lets a parser ignore one, and encoding/json and the scanner here do not.
// It is a three-byte prefix test, cheap enough for every read of a state
// file; guard never writes one.
func TrimBOM(data []byte) []byte {
	if len(data) >= 3 && data[0] == bom[0] && data[1] == bom[1] && data[2] == bom[2] {
		return data[3:]
	}
	return data
}
