package tests

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"
)

// A browser is headless Chromium, driven over the DevTools protocol on a
// pipe (--remote-debugging-pipe: JSON messages ended by a NUL byte, sent
// on its fd 3 and read from its fd 4), so that a test can load a page,
// read its DOM, wait for it to change and hear every console message and
// uncaught exception, with no package beyond the standard library.
type browser struct {
	t       *testing.T
	cmd     *exec.Cmd
	out     io.WriteCloser
	session string

	mu       sync.Mutex
	next     int
	replies  map[int]chan cdpMessage
	problems []string // console messages, exceptions, log entries
	closed   chan struct{}
}

type cdpMessage struct {
	ID        int             `json:"id"`
	Method    string          `json:"method"`
	Params    json.RawMessage `json:"params"`
	Result    json.RawMessage `json:"result"`
	Error     *struct{ Message string }
	SessionID string `json:"sessionId"`
}

// chromium returns the browser to test with. Outside CI a machine without
// one skips the test; in CI (CI set, as .ci/run does) it fails.
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") != "" {
		t.Fatal("no chromium on PATH: .ci/run installs Debian's chromium package")
	}
	t.Skip("no chromium on PATH (Debian: apt-get install chromium)")
	return ""
}

// newBrowser starts Chromium with a blank tab, attached.
func newBrowser(t *testing.T) *browser {
	t.Helper()
	toChrome, ours, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	theirs, fromChrome, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(chromium(t), "--headless", "--no-sandbox", "--disable-gpu",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--no-first-run", "--no-default-browser-check", "--user-data-dir="+t.TempDir(),
		"--remote-debugging-pipe", "about:blank")
	cmd.ExtraFiles = []*os.File{toChrome, fromChrome} // its fds 3 and 4
	if err := cmd.Start(); err != nil {
		t.Fatalf("cannot start chromium: %v", err)
	}
	toChrome.Close()
	fromChrome.Close()
	b := &browser{t: t, cmd: cmd, out: ours, replies: map[int]chan cdpMessage{}, closed: make(chan struct{})}
	go b.read(theirs)
	t.Cleanup(b.close)

	var target struct{ TargetID string }
	b.call("", "Target.createTarget", map[string]any{"url": "about:blank"}, &target)
	var attached struct{ SessionID string }
	b.call("", "Target.attachToTarget", map[string]any{"targetId": target.TargetID, "flatten": true}, &attached)
	b.session = attached.SessionID
	for _, domain := range []string{"Runtime", "Log", "Page"} {
		b.call(b.session, domain+".enable", map[string]any{}, nil)
	}
	return b
}

// read dispatches what Chromium says: replies to their callers, and the
// events that report a problem to problems.
func (b *browser) read(r io.Reader) {
	defer close(b.closed)
	br := bufio.NewReader(r)
	for {
		raw, err := br.ReadBytes(0)
		if err != nil {
			return
		}
		var m cdpMessage
		if json.Unmarshal(raw[:len(raw)-1], &m) != nil {
			continue
		}
		b.mu.Lock()
		if m.ID != 0 {
			if ch := b.replies[m.ID]; ch != nil {
				ch <- m
				delete(b.replies, m.ID)
			}
		}
		switch m.Method {
		case "Runtime.consoleAPICalled":
			var p struct {
				Type string
				Args []struct{ Value any }
			}
			json.Unmarshal(m.Params, &p)
			b.problems = append(b.problems, fmt.Sprintf("console.%s: %v", p.Type, p.Args))
		case "Runtime.exceptionThrown":
			b.problems = append(b.problems, "exception: "+string(m.Params))
		case "Log.entryAdded":
			var p struct {
				Entry struct{ Level, Source, Text, URL string }
			}
			json.Unmarshal(m.Params, &p)
			if p.Entry.Level == "error" || p.Entry.Level == "warning" {
				b.problems = append(b.problems, fmt.Sprintf("log %s (%s): %s %s", p.Entry.Level, p.Entry.Source, p.Entry.Text, p.Entry.URL))
			}
		}
		b.mu.Unlock()
	}
}

// call sends a command and waits for its result, decoded into result.
func (b *browser) call(session, method string, params any, result any) {
	b.t.Helper()
	b.mu.Lock()
	b.next++
	id := b.next
	ch := make(chan cdpMessage, 1)
	b.replies[id] = ch
	b.mu.Unlock()
	msg := map[string]any{"id": id, "method": method, "params": params}
	if session != "" {
		msg["sessionId"] = session
	}
	data, _ := json.Marshal(msg)
	if _, err := b.out.Write(append(data, 0)); err != nil {
		b.t.Fatalf("%s: %v", method, err)
	}
	select {
	case m := <-ch:
		if m.Error != nil {
			b.t.Fatalf("%s: %s", method, m.Error.Message)
		}
		if result != nil {
			if err := json.Unmarshal(m.Result, result); err != nil {
				b.t.Fatalf("%s: %v", method, err)
			}
		}
	case <-b.closed:
		b.t.Fatalf("%s: chromium went away", method)
	case <-time.After(30 * time.Second):
		b.t.Fatalf("%s: no answer from chromium in 30s", method)
	}
}

// open loads url and waits for it to finish loading.
func (b *browser) open(url string) {
	b.t.Helper()
	b.call(b.session, "Page.navigate", map[string]any{"url": url}, nil)
	if !b.waitFor(`document.readyState === "complete" && location.href === `+jsString(url), 20*time.Second) {
		b.t.Fatalf("%s did not load", url)
	}
}

// eval evaluates a JavaScript expression in the page and decodes its
// value (JSON-able) into v.
func (b *browser) eval(expr string, v any) {
	b.t.Helper()
	var r struct {
		Result           struct{ Value json.RawMessage }
		ExceptionDetails *struct{ Text string }
	}
	b.call(b.session, "Runtime.evaluate", map[string]any{"expression": expr, "returnByValue": true}, &r)
	if r.ExceptionDetails != nil {
		b.t.Fatalf("evaluating %s: %s", expr, r.ExceptionDetails.Text)
	}
	if v != nil && len(r.Result.Value) > 0 {
		if err := json.Unmarshal(r.Result.Value, v); err != nil {
			b.t.Fatalf("evaluating %s: %v", expr, err)
		}
	}
}

// waitFor evaluates expr until it is true, for up to timeout.
func (b *browser) waitFor(expr string, timeout time.Duration) bool {
	b.t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		var ok bool
		b.eval("!!("+expr+")", &ok)
		if ok {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// checkNoProblems fails the test if the page said anything on its console,
// threw, or broke a rule (a blocked script, a refused fetch), since the
// last check.
func (b *browser) checkNoProblems(what string) {
	b.t.Helper()
	b.mu.Lock()
	problems := b.problems
	b.problems = nil
	b.mu.Unlock()
	if len(problems) > 0 {
		b.t.Errorf("%s: the browser reported:\n%s", what, strings.Join(problems, "\n"))
	}
}

func (b *browser) close() {
	data, _ := json.Marshal(map[string]any{"id": 1 << 30, "method": "Browser.close"})
	b.out.Write(append(data, 0))
	b.out.Close()
	done := make(chan struct{})
	go func() { b.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		b.cmd.Process.Kill()
		<-done
	}
}

func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
