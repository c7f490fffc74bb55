package claude

import (
	"bytes"
	"encoding/json"
	"errors"
)

// AddHook adds a group holding one hook, {"hooks": [hook]}, at the end of
// hooks.EVENT of the settings document doc, making "hooks" and EVENT if
// they are not there, laid out as the document is (on one line, or
// indented as its members are). It edits the bytes in place, so nothing
// else of the document changes, and RemoveHook takes the group away again:
// with nothing else changed, the very bytes come back.
func AddHook(doc []byte, event string, hook any) ([]byte, error) {
	root, err := parse(doc)
	if err != nil {
		return nil, err
	}
	if root.kind != '{' {
		return nil, ErrNotSettings
	}
	group := map[string]any{"hooks": []any{hook}}
	hooks := root.get("hooks")
	switch {
	case hooks == nil:
		return insertInto(doc, root, `"hooks"`, map[string]any{event: []any{group}}), nil
	case hooks.kind != '{':
		return nil, errors.New(`its "hooks" is not an object of events`)
	}
	list := hooks.get(event)
	switch {
	case list == nil:
		return insertInto(doc, hooks, jsonKey(event), []any{group}), nil
	case list.kind != '[':
		return nil, errors.New(`its "hooks".` + event + ` is not a list`)
	}
	return insertInto(doc, list, "", group), nil
}

// HasHook reports whether a group of hooks.EVENT of doc holds a hook for
// which is reports true (the hook's object as JSON).
func HasHook(doc []byte, event string, is func(hook []byte) bool) (bool, error) {
	root, err := parse(doc)
	if err != nil {
		return false, err
	}
	list := root.get("hooks").get(event)
	if list == nil || list.kind != '[' {
		return false, nil
	}
	for _, g := range list.elems {
		if hs := g.get("hooks"); hs != nil && hs.kind == '[' {
			for _, h := range hs.elems {
				if is(doc[h.start:h.end]) {
					return true, nil
				}
			}
		}
	}
	return false, nil
}

// RemoveHook takes away the groups of hooks.EVENT of doc that hold one
// hook, for which is reports true (the hook's object as JSON), and EVENT
// and "hooks" if nothing else is left in them. It returns doc and false
// if there is none.
func RemoveHook(doc []byte, event string, is func(hook []byte) bool) ([]byte, bool, error) {
	root, err := parse(doc)
	if err != nil {
		return nil, false, err
	}
	hooks := root.get("hooks")
	list := hooks.get(event)
	if list == nil || list.kind != '[' {
		return doc, false, nil
	}
	var drop []int
	for i, g := range list.elems {
		hs := g.get("hooks")
		if g.kind == '{' && len(g.members) == 1 && hs != nil && hs.kind == '[' && len(hs.elems) == 1 && is(doc[hs.elems[0].start:hs.elems[0].end]) {
			drop = append(drop, i)
		}
	}
	if len(drop) == 0 {
		return doc, false, nil
	}
	var edits []Edit
	switch {
	case len(drop) < len(list.elems):
		edits = removeElems(list, drop)
	case len(hooks.members) > 1:
		edits = removeMember(doc, hooks, event)
	default:
		edits = removeMember(doc, root, "hooks")
	}
	return apply(doc, edits), true, nil
}

// removeElems removes the elements at indices drop (ascending, not all of
// them) of the list n, each with the separator before it (after it, for
// the first element).
func removeElems(n *node, drop []int) []Edit {
	var edits []Edit
	gone := map[int]bool{}
	for _, i := range drop {
		gone[i] = true
	}
	for _, i := range drop {
		prev := i - 1
		for prev >= 0 && gone[prev] {
			prev--
		}
		if prev >= 0 {
			edits = append(edits, Edit{n.elems[prev].end, n.elems[i].end, nil})
			continue
		}
		next := i + 1
		for gone[next] {
			next++
		}
		edits = append(edits, Edit{n.elems[i].start, n.elems[next].start, nil})
	}
	return mergeEdits(edits)
}

// removeMember removes the member key of the object n with the separator
// before it (or, for the only member, everything inside the braces).
func removeMember(doc []byte, n *node, key string) []Edit {
	at := -1
	for i, m := range n.members {
		if m.key == key {
			at = i
		}
	}
	switch {
	case len(n.members) == 1:
		return []Edit{{n.start + 1, n.end - 1, nil}}
	case at > 0:
		return []Edit{{n.members[at-1].value.end, n.members[at].value.end, nil}}
	}
	// The first of several: from its key to the next member's key.
	return []Edit{{memberStart(doc, n, 0), memberStart(doc, n, 1), nil}}
}

// memberStart finds where the member i of the object n of doc starts: the
// quote that opens its key.
func memberStart(doc []byte, n *node, i int) int {
	from := n.start + 1
	if i > 0 {
		from = n.members[i-1].value.end
	}
	return from + bytes.IndexByte(doc[from:], '"')
}

// mergeEdits drops edits that overlap an earlier one.
func mergeEdits(edits []Edit) []Edit {
	var out []Edit
	for _, e := range edits {
		if len(out) > 0 && e.Start < out[len(out)-1].End {
			continue
		}
		out = append(out, e)
	}
	return out
}

// insertInto inserts value at the end of the container n: as a member
// named key (its JSON text) of an object, or as an element of a list
// (key ""), laid out as the container's members are.
func insertInto(doc []byte, n *node, key string, value any) []byte {
	var last, first int // the end of the last member, the start of the first
	count := len(n.elems)
	if n.kind == '{' {
		count = len(n.members)
	}
	if count > 0 {
		if n.kind == '{' {
			last, first = n.members[count-1].value.end, memberStart(doc, n, 0)
		} else {
			last, first = n.elems[count-1].end, n.elems[0].start
		}
	}
	oneLine := !bytes.ContainsRune(doc[n.start:n.end], '\n')
	outer := lineIndent(doc, n.start)
	indent := outer + indentUnit(doc)
	if count > 0 && !oneLine {
		indent = lineIndent(doc, first)
	}
	var text []byte
	if oneLine && count == 0 && bytes.IndexByte(doc, '\n') < 0 || oneLine && count > 0 {
		text, _ = json.Marshal(value)
	} else {
		text, _ = json.MarshalIndent(value, indent, indentUnit(doc))
	}
	if key != "" {
		sep := ": "
		if oneLine && count > 0 && !bytes.Contains(doc[n.start:n.end], []byte(": ")) {
			sep = ":"
		}
		text = append(append([]byte(key), sep...), text...)
	}
	var ins []byte
	at := last
	switch {
	case count > 0 && oneLine:
		ins = append([]byte(", "), text...)
	case count > 0:
		ins = append(append([]byte(",\n"), indent...), text...)
	case oneLine && bytes.IndexByte(doc, '\n') < 0:
		at, ins = n.start+1, text
	default:
		at = n.start + 1
		ins = append(append(append([]byte("\n"), indent...), text...), "\n"+outer...)
	}
	return apply(doc, []Edit{{at, at, ins}})
}

// lineIndent is the white space that starts the line of doc that off is on.
func lineIndent(doc []byte, off int) string {
	start := bytes.LastIndexByte(doc[:off], '\n') + 1
	line := doc[start:]
	return string(line[:len(line)-len(bytes.TrimLeft(line, " \t"))])
}

// indentUnit is the document's unit of indentation: that of its first
// indented line, two spaces if none is.
func indentUnit(doc []byte) string {
	for _, line := range bytes.Split(doc, []byte("\n"))[1:] {
		if ws := line[:len(line)-len(bytes.TrimLeft(line, " \t"))]; len(ws) > 0 {
			return string(ws)
		}
	}
	return "  "
}

func jsonKey(s string) string { return string(jsonString(s)) }
