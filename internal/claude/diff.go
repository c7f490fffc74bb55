package claude

import (
	"fmt"
	"io"
	"sort"
	"strings"
)

// diffContext is how many unchanged lines a hunk shows around a change, as
// diff -u does.
const diffContext = 3

// A lineChange replaces the old lines [from, to) with lines.
type lineChange struct {
	from, to int
	lines    []string
}

// Diff writes the edits of old as a unified diff, as diff -u does. It is built from the
// edits themselves, so it costs time in proportion to the document, however
// large, instead of comparing every line with every other.
func Diff(w io.Writer, nameA, nameB string, old []byte, edits []Edit) {
	edits = append([]Edit(nil), edits...)
	sort.Slice(edits, func(i, j int) bool { return edits[i].Start < edits[j].Start })
	lines := splitKeep(string(old))
	// starts[i] is the offset of line i; a last entry marks the end.
	starts := make([]int, 0, len(lines)+1)
	off := 0
	for _, l := range lines {
		starts = append(starts, off)
		off += len(l)
	}
	starts = append(starts, off)
	lineOf := func(off int) int { // the line holding byte off
		return max(sort.SearchInts(starts, off+1)-1, 0)
	}

	// Edits on the same or touching lines make one change.
	var changes []lineChange
	for i := 0; i < len(edits); {
		from := lineOf(edits[i].Start)
		to := lineOf(max(edits[i].End-1, edits[i].Start)) + 1
		j := i + 1
		for j < len(edits) && lineOf(edits[j].Start) < to {
			to = max(to, lineOf(max(edits[j].End-1, edits[j].Start))+1)
			j++
		}
		to = min(to, len(lines))
		var b strings.Builder
		at := starts[from]
		for _, e := range edits[i:j] {
			b.Write(old[at:e.Start])
			b.Write(e.Text)
			at = e.End
		}
		b.Write(old[at:starts[to]])
		changes = append(changes, lineChange{from, to, splitKeep(b.String())})
		i = j
	}

	fmt.Fprintf(w, "--- %s\n+++ %s\n", nameA, nameB)
	delta := 0 // new line number minus old, before the hunk
	for i := 0; i < len(changes); {
		// A hunk joins changes fewer than 2*context unchanged lines apart.
		j := i + 1
		for j < len(changes) && changes[j].from-changes[j-1].to <= 2*diffContext {
			j++
		}
		start := max(changes[i].from-diffContext, 0)
		end := min(changes[j-1].to+diffContext, len(lines))
		var body strings.Builder
		na, nb := 0, 0
		ctx := func(from, to int) {
			for _, l := range lines[from:to] {
				writeDiffLine(&body, ' ', l)
			}
			na += to - from
			nb += to - from
		}
		at := start
		hunkDelta := delta
		for _, c := range changes[i:j] {
			ctx(at, c.from)
			for _, l := range lines[c.from:c.to] {
				writeDiffLine(&body, '-', l)
			}
			for _, l := range c.lines {
				writeDiffLine(&body, '+', l)
			}
			na += c.to - c.from
			nb += len(c.lines)
			delta += len(c.lines) - (c.to - c.from)
			at = c.to
		}
		ctx(at, end)
		fmt.Fprintf(w, "@@ -%s +%s @@\n%s", hunkRange(start, na), hunkRange(start+hunkDelta, nb), body.String())
		i = j
	}
}

// hunkRange writes where a hunk's lines are, as diff -u does: the first
// line (counting from 1) and the count; an empty range names the line
// before it.
func hunkRange(start, n int) string {
	if n == 0 {
		return fmt.Sprintf("%d,0", start)
	}
	return fmt.Sprintf("%d,%d", start+1, n)
}

func writeDiffLine(b *strings.Builder, kind byte, line string) {
	b.WriteByte(kind)
	b.WriteString(line)
	if !strings.HasSuffix(line, "\n") {
		b.WriteString("\n\\ No newline at end of file\n")
	}
}

// splitKeep splits s into lines, each keeping its newline.
func splitKeep(s string) []string {
	var out []string
	for s != "" {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			out = append(out, s)
			break
		}
		out = append(out, s[:i+1])
		s = s[i+1:]
	}
	return out
}
