package cli

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"golang.org/x/sys/unix"

	"guard/cmd/guard/guardrun"
	"guard/internal/ptytest"
	"guard/internal/store/file"
	"guard/internal/view"
)

// TestColourOnlyOnATerminalWithoutNoColor covers hostile-user finding 13:
// guard itself must find out that stdout is a terminal.
func TestColourOnlyOnATerminalWithoutNoColor(t *testing.T) {
	pts := ptytest.Open(t)
	for _, tc := range []struct {
		tty  bool
		env  map[string]string
		want bool
	}{
		{true, nil, true},
		{false, nil, false},
		{true, map[string]string{"NO_COLOR": "1"}, false},
		{true, map[string]string{"TERM": "dumb"}, false},
	} {
		var out io.Writer = &bytes.Buffer{}
		if tc.tty {
			out = pts
		}
		e := &env{Env: guardrun.Env{Stdout: out, Getenv: func(k string) string { return tc.env[k] }}}
		if got := e.color(); got != tc.want {
			t.Errorf("tty %v, env %v: color = %v; want %v", tc.tty, tc.env, got, tc.want)
		}
	}
}

func TestWatchFrameRedrawsInPlace(t *testing.T) {
	first := string(frame("A\nB\n", true, time.Second, 0, 0))
	if first != "\x1b[2J\x1b[HA\x1b[K\nB\x1b[K\n\x1b[K\nevery 1s; Ctrl-C to stop\x1b[K\x1b[J" {
		t.Errorf("first frame %q", first)
	}
	next := string(frame("A\n", false, 2*time.Second, 0, 0))
	if strings.Contains(next, "\x1b[2J") || !strings.HasPrefix(next, "\x1b[H") || !strings.HasSuffix(next, "\x1b[J") {
		t.Errorf("a later frame clears the screen first or does not redraw in place: %q", next)
	}
}

// frameRows returns the rows a frame takes on the screen (it starts at the
// top), and its lines as shown, without escape sequences.
func frameRows(f string) (int, []string) {
	plain := regexp.MustCompile("\x1b\\[[0-9;?]*[A-Za-z]").ReplaceAllString(f, "")
	lines := strings.Split(plain, "\n")
	return len(lines), lines
}

// TestWatchFrameFitsTheTerminal covers hostile-user-2 m25: a frame never
// takes more rows than the terminal has (so it never scrolls), keeps the
// header, says how many lines it left out, and cuts lines to the width.
func TestWatchFrameFitsTheTerminal(t *testing.T) {
	var content strings.Builder
	content.WriteString("STATE   KEY\n")
	for i := range 30 {
		fmt.Fprintf(&content, "\x1b[31mopen\x1b[0m    key-%02d-%s\n", i, strings.Repeat("x", 100))
	}
	for _, size := range []struct{ rows, cols int }{{10, 80}, {24, 40}, {40, 200}, {5, 20}, {3, 10}, {2, 10}} {
		f := string(frame(content.String(), false, time.Second, size.rows, size.cols))
		rows, lines := frameRows(f)
		if rows > size.rows {
			t.Errorf("%dx%d: the frame takes %d rows", size.rows, size.cols, rows)
		}
		if !strings.HasPrefix(lines[0], "STATE") {
			t.Errorf("%dx%d: the first line is %q; want the header", size.rows, size.cols, lines[0])
		}
		for _, l := range lines {
			if n := utf8.RuneCountInString(l); n >= size.cols {
				t.Errorf("%dx%d: a line of %d columns: %q", size.rows, size.cols, n, l)
			}
		}
		cut := 31 - (size.rows - 2 - 1)
		if size.rows >= 40 {
			cut = 0
		}
		if size.rows < 4 {
			cut = 31 - 1
		}
		if more := fmt.Sprintf("... %d more lines", cut); cut > 0 && size.rows > 2 && !strings.Contains(f, more[:min(len(more), size.cols-1)]) {
			t.Errorf("%dx%d: no %q line in %q", size.rows, size.cols, more, lines)
		}
		if cut == 0 && strings.Contains(f, "more lines") {
			t.Errorf("%dx%d: lines left out of a frame that fits", size.rows, size.cols)
		}
	}
	// A colour cut off is ended; a wide character takes two columns.
	if got := clip("\x1b[31mopen (forced)\x1b[0m", 4); got != "\x1b[31mopen\x1b[0m" {
		t.Errorf("clip = %q", got)
	}
	if got := clip("日本語キー", 5); got != "日本" {
		t.Errorf("clip = %q; want two wide characters", got)
	}
}

// openPty opens a pseudo-terminal of rows and cols, and returns both ends.
func openPty(t *testing.T, rows, cols int) (ptm, pts *os.File) {
	t.Helper()
	ptm, err := os.OpenFile("/dev/ptmx", os.O_RDWR, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals here: %v", err)
	}
	t.Cleanup(func() { ptm.Close() })
	if err := unix.IoctlSetPointerInt(int(ptm.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Fatal(err)
	}
	n, err := unix.IoctlGetInt(int(ptm.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Fatal(err)
	}
	pts, err = os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pts.Close() })
	resize(t, pts, rows, cols)
	return ptm, pts
}

func resize(t *testing.T, tty *os.File, rows, cols int) {
	t.Helper()
	if err := unix.IoctlSetWinsize(int(tty.Fd()), unix.TIOCSWINSZ, &unix.Winsize{Row: uint16(rows), Col: uint16(cols)}); err != nil {
		t.Fatal(err)
	}
}

func TestTermSizeFollowsResize(t *testing.T) {
	_, pts := openPty(t, 10, 80)
	if r, c := termSize(pts); r != 10 || c != 80 {
		t.Errorf("termSize = %d, %d; want 10, 80", r, c)
	}
	resize(t, pts, 30, 100)
	if r, c := termSize(pts); r != 30 || c != 100 {
		t.Errorf("after a resize termSize = %d, %d; want 30, 100", r, c)
	}
	if r, c := termSize(&bytes.Buffer{}); r != 0 || c != 0 {
		t.Errorf("termSize of a buffer = %d, %d; want 0, 0", r, c)
	}
}

// TestWatchOnASmallTerminal runs guard status --watch on a terminal of 10
// rows with 30 keys: no frame scrolls, and each starts with the header.
func TestWatchOnASmallTerminal(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "home"), 0o755)
	os.WriteFile(filepath.Join(dir, "guardrails.yaml"), nil, 0o644)
	var stdout, stderr bytes.Buffer
	for i := range 30 {
		if code := testEnv(dir, &stdout, &stderr).main([]string{"guard", "trip", fmt.Sprintf("key-%02d", i)}); code != 0 {
			t.Fatalf("trip: %s", stderr.String())
		}
	}
	ptm, pts := openPty(t, 10, 60)
	got := make(chan string)
	go func() {
		b, _ := io.ReadAll(ptm) // until the terminal end is closed
		got <- string(b)
	}()
	e := testEnv(dir, &stdout, &stderr)
	e.Stdout = pts
	if code := e.main([]string{"guard", "status", "--watch", "--count", "2", "--interval", "100ms"}); code != 0 {
		t.Fatalf("status --watch: exit %d: %s", code, stderr.String())
	}
	pts.Close()
	out := strings.ReplaceAll(<-got, "\r\n", "\n")
	// The newline after the last frame, for the prompt, comes once the
	// watch is over.
	out, ended := strings.CutSuffix(out, "\n")
	if !ended {
		t.Errorf("no newline after the last frame")
	}
	frames := strings.Split(out, "\x1b[H")[1:]
	if len(frames) != 2 {
		t.Fatalf("%d frames; want 2: %q", len(frames), out)
	}
	for i, f := range frames {
		rows, lines := frameRows(f)
		if rows > 10 || !strings.HasPrefix(lines[0], "STATE") || !strings.Contains(f, "... 24 more lines") {
			t.Errorf("frame %d takes %d rows of 10: %q", i, rows, lines)
		}
	}
}

// TestWatchKeepsItsEventLogCache covers hostile-user-2 m26: the frames of
// status --watch read the event log through one Cache, which reads only
// what was appended since the last frame; a single status reads it whole.
func TestWatchKeepsItsEventLogCache(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "home"), 0o755)
	os.WriteFile(filepath.Join(dir, "guardrails.yaml"), nil, 0o644)
	var stdout, stderr bytes.Buffer
	e := testEnv(dir, &stdout, &stderr)
	cfg, err := e.LoadConfigFrom("", "")
	if err != nil {
		t.Fatal(err)
	}
	if ev, _ := e.runEvents(cfg); reflect.TypeOf(ev) != reflect.TypeOf(file.EventLogs{}) {
		t.Errorf("guard status without --watch reads through %T; want the logs read whole", ev)
	}
	e.watching = &watchEvents{}
	first, _ := e.runEvents(cfg)
	second, _ := e.runEvents(cfg)
	if _, whole := first.(file.EventLogs); whole || first == nil || second != first {
		t.Errorf("frames read through %T then %T; want the logs followed, by one reader", first, second)
	}
	cfg.StateFile = filepath.Join(dir, "other.json")
	if third, _ := e.runEvents(cfg); third == first {
		t.Errorf("the cache outlived a change of state file")
	}
}

// On a narrow terminal, --watch shortens keys in the middle so that the
// KEY column ends on the screen: long keys that differ only at the end
// stay apart (hostile-user-2 re-run: at 40 columns, five keys all showed
// as "a-rath").
func TestWatchKeysFitTheWidth(t *testing.T) {
	now := time.Date(2026, 11, 24, 3, 0, 0, 0, time.UTC)
	var sts []view.KeyStatus
	for i := range 5 {
		sts = append(sts, view.KeyStatus{Key: fmt.Sprintf("a-rather-long-key-name-for-a-hook-number-%04d", i), State: "closed"})
	}
	for _, cols := range []int{50, 60, 80, 200} { // "closed (no state)" starts KEY at 44
		e := &env{fitCols: cols}
		width := e.fitKeys(sts, now, view.KeyWidth)
		var b bytes.Buffer
		view.StatusTable(&b, sts, now, width, false)
		var shown []string
		for _, line := range strings.Split(strings.TrimSpace(b.String()), "\n")[1:] {
			line = clip(line, cols-1)
			if seen := slices.Index(shown, line); seen >= 0 {
				t.Errorf("%d columns: two keys show alike: %q", cols, line)
			}
			shown = append(shown, line)
			if !strings.Contains(line, fmt.Sprintf("%d", len(shown)-1)) {
				t.Errorf("%d columns: the key's end is cut off: %q", cols, line)
			}
		}
	}
	if got := (&env{fitCols: 200}).fitKeys(sts, now, 0); got != 0 {
		t.Errorf("--wide on a wide terminal: key width %d; want 0 (whole keys)", got)
	}
}
