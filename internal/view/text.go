// Package view turns guard's state into what people and scripts read:
// the status table and its JSON, the health report (text, JSON, Markdown,
// Prometheus), event descriptions, skip notices and budget lines. It
// reads the state through package store's interfaces, and escapes
// everything that comes from outside (keys, errors) in text output.
package view

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"guard/internal/jsonx"
	"guard/internal/supervise"
)

// Printable escapes what a terminal would act on (newlines, escape
// sequences, other control characters) in text that comes from outside,
// such as a key, so that it prints as one line of plain text.
func Printable(s string) string {
	clean := true
	for _, r := range s {
		if unicode.IsControl(r) {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if !unicode.IsControl(r) {
			b.WriteRune(r)
			continue
		}
		q := strconv.QuoteRune(r)
		b.WriteString(q[1 : len(q)-1])
	}
	return b.String()
}

// LastError shortens a recorded error to its status and last line.
func LastError(msg string, max int) string {
	if msg == "" {
		return ""
	}
	head, rest, found := strings.Cut(msg, ": ")
	line := supervise.LastLine(msg)
	if found && strings.Contains(rest, "\n") {
		line = head + ": " + supervise.LastLine(rest)
	}
	return Truncate(line, max)
}

// Truncate shortens s to at most max bytes, ending in "..." if it was cut,
// without splitting a character.
func Truncate(s string, max int) string {
	if len(s) <= max {
		return s
	}
	cut := max - 3
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "..."
}

// Until says how long until t, to the second.
func Until(t, now time.Time) string {
	d := t.Sub(now)
	switch {
	case d <= 0:
		return "0s"
	case d < time.Second:
		return "1s"
	}
	return d.Truncate(time.Second).String()
}

// ellipsize shortens s to width characters by cutting out its middle.
func ellipsize(s string, width int) string {
	r := []rune(s)
	if width <= 0 || len(r) <= width {
		return s
	}
	head := (width - 1) / 2
	tail := width - 1 - head
	return string(r[:head]) + "…" + string(r[len(r)-tail:])
}

// A table is text in aligned columns, two spaces apart. Colour codes are
// added after the padding is worked out, so they do not upset it.
type table struct {
	header []string
	rows   [][]string
	color  func(row, col int) string // an ANSI colour for a cell, or ""
}

func (t *table) write(w io.Writer) {
	widths := make([]int, len(t.header))
	for _, r := range append([][]string{t.header}, t.rows...) {
		for i, cell := range r {
			widths[i] = max(widths[i], utf8.RuneCountInString(cell))
		}
	}
	line := func(r []string, row int) {
		var b strings.Builder
		for i, cell := range r {
			pad := ""
			if i < len(r)-1 {
				pad = strings.Repeat(" ", widths[i]-utf8.RuneCountInString(cell)+2)
			}
			if c := ""; t.color != nil && row >= 0 {
				if c = t.color(row, i); c != "" {
					cell = c + cell + "\x1b[0m"
				}
			}
			b.WriteString(cell + pad)
		}
		fmt.Fprintln(w, strings.TrimRight(b.String(), " "))
	}
	line(t.header, -1)
	for i, r := range t.rows {
		line(r, i)
	}
}

func WriteJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

func stamp(t jsonx.Time) string {
	if t.IsZero() {
		return "an unknown time"
	}
	return t.UTC().Format(jsonx.TimeLayout)
}

// ErrorLine keeps an error's message to one readable line: its first, at
// most 200 bytes.
func ErrorLine(err error) string {
	msg, _, _ := strings.Cut(err.Error(), "\n")
	return Truncate(msg, 200)
}
