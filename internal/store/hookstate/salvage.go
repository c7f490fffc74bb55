package hookstate

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"

	"guard/internal/jsonx"
)

// Salvage makes d what can be read of data, a state file that does not
// parse (torn by a full disk or an editor, cut short, or broken in
// places), when it is laid out as guard writes it: each key's entry is
// kept if it is whole, or if what of it parses checks out (a circuit that
// was open, forced by hand or not, stays open as far as its entry says
// so); past a part that does not parse, reading goes on at the next line
// that starts an entry. It reports how many entries it kept, the keys of
// those it kept only in part (the members before a break), the keys of
// those it saw but could not keep, and whether the file ends early, so
// that the keys past its end are lost unseen (faults #7). The whole file
// is never replaced by less without the caller keeping it (statefile
// moves it aside first).
func (d *Document) Salvage(data []byte) (kept int, partial, lost []string, cut bool) {
	*d = Document{Version: Version}
	dec := json.NewDecoder(bytes.NewReader(data))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return 0, nil, nil, errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)
	}
	for {
		t, err := dec.Token()
		if err != nil {
			return kept, partial, lost, true
		}
		key, ok := t.(string)
		if !ok { // the closing brace
			return kept, partial, lost, false
		}
		if key == "hooks" {
			var resynced bool
			kept, partial, lost, cut, resynced = d.salvageHooks(dec, data)
			if cut || resynced {
				// Past a resynced part, the members after hooks are
				// not where this decoder can read them.
				return kept, partial, lost, cut
			}
			continue
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return kept, partial, lost, true
		}
		_ = d.topMembers([]jsonx.Member{{Key: key, Value: raw}}) // what does not read is dropped
	}
}

// salvageHooks reads the hooks object from dec, at its opening brace, into
// d, resyncing at the next entry past a part that does not parse. It
// reports whether the file ends early (cut), and whether it had to resync
// (the members after hooks are then past reading).
func (d *Document) salvageHooks(dec *json.Decoder, data []byte) (kept int, partial, lost []string, cut, resynced bool) {
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return 0, nil, nil, err != nil, false
	}
	base := 0 // where dec's input starts in data
	for {
		t, err := dec.Token()
		if err != nil {
			next := resync(data, base+int(dec.InputOffset()))
			if next < 0 {
				return kept, partial, lost, true, resynced
			}
			dec, base, resynced = entryDecoder(data, next), next-1, true
			continue
		}
		key, ok := t.(string)
		if !ok { // the closing brace of hooks
			return kept, partial, lost, false, resynced
		}
		start := base + int(dec.InputOffset())
		var raw json.RawMessage
		if err := dec.Decode(&raw); err == nil {
			if entryChecks(raw) {
				kept++
			} else {
				lost = append(lost, key)
			}
			// Kept as it is: one that does not check out is set aside, with
			// its reason, as any such entry is (see Hook).
			d.entries = append(d.entries, &entry{key: key, raw: raw})
			continue
		}
		// A torn entry: what of it parses, if that checks out.
		if part := partialObject(data[start:]); part != nil && entryChecks(part) {
			d.entries = append(d.entries, &entry{key: key, raw: keepOpen(part)})
			kept++
			partial = append(partial, key)
		} else {
			lost = append(lost, key)
		}
		next := resync(data, start)
		if next < 0 {
			return kept, partial, lost, true, resynced
		}
		dec, base, resynced = entryDecoder(data, next), next-1, true
	}
}

// keepOpen returns part, what could be read of an entry cut short, with a
// circuit tripped by hand kept open until it is reset: one open with a
// retry_after of null (which only a trip without --for writes) whose cut
// came before its forced member. (An open entry cut before its retry_after
// is due for a probe, as the state says nothing of its cooldown.)
func keepOpen(part []byte) []byte {
	var h Hook
	if h.UnmarshalJSON(part) != nil || h.State != "open" || !h.RetryAfter.IsZero() || h.Forced {
		return part
	}
	var members map[string]json.RawMessage
	if json.Unmarshal(part, &members) != nil || string(members["retry_after"]) != "null" {
		return part
	}
	h.Forced = true
	if h.OpenReason == "" {
		h.OpenReason = "its entry was cut short in a state file that did not parse"
	}
	out, err := h.MarshalJSON()
	if err != nil {
		return part
	}
	return out
}

// entryChecks reports whether raw is an entry guard can use.
func entryChecks(raw []byte) bool {
	var h Hook
	return h.UnmarshalJSON(raw) == nil && h.Check() == nil
}

// entryIndent starts a line that starts an entry of hooks, as guard lays
// the file out: four spaces and the key's opening quote.
var entryIndent = []byte("\n    \"")

// resync returns where the next entry of hooks starts in data after from
// (its key's opening quote), or -1 if none does: a line of four spaces and
// a JSON string followed by ": {".
func resync(data []byte, from int) int {
	for from < len(data) {
		i := bytes.Index(data[from:], entryIndent)
		if i < 0 {
			return -1
		}
		at := from + i + len(entryIndent) - 1 // the quote
		dec := json.NewDecoder(bytes.NewReader(data[at:]))
		if t, err := dec.Token(); err == nil {
			if _, ok := t.(string); ok {
				rest := data[at+int(dec.InputOffset()):]
				if bytes.HasPrefix(rest, []byte(": {")) {
					return at
				}
			}
		}
		from = at
	}
	return -1
}

// entryDecoder returns a decoder of the entries of hooks from the one
// whose key starts at at, read as the members of an object.
func entryDecoder(data []byte, at int) *json.Decoder {
	dec := json.NewDecoder(io.MultiReader(bytes.NewReader([]byte("{")), bytes.NewReader(data[at:])))
	dec.Token() // the brace added
	return dec
}

// partialObject returns the members of the object that starts data (after
// white space and a colon) that parse whole, as an object, or nil if there
// is none.
func partialObject(data []byte) []byte {
	data = bytes.TrimLeft(data, " \t\r\n:")
	dec := json.NewDecoder(bytes.NewReader(data))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	var b bytes.Buffer
	b.WriteByte('{')
	n := 0
	for {
		t, err := dec.Token()
		if err != nil {
			break
		}
		key, ok := t.(string)
		if !ok {
			break
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			break
		}
		if n > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(key)
		b.Write(k)
		b.WriteByte(':')
		b.Write(raw)
		n++
	}
	if n == 0 {
		return nil
	}
	b.WriteByte('}')
	return b.Bytes()
}
