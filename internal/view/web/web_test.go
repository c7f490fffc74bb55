package web

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"guard/breaker"
	"guard/config"
	"guard/internal/store"
	"guard/internal/store/storetest"
	"guard/internal/view/dashboard"
)

type noRuns struct{}

func (noRuns) Acquire(store.Run, int, time.Duration, func() bool) (store.Slot, error) {
	return nil, store.ErrFull
}
func (noRuns) List(func(store.Holder) bool) ([]store.Run, error) { return nil, nil }

var now = time.Date(2026, 3, 2, 9, 10, 0, 0, time.UTC)

// source is a state with a key made of markup, tripped.
func source(t *testing.T) *dashboard.Source {
	t.Helper()
	c := storetest.NewCircuits()
	err := c.Update(now, func(tx store.CircuitTx) (bool, error) {
		tx.Put(`</svg><script>alert(1)</script>`, breaker.Circuit{State: breaker.Open, LastError: "exit 1: <b>no</b>"})
		return true, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return &dashboard.Source{
		Config: config.Default(t.TempDir()),
		Hooks:  &store.Hooks{Circuits: c, Runs: noRuns{}, Where: "postgres://guard:xxxxx@db/guard"},
		Alive:  func(store.Holder) bool { return false },
		Status: func(w io.Writer) error { _, err := io.WriteString(w, "[]\n"); return err },
		Metrics: func(w io.Writer) error {
			_, err := io.WriteString(w, "guard_circuit_state 0\n")
			return err
		},
	}
}

// TestPageAllowsOnlyItsOwnScriptAndStyle: the policy's hashes are those of
// the inline script and style as written, and markup from a key is text.
func TestPageAllowsOnlyItsOwnScriptAndStyle(t *testing.T) {
	for _, live := range []bool{false, true} {
		m, err := dashboard.New(source(t), now)
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		epoch := ""
		if live {
			epoch = "e1"
		}
		if err := render(&b, m.Page(), epoch); err != nil {
			t.Fatal(err)
		}
		page := b.String()
		policy := csp(live)
		for _, re := range []string{`(?s)<script>(.*?)</script>`, `(?s)<style>(.*?)</style>`} {
			for _, inline := range regexp.MustCompile(re).FindAllStringSubmatch(page, -1) {
				if !strings.Contains(policy, hash(inline[1])) {
					t.Errorf("live=%v: the policy does not allow the inline %.40q", live, inline[1])
				}
			}
		}
		if n := strings.Count(page, "<script>"); n != map[bool]int{false: 1, true: 2}[live] {
			t.Errorf("live=%v: %d scripts in the page", live, n)
		}
		if !strings.Contains(page, `<code class="key">&lt;/svg&gt;&lt;script&gt;alert(1)&lt;/script&gt;</code>`) || strings.Contains(page, "<b>no") {
			t.Errorf("live=%v: the key or its error is not escaped", live)
		}
	}
}

// TestServerIsReadOnlyAndLocal: only GET and HEAD, only for local host
// names, with the policy in a header.
func TestServerIsReadOnlyAndLocal(t *testing.T) {
	m, err := dashboard.New(source(t), now)
	if err != nil {
		t.Fatal(err)
	}
	s := &server{src: source(t), o: dashboard.ServeOptions{Now: func() time.Time { return now }}, model: m,
		changed: make(chan struct{}), stopping: make(chan struct{}), loopback: true, epoch: "e1"}
	for _, tc := range []struct {
		method, host, path string
		want               int
		body               string
	}{
		{"GET", "127.0.0.1:8642", "/", 200, "guard dashboard"},
		{"GET", "localhost:8642", "/metrics", 200, "guard_circuit_state 0"},
		{"GET", "[::1]:8642", "/api/status", 200, "[]"},
		{"GET", "127.0.0.1:8642", "/api/changes?since=0&epoch=e1", 200, `"version":1`},
		{"GET", "127.0.0.1:8642", "/api/changes?since=1&epoch=old", 200, `{"id":"main"`},
		{"GET", "127.0.0.1:8642", "/api/changes?since=x", 400, "since"},
		{"POST", "127.0.0.1:8642", "/", 405, "read-only"},
		{"DELETE", "127.0.0.1:8642", "/api/status", 405, "read-only"},
		{"GET", "evil.example:8642", "/", 421, "answers only to localhost"},
		{"GET", "127.0.0.1:8642", "/etc/passwd", 404, ""},
	} {
		r := httptest.NewRequest(tc.method, tc.path, nil)
		r.Host = tc.host
		w := httptest.NewRecorder()
		s.ServeHTTP(w, r)
		if w.Code != tc.want || !strings.Contains(w.Body.String(), tc.body) {
			t.Errorf("%s %s (Host %s) = %d %.80q; want %d with %q", tc.method, tc.path, tc.host, w.Code, w.Body.String(), tc.want, tc.body)
		}
		if tc.path == "/" && w.Code == 200 && !strings.Contains(w.Header().Get("Content-Security-Policy"), "frame-ancestors 'none'") {
			t.Errorf("GET / has no policy header: %q", w.Header().Get("Content-Security-Policy"))
		}
	}
}

// TestWaitingPagesEndWhenTheServerStops: a page waiting for a change is
// answered as soon as the server stops.
func TestWaitingPagesEndWhenTheServerStops(t *testing.T) {
	m, err := dashboard.New(source(t), now)
	if err != nil {
		t.Fatal(err)
	}
	s := &server{src: source(t), o: dashboard.ServeOptions{Now: func() time.Time { return now }}, model: m,
		changed: make(chan struct{}), stopping: make(chan struct{}), loopback: true, epoch: "e1"}
	done := make(chan int)
	go func() {
		r := httptest.NewRequest("GET", "/api/changes?since=1&epoch=e1", nil).WithContext(context.Background())
		r.Host = "127.0.0.1"
		w := httptest.NewRecorder()
		s.ServeHTTP(w, r)
		done <- w.Code
	}()
	close(s.stopping)
	select {
	case code := <-done:
		if code != http.StatusOK {
			t.Errorf("the waiting page got %d", code)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the waiting page was not answered when the server stopped")
	}
}

// TestServeWarnsOffLoopback: an address other than loopback is served
// with a warning that anyone who can reach it sees every command line;
// the server stops when its context ends.
func TestServeWarnsOffLoopback(t *testing.T) {
	for _, tc := range []struct {
		listen string
		warn   bool
	}{{"127.0.0.1:0", false}, {"0.0.0.0:0", true}} {
		ctx, cancel := context.WithCancel(context.Background())
		var warned []string
		err := Dashboard{}.Serve(ctx, source(t), dashboard.ServeOptions{
			Listen: tc.listen, Interval: time.Hour, Now: func() time.Time { return now },
			Ready: func(string) { cancel() },
			Warn:  func(format string, args ...any) { warned = append(warned, fmt.Sprintf(format, args...)) },
		})
		if err != nil {
			t.Errorf("%s: Serve = %v", tc.listen, err)
		}
		if got := len(warned) == 1 && strings.Contains(warned[0], "anyone who can reach it sees every command line"); got != tc.warn {
			t.Errorf("%s: warnings %q; want a warning: %v", tc.listen, warned, tc.warn)
		}
	}
}
