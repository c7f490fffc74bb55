package hookstate

import (
	"bytes"
	"fmt"

	"guard/internal/jsonx"
	"guard/internal/store"
)

// A source is the file a Document was read from, when guard wrote it: its
// checksum matches (see Unseal), so the JSON needs no checking,
// and its layout can be trusted:
//
//	{
//	  "version": 1,
//	  "hooks": {
//	    "key one": {          each key starts a line with four spaces and a quote;
//	      "state": "closed",  the lines inside an entry start with more spaces
//	      ...
//	    },
//	    "key two": {"state": "closed"}
//	  },
//	  "global_stats": {...},
//	  ...                     members guard does not know, in name order
//	  "checksum": "crc32:..."
//	}
//
// No JSON string holds a raw newline, so an entry is found by searching for
// its key at the start of a line, and the entries are listed only when
// something needs them all. An entry nobody changed is written back as the
// bytes it was, a run of them as one slice.
type source struct {
	data      []byte
	body, end int  // the members of hooks: data[body:end], each starting with entryStart
	listed    bool // every entry of data is in Document.entries
}

// entryStart begins every member of hooks in a source.
const entryStart = "\n    \""

// unmarshalSealed reads data as a source, if it is one. It reports false
// when data is not sealed, or not laid out as guard lays it out; the caller
// then reads it the slow way.
func (d *Document) unmarshalSealed(data []byte) (bool, error) {
	src, version, tail := locate(data)
	if src == nil {
		return false, nil
	}
	// What follows hooks is small: read it as an object of its own.
	obj := make([]byte, 0, len(tail)+2)
	obj = append(append(append(obj, '{'), tail...), '}')
	members, _, err := jsonx.Members(obj, "")
	if err != nil {
		return false, nil
	}
	*d = Document{Version: version, src: src}
	return true, d.topMembers(members)
}

// locate returns data as a source, with the version it gives and the
// members that follow hooks, if data is sealed and laid out as guard lays
// it out; otherwise it returns a nil source.
func locate(data []byte) (src *source, version int, tail []byte) {
	body, ok := Unseal(data)
	if !ok {
		return nil, 0, nil
	}
	const head = "{\n  \"version\": "
	if !bytes.HasPrefix(body, []byte(head)) {
		return nil, 0, nil
	}
	i := len(head)
	for ; i < len(body) && '0' <= body[i] && body[i] <= '9' && version < 1e6; i++ {
		version = version*10 + int(body[i]-'0')
	}
	const hooks = ",\n  \"hooks\": {"
	if i == len(head) || !bytes.HasPrefix(body[i:], []byte(hooks)) {
		return nil, 0, nil
	}
	open := i + len(hooks)
	const stats = "},\n  \"global_stats\": "
	at := bytes.LastIndex(body, []byte(stats))
	if at < open {
		return nil, 0, nil
	}
	src = &source{data: data, body: open, end: open}
	if at > open {
		src.end = at - len("\n  ")
		if src.end <= open || string(body[src.end:at]) != "\n  " || !bytes.HasPrefix(body[open:], []byte(entryStart)) {
			return nil, 0, nil
		}
	}
	return src, version, body[at+len("},") : len(body)-len(",\n")]
}

// search finds key's entry in the source, or returns nil.
func (s *source) search(key string) (*entry, error) {
	var b bytes.Buffer
	b.Grow(len(key) + 16)
	b.WriteString("\n    ")
	jsonx.AppendString(&b, key)
	b.WriteString(": ")
	pat := b.Bytes()
	i := bytes.Index(s.data[s.body:s.end], pat)
	if i < 0 {
		return nil, nil
	}
	off := s.body + i
	keyEnd := off + len(pat) - len(": ")
	if e := s.entryAt(off, keyEnd, key); e != nil {
		return e, nil
	}
	return nil, store.Corrupt(fmt.Errorf("hooks[%q] is not laid out as guard writes it", key))
}

// entryAt returns the entry whose member starts at off, whose quoted key
// ends at keyEnd and whose value follows it, or nil if the source is not
// laid out as it should be.
func (s *source) entryAt(off, keyEnd int, key string) *entry {
	val := keyEnd + len(": ")
	end := s.end
	if next := bytes.Index(s.data[val:s.end], []byte(entryStart)); next >= 0 {
		end = val + next - len(",")
		if end <= val || s.data[end] != ',' {
			return nil
		}
	}
	if end <= val {
		return nil
	}
	return &entry{key: key, raw: s.data[val:end], off: off, val: val, end: end, inSource: true}
}

// list returns every entry of the source, in file order. guard never
// writes a key twice, so a sealed file that has one twice was not written
// by guard as it is, and is corrupt: search would find the first entry of
// the key, and reading the file the slow way the last.
func (s *source) list() ([]*entry, error) {
	var entries []*entry
	seen := map[string]bool{}
	for off := s.body; off < s.end; {
		keyStart := off + len("\n    ")
		keyEnd := keyStart + quotedLen(s.data[keyStart:s.end])
		if keyEnd <= keyStart || keyEnd+len(": ") > s.end || string(s.data[keyEnd:keyEnd+2]) != ": " {
			return nil, store.Corrupt(fmt.Errorf("hooks: entry at byte %d is not laid out as guard writes it", off))
		}
		key, err := jsonx.ParseString(s.data[keyStart:keyEnd])
		if err != nil {
			return nil, store.Corrupt(fmt.Errorf("hooks: %w", err))
		}
		e := s.entryAt(off, keyEnd, key)
		if e == nil {
			return nil, store.Corrupt(fmt.Errorf("hooks[%q] is not laid out as guard writes it", key))
		}
		if seen[key] {
			return nil, store.Corrupt(fmt.Errorf("hooks[%q] is there twice", key))
		}
		seen[key] = true
		entries = append(entries, e)
		off = e.end + len(",")
	}
	return entries, nil
}

// quotedLen returns the length of the JSON string that b starts with,
// quotes included, or 0 if b does not start with a whole one.
func quotedLen(b []byte) int {
	if len(b) == 0 || b[0] != '"' {
		return 0
	}
	for i := 1; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		case '\n':
			return 0
		}
	}
	return 0
}

// listAll makes d.entries hold every entry, if d still searches its
// source: the entries found so far, in place of their copies, and new keys
// after the source's. A source that turns out not to be laid out as guard
// lays it out (it cannot happen unless someone forged its checksum) leaves
// the document broken: see Document.err.
func (d *Document) listAll() {
	if d.src == nil || d.src.listed {
		return
	}
	d.src.listed = true
	listed, err := d.src.list()
	if err != nil {
		d.err = err
		return
	}
	found := map[int]*entry{}
	var added []*entry
	for _, e := range d.entries {
		if e.inSource {
			found[e.off] = e
		} else {
			added = append(added, e)
		}
	}
	for i, e := range listed {
		if f := found[e.off]; f != nil {
			listed[i] = f
		}
	}
	d.entries = append(listed, added...)
	d.index = nil
}
