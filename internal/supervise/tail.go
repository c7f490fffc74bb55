package supervise

import (
	"bytes"
	"io"
	"regexp"
	"strings"
	"sync"
	"unicode/utf8"
)

// TailSize is how much of the child's stderr is kept.
const TailSize = 4 << 10

// A tail is a writer that keeps the last TailSize bytes written to it.
type tail struct {
	mu  sync.Mutex
	buf []byte
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(p) >= TailSize {
		t.buf = append(t.buf[:0], p[len(p)-TailSize:]...)
		return len(p), nil
	}
	if over := len(t.buf) + len(p) - TailSize; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	t.buf = append(t.buf, p...)
	return len(p), nil
}

func (t *tail) Bytes() []byte {
	t.mu.Lock()
	defer t.mu.Unlock()
	return bytes.Clone(t.buf)
}

// copyTee copies r to w and to t until r ends, or until writing to w
// fails (guard's own stderr closed, say): the caller then closes r, so the
// child meets the broken pipe itself instead of writing into a pipe
// nobody reads, or blocking on it.
func copyTee(w io.Writer, t *tail, r io.Reader) {
	buf := make([]byte, TailSize)
	for {
		n, err := r.Read(buf)
		if n > 0 {
			t.Write(buf[:n])
			if w != nil {
				if _, werr := w.Write(buf[:n]); werr != nil {
					return // nobody reads guard's stderr any more
				}
			}
		}
		if err != nil {
			return
		}
	}
}

// ansiRE matches terminal escape sequences. It is compiled on first use,
// when a run fails.
var ansiRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)`)
})

// Summary cleans up the end of a stderr tail for the record: terminal
// escapes removed, invalid UTF-8 replaced, blank lines trimmed, and cut to
// at most max bytes at a line start where it can be.
func Summary(b []byte, max int) string {
	s := string(b)
	if strings.IndexByte(s, 0x1b) >= 0 {
		s = ansiRE().ReplaceAllString(s, "")
	}
	s = strings.ToValidUTF8(s, "\uFFFD")
	s = strings.ReplaceAll(s, "\r\n", "\n")
	s = strings.TrimSpace(s)
	if len(s) <= max {
		return s
	}
	s = s[len(s)-max:]
	if i := strings.IndexByte(s, '\n'); i >= 0 && i < len(s)-1 {
		return s[i+1:]
	}
	for len(s) > 0 && !utf8.RuneStart(s[0]) {
		s = s[1:]
	}
	return s
}

// LastLine returns the last non-empty line of s.
func LastLine(s string) string {
	s = strings.TrimRight(s, " \t\r\n")
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	return strings.TrimSpace(s)
}
