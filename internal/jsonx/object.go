package jsonx

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"strings"
	"sync"
)

// Extra holds the members of a JSON object that a Go type does not declare:
// fields written by a newer guard, by another tool, or by a person. Keeping
// them in a field of this type lets them survive a read and a write.
type Extra map[string]json.RawMessage

// UnmarshalObject decodes the JSON object data into v, a pointer to a struct
// type without its own UnmarshalJSON, and stores in extra the members that
// the struct does not declare. Matching follows encoding/json: a member
// counts as declared if its name equals a field's JSON name ignoring case.
//
// A type keeps its unknown members by declaring an Extra field tagged
// `json:"-"` and implementing UnmarshalJSON through a method-less copy:
//
//	func (h *Hook) UnmarshalJSON(b []byte) error {
//		type plain Hook
//		return jsonx.UnmarshalObject(b, (*plain)(h), &h.Extra)
//	}
func UnmarshalObject(data []byte, v any, extra *Extra) error {
	if err := json.Unmarshal(data, v); err != nil {
		return err
	}
	var members map[string]json.RawMessage
	if err := json.Unmarshal(data, &members); err != nil {
		return err
	}
	known := knownNames(reflect.TypeOf(v).Elem())
	*extra = nil
	for name, raw := range members {
		if known[strings.ToLower(name)] {
			continue
		}
		if *extra == nil {
			*extra = Extra{}
		}
		(*extra)[name] = raw
	}
	return nil
}

// MarshalDocument encodes doc the way guard's state files store it:
// indented by two spaces, without HTML escaping (keys are command lines,
// and "&&" should read as "&&"), and ending in a newline. A document that
// writes itself (a MarshalState method, as statefile's Codec has) does.
func MarshalDocument(doc any) ([]byte, error) {
	if c, ok := doc.(interface{ MarshalState() ([]byte, error) }); ok {
		return c.MarshalState()
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// MarshalObject encodes v, a struct without its own MarshalJSON (or a
// pointer to one), as a JSON object, and appends the members of extra in
// name order. It does not escape HTML characters.
func MarshalObject(v any, extra Extra) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	out := bytes.TrimRight(buf.Bytes(), "\n")
	if len(extra) == 0 {
		return out, nil
	}
	if len(out) < 2 || out[len(out)-1] != '}' {
		return nil, errors.New("jsonx: MarshalObject needs a value that encodes as an object")
	}
	out = out[:len(out)-1]
	first := len(out) == 1 // just "{"
	names := make([]string, 0, len(extra))
	for name := range extra {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		if !first {
			out = append(out, ',')
		}
		first = false
		key, err := json.Marshal(name)
		if err != nil {
			return nil, err
		}
		out = append(out, key...)
		out = append(out, ':')
		out = append(out, extra[name]...)
	}
	return append(out, '}'), nil
}

// MarshalValue encodes v compactly, without HTML escaping, for storing
// in an Extra.
func MarshalValue(v any) (json.RawMessage, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

var knownCache sync.Map // reflect.Type -> map[string]bool

// knownNames returns the lower-cased JSON member names that struct type t
// declares.
func knownNames(t reflect.Type) map[string]bool {
	if m, ok := knownCache.Load(t); ok {
		return m.(map[string]bool)
	}
	m := map[string]bool{}
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		m[strings.ToLower(name)] = true
	}
	knownCache.Store(t, m)
	return m
}
