package view

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"

	"guard/config"
	"guard/internal/circuit"
	"guard/internal/jsonx"
	"guard/internal/supervise"
)

// Printable escapes what a terminal would act on or show as something it
// is not, in text that comes from outside, such as a key or an error, so
// that it prints as one line of plain text: newlines, escape sequences and
// other control characters (\n, \x1b, \u0085), format characters such as
// the bidirectional overrides and zero-width characters (\u202e, \u200b),
// any other character that is not printable, and bytes that are not UTF-8
// (\xce). Backslashes are left alone, so a key reads as it was written;
// circuit.Unescape reads the escapes back.
func Printable(s string) string {
	i := 0
	for i < len(s) {
		r, n := utf8.DecodeRuneInString(s[i:])
		if !printableRune(r, n) {
			break
		}
		i += n
	}
	if i == len(s) {
		return s
	}
	var b strings.Builder
	b.WriteString(s[:i])
	for i < len(s) {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case printableRune(r, n):
			b.WriteString(s[i : i+n])
		default:
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
		}
		i += n
	}
	return b.String()
}

// KeyText writes a key for people to read, in every text output (status,
// report, log, notices, doctor): as it is when it has nothing to escape
// and no backslash, else as the one shell word circuit.KeyWord writes. So
// two keys never show the same: the key made of "e" and the escape
// character shows as $'e\x1b', the text e\x1b as 'e\x1b', a newline as
// $'\n' and the text \n as '\n'; and what shows pastes as guard reset's
// KEY. The empty key shows as its shell word too, a pair of single quotes.
// (Printable alone would show both of each pair alike.) JSON keeps keys as
// they are.
//
// A key that starts or ends in white space (a session id with a trailing
// space, say) shows as its shell word too, so that it never looks like the
// key without it (hostile-user-3 m7).
func KeyText(key string) string {
	if key != "" && !strings.Contains(key, `\`) && Printable(key) == key && strings.TrimSpace(key) == key {
		return key
	}
	return circuit.KeyWord(key)
}

// printableRune reports whether r, n bytes long, prints as itself.
func printableRune(r rune, n int) bool {
	if r == utf8.RuneError {
		return n > 1 // U+FFFD itself, not a stray byte
	}
	return r == ' ' || strconv.IsPrint(r)
}

// LastError shortens a recorded error to one line: its status ("exit 1",
// "killed by SIGTERM") and the line of its message that says most about
// what failed. That is the last line, unless the message ends in lines
// indented under another (a "Caused by:", a stack trace, an object dump):
// then it is that line, with the cause after it if there is one, so that
// uv's "error: Failed to spawn: `check.py`" is not reduced to its
// "Caused by: No such file or directory".
//
// A line longer than max bytes (0: no limit) is shortened in the middle,
// its status kept whole: the end of a message is most often what went
// wrong ("... lint.sh: No such file or directory", "ruff: command not
// found"), its start often only a shell's prefix and a long path
// (newcomer-and-mission #9).
func LastError(msg string, max int) string {
	if msg == "" {
		return ""
	}
	head, body := "", msg
	if h, rest, found := strings.Cut(msg, ": "); found && statusRE().MatchString(h) {
		head, body = h+": ", rest
	}
	line := head + supervise.Telling(body)
	if max <= 0 || len(line) <= max {
		return line
	}
	return head + shortenMiddle(line[len(head):], max-len(head))
}

// shortenMiddle shortens s to at most max bytes by cutting out its middle
// ("..."), keeping half of the room for its start (what failed, often)
// and half for its end (why), without splitting a character.
func shortenMiddle(s string, max int) string {
	if len(s) <= max {
		return s
	}
	if max < 8 {
		return Truncate(s, max)
	}
	room := max - 3
	start := room / 2
	for start > 0 && !utf8.RuneStart(s[start]) {
		start--
	}
	end := len(s) - (room - start)
	for end < len(s) && !utf8.RuneStart(s[end]) {
		end++
	}
	return s[:start] + "..." + s[end:]
}

// statusRE matches the status guard writes before a run's stderr in
// last_error.
var statusRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(exit -?[0-9]+|killed by [A-Za-z0-9 ]+)$`)
})

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

// Span says a length of time for people, roughly, as a dashboard says how
// long ago something was: 40s, 4 min, 2h 5 min, 3 days 4h.
func Span(d time.Duration) string {
	d = max(d, 0)
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%d min", int(d.Minutes()))
	case d < 24*time.Hour:
		h, m := int(d.Hours()), int(d.Minutes())%60
		if m == 0 || h >= 10 {
			return fmt.Sprintf("%dh", h)
		}
		return fmt.Sprintf("%dh %d min", h, m)
	}
	days, h := int(d.Hours())/24, int(d.Hours())%24
	unit := "days"
	if days == 1 {
		unit = "day"
	}
	if h == 0 || days >= 3 {
		return fmt.Sprintf("%d %s", days, unit)
	}
	return fmt.Sprintf("%d %s %dh", days, unit, h)
}

// Ago says how long before now t was: "4 min ago"; "just now" within a
// second, and "in the future" for a time after now (a clock that stepped).
func Ago(t, now time.Time) string {
	d := now.Sub(t)
	switch {
	case d < -time.Second:
		return "in the future"
	case d < time.Second:
		return "just now"
	}
	return Span(d) + " ago"
}

// In says how long after now t is: "in 4 min"; "now" once it has come.
func In(t, now time.Time) string {
	d := t.Sub(now)
	if d <= 0 {
		return "now"
	}
	if d < time.Second {
		d = time.Second
	}
	return "in " + Span(d)
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

// ShortenApart shortens each of keys (as shown: see KeyText) to at most
// width characters (0: never) so that keys that differ still look
// different: first in the middle, keeping both ends, as ellipsize does;
// where two keys would then look the same (the hooks of one project,
// which share a long start and end), with more of the end kept, so that a
// script's name survives ($CLAUDE_PROJECT_DIR/.claude/hooks/lint.sh and
// .../format.sh become $CLA…/hooks/lint.sh and $CLA…/hooks/format.sh);
// then with more of the start; and where nothing under width tells them
// apart, whole.
func ShortenApart(keys []string, width int) []string {
	out := make([]string, len(keys))
	if width <= 0 {
		copy(out, keys)
		return out
	}
	cuts := []func(string) string{
		func(s string) string { return ellipsize(s, width) },
		func(s string) string { return cutKeeping(s, width, width/4) },
		func(s string) string { return cutKeeping(s, width, 0) },
		func(s string) string { return cutKeeping(s, width, width-width/4-1) },
	}
	pending := make([]int, 0, len(keys))
	for i := range keys {
		pending = append(pending, i)
	}
	taken := map[string]int{} // shown form -> how many keys have it
	for _, cut := range cuts {
		if len(pending) == 0 {
			break
		}
		tried := map[string][]int{}
		for _, i := range pending {
			tried[cut(keys[i])] = append(tried[cut(keys[i])], i)
		}
		var next []int
		for _, i := range pending {
			s := cut(keys[i])
			if distinct(keys, tried[s]) && taken[s] == 0 {
				out[i] = s
				continue
			}
			next = append(next, i)
		}
		for _, i := range pending {
			if out[i] != "" {
				taken[out[i]]++
			}
		}
		pending = next
	}
	for _, i := range pending {
		out[i] = keys[i] // nothing shorter tells it apart
	}
	return out
}

// distinct reports whether the keys at idx are all the same key (so one
// shown form names one key).
func distinct(keys []string, idx []int) bool {
	for _, i := range idx[1:] {
		if keys[i] != keys[idx[0]] {
			return false
		}
	}
	return true
}

// cutKeeping shortens s to width characters keeping head characters of its
// start and the rest of its end, with "…" between.
func cutKeeping(s string, width, head int) string {
	r := []rune(s)
	if len(r) <= width {
		return s
	}
	tail := width - 1 - head
	return string(r[:head]) + "…" + string(r[len(r)-tail:])
}

// cellWidth is how many columns a terminal gives s: two for each East
// Asian wide or fullwidth character (CJK, Hangul, most emoji), none for a
// combining mark or a format character, one for the rest. (Control
// characters never reach a table: text outputs escape them.)
func cellWidth(s string) int {
	n := 0
	for _, r := range s {
		switch {
		case unicode.In(r, unicode.Mn, unicode.Me, unicode.Cf):
		case wide(r):
			n += 2
		default:
			n++
		}
	}
	return n
}

// wide reports whether r is East Asian wide or fullwidth (Unicode's
// EastAsianWidth W and F), by the blocks that hold them.
func wide(r rune) bool {
	switch {
	case r < 0x1100:
		return false
	case r <= 0x115f, // Hangul Jamo initials
		r >= 0x2e80 && r <= 0x303e, // CJK radicals, punctuation
		r >= 0x3041 && r <= 0x33ff, // kana, CJK symbols
		r >= 0x3400 && r <= 0x4dbf, // CJK extension A
		r >= 0x4e00 && r <= 0x9fff, // CJK unified ideographs
		r >= 0xa000 && r <= 0xa4cf, // Yi
		r >= 0xac00 && r <= 0xd7a3, // Hangul syllables
		r >= 0xf900 && r <= 0xfaff, // CJK compatibility ideographs
		r >= 0xfe30 && r <= 0xfe4f, // CJK compatibility forms
		r >= 0xff00 && r <= 0xff60, // fullwidth forms
		r >= 0xffe0 && r <= 0xffe6,
		r >= 0x1f300 && r <= 0x1f64f, // emoji: pictographs, emoticons
		r >= 0x1f900 && r <= 0x1f9ff, // supplemental symbols and pictographs
		r >= 0x20000 && r <= 0x3fffd: // CJK extensions B and on
		return true
	}
	return false
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
			widths[i] = max(widths[i], cellWidth(cell))
		}
	}
	line := func(r []string, row int) {
		var b strings.Builder
		for i, cell := range r {
			pad := ""
			if i < len(r)-1 {
				pad = strings.Repeat(" ", widths[i]-cellWidth(cell)+2)
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

// WriteJSON writes v as indented JSON, with every character that is not
// printable written as a \u escape (see JSONSafe).
func WriteJSON(w io.Writer, v any) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return err
	}
	_, err := io.WriteString(w, JSONSafe(b.String()))
	return err
}

// JSONSafe writes each character of a JSON text that a terminal would act
// on or show as something it is not (format characters such as U+202E,
// which encoding/json leaves as they are) as a \u escape. The JSON means
// exactly what it meant: the escapes are inside strings, which are the only
// place such characters can be.
func JSONSafe(s string) string {
	i := strings.IndexFunc(s, func(r rune) bool { return r >= utf8.RuneSelf && !printableRune(r, 2) })
	if i < 0 {
		return s
	}
	var b strings.Builder
	b.WriteString(s[:i])
	for i < len(s) {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r < utf8.RuneSelf || n == 1 || printableRune(r, n):
			b.WriteString(s[i : i+n]) // a byte that is not UTF-8 too, as it was
		case r > 0xffff:
			r1, r2 := utf16.EncodeRune(r)
			fmt.Fprintf(&b, `\u%04x\u%04x`, r1, r2)
		default:
			fmt.Fprintf(&b, `\u%04x`, r)
		}
		i += n
	}
	return b.String()
}

func stamp(t jsonx.Time) string {
	if t.IsZero() {
		return "an unknown time"
	}
	return t.UTC().Format(jsonx.TimeLayout)
}

// ErrorLine keeps an error's message to one line that is safe to print:
// its first line, at most 200 bytes, with the secrets of any database URL
// in it hidden (Redact) and what a terminal would act on escaped
// (Printable).
func ErrorLine(err error) string {
	msg, _, _ := strings.Cut(config.Redact(err.Error()), "\n")
	return Truncate(Printable(msg), 200)
}
