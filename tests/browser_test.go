package tests

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"guard/internal/chromium"
)

// A browser is headless Chromium (package chromium) for a test: every
// error fails it.
type browser struct {
	t *testing.T
	b *chromium.Browser
}

// newBrowser starts Chromium with a blank tab. Outside CI a machine
// without one skips the test; in CI (CI set, as .ci/run does) it fails.
func newBrowser(t *testing.T) *browser {
	t.Helper()
	path := chromium.Find()
	if path == "" {
		if os.Getenv("CI") != "" {
			t.Fatal("no chromium on PATH: .ci/run installs Debian's chromium package")
		}
		t.Skip("no chromium on PATH (Debian: apt-get install chromium)")
	}
	b, err := chromium.Start(path, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Close)
	return &browser{t, b}
}

// open loads url and waits for it to finish loading.
func (b *browser) open(url string) {
	b.t.Helper()
	if err := b.b.Open(url, 20*time.Second); err != nil {
		b.t.Fatal(err)
	}
}

// eval evaluates a JavaScript expression in the page into v.
func (b *browser) eval(expr string, v any) {
	b.t.Helper()
	if err := b.b.Eval(expr, v); err != nil {
		b.t.Fatalf("evaluating %s: %v", expr, err)
	}
}

// waitFor evaluates expr until it is true, for up to timeout.
func (b *browser) waitFor(expr string, timeout time.Duration) bool {
	b.t.Helper()
	ok, err := b.b.WaitFor(expr, timeout)
	if err != nil {
		b.t.Fatalf("evaluating %s: %v", expr, err)
	}
	return ok
}

// checkNoProblems fails the test if the page said anything on its console,
// threw, or broke a rule (a blocked script, a refused fetch), since the
// last check.
func (b *browser) checkNoProblems(what string) {
	b.t.Helper()
	if problems := b.b.Problems(); len(problems) > 0 {
		b.t.Errorf("%s: the browser reported:\n%s", what, strings.Join(problems, "\n"))
	}
}

func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
