package jsonx

import (
	"bytes"
	"encoding/json"
	"slices"
)

// Complete returns what can be read of data, a JSON object or array that
// is cut short or broken (a full disk, an editor, a writer killed half
// way): the longest start of it made of whole values, with the objects and
// arrays still open there closed, so that it parses. at holds the keys of
// the objects open where data stops being read, outermost first (the
// member the cut fell in). ok is false when data does not start with an
// object or an array, or nothing of it is whole.
func Complete(data []byte) (out []byte, at []string, ok bool) {
	type frame struct {
		delim     json.Delim
		key       string
		expectKey bool
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var stack, safeStack []frame
	safe := -1
	mark := func() {
		safe = int(dec.InputOffset())
		safeStack = slices.Clone(stack)
	}
	done := func() { // a value is whole
		if n := len(stack); n > 0 && stack[n-1].delim == '{' {
			stack[n-1].expectKey = true
		}
		mark()
	}
	for {
		t, err := dec.Token()
		if err != nil {
			break
		}
		switch v := t.(type) {
		case json.Delim:
			switch v {
			case '{', '[':
				stack = append(stack, frame{delim: v, expectKey: v == '{'})
				mark()
			default:
				stack = stack[:len(stack)-1]
				done()
				if len(stack) == 0 {
					return data[:safe], nil, true // whole
				}
			}
		default:
			if len(stack) == 0 {
				return nil, nil, false // not an object or an array
			}
			if top := &stack[len(stack)-1]; top.delim == '{' && top.expectKey {
				top.key, _ = v.(string)
				top.expectKey = false
				continue
			}
			done()
		}
	}
	if safe < 0 || len(safeStack) == 0 {
		return nil, nil, false
	}
	for _, f := range stack {
		if f.delim == '{' && f.key != "" {
			at = append(at, f.key)
		}
	}
	out = slices.Clone(data[:safe])
	for i := len(safeStack) - 1; i >= 0; i-- {
		if safeStack[i].delim == '{' {
			out = append(out, '}')
		} else {
			out = append(out, ']')
		}
	}
	return out, at, true
}
