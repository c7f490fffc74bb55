// Package chromium drives headless Chromium over the DevTools protocol on
// a pipe (--remote-debugging-pipe: JSON messages ended by a NUL byte,
// written to its fd 3 and read from its fd 4), with nothing beyond the
// standard library: the dashboard's browser tests and its benchmark load
// a page, read its DOM, wait for it to change and hear every console
// message, uncaught exception and blocked load. It is linked into no
// guard binary.
package chromium

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"
)

// Find returns the path of Chromium on PATH, or "".
func Find() string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// A Browser is a headless Chromium with one tab. It is safe for use by
// one goroutine at a time.
type Browser struct {
	cmd     *exec.Cmd
	out     io.WriteCloser
	session string

	mu       sync.Mutex
	next     int
	replies  map[int]chan message
	problems []string
	closed   chan struct{}
}

type message struct {
	ID     int             `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  *struct{ Message string }
}

// Start starts the Chromium at path with a fresh profile in profileDir
// (the machine has no network: nothing in the background may try it),
// and a blank tab, attached.
func Start(path, profileDir string) (*Browser, error) {
	toChrome, ours, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	theirs, fromChrome, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(path, "--headless", "--no-sandbox", "--disable-gpu",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--no-first-run", "--no-default-browser-check", "--user-data-dir="+profileDir,
		"--remote-debugging-pipe", "about:blank")
	cmd.ExtraFiles = []*os.File{toChrome, fromChrome} // its fds 3 and 4
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("cannot start chromium: %w", err)
	}
	toChrome.Close()
	fromChrome.Close()
	b := &Browser{cmd: cmd, out: ours, replies: map[int]chan message{}, closed: make(chan struct{})}
	go b.read(theirs)
	var target struct{ TargetID string }
	if err := b.call("", "Target.createTarget", map[string]any{"url": "about:blank"}, &target); err != nil {
		b.Close()
		return nil, err
	}
	var attached struct{ SessionID string }
	if err := b.call("", "Target.attachToTarget", map[string]any{"targetId": target.TargetID, "flatten": true}, &attached); err != nil {
		b.Close()
		return nil, err
	}
	b.session = attached.SessionID
	for _, domain := range []string{"Runtime", "Log", "Page"} {
		if err := b.call(b.session, domain+".enable", map[string]any{}, nil); err != nil {
			b.Close()
			return nil, err
		}
	}
	return b, nil
}

// read dispatches what Chromium says: replies to their callers, and the
// events that report a problem to problems.
func (b *Browser) read(r io.Reader) {
	defer close(b.closed)
	br := bufio.NewReader(r)
	for {
		raw, err := br.ReadBytes(0)
		if err != nil {
			return
		}
		var m message
		if json.Unmarshal(raw[:len(raw)-1], &m) != nil {
			continue
		}
		b.mu.Lock()
		if ch := b.replies[m.ID]; m.ID != 0 && ch != nil {
			ch <- m
			delete(b.replies, m.ID)
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
func (b *Browser) call(session, method string, params any, result any) error {
	b.mu.Lock()
	b.next++
	id := b.next
	ch := make(chan message, 1)
	b.replies[id] = ch
	b.mu.Unlock()
	msg := map[string]any{"id": id, "method": method, "params": params}
	if session != "" {
		msg["sessionId"] = session
	}
	data, _ := json.Marshal(msg)
	if _, err := b.out.Write(append(data, 0)); err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	select {
	case m := <-ch:
		if m.Error != nil {
			return fmt.Errorf("%s: %s", method, m.Error.Message)
		}
		if result != nil {
			return json.Unmarshal(m.Result, result)
		}
		return nil
	case <-b.closed:
		return fmt.Errorf("%s: chromium went away", method)
	case <-time.After(30 * time.Second):
		return fmt.Errorf("%s: no answer from chromium in 30s", method)
	}
}

// Open loads url and waits, up to timeout, for it to finish loading.
func (b *Browser) Open(url string, timeout time.Duration) error {
	if err := b.call(b.session, "Page.navigate", map[string]any{"url": url}, nil); err != nil {
		return err
	}
	ok, err := b.WaitFor(`document.readyState === "complete" && location.href === `+quote(url), timeout)
	if err == nil && !ok {
		err = fmt.Errorf("%s did not load in %s", url, timeout)
	}
	return err
}

// Eval evaluates a JavaScript expression in the page and decodes its
// value (JSON-able) into v, if v is not nil.
func (b *Browser) Eval(expr string, v any) error {
	var r struct {
		Result           struct{ Value json.RawMessage }
		ExceptionDetails *struct{ Text string }
	}
	if err := b.call(b.session, "Runtime.evaluate", map[string]any{"expression": expr, "returnByValue": true, "awaitPromise": true}, &r); err != nil {
		return err
	}
	if r.ExceptionDetails != nil {
		return errors.New(r.ExceptionDetails.Text)
	}
	if v != nil && len(r.Result.Value) > 0 {
		return json.Unmarshal(r.Result.Value, v)
	}
	return nil
}

// WaitFor evaluates expr until it is true, for up to timeout.
func (b *Browser) WaitFor(expr string, timeout time.Duration) (bool, error) {
	deadline := time.Now().Add(timeout)
	for {
		var ok bool
		if err := b.Eval("!!("+expr+")", &ok); err != nil {
			return false, err
		}
		if ok || time.Now().After(deadline) {
			return ok, nil
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Screenshot takes a PNG picture of the page laid out in a window width
// CSS pixels wide, as tall as its content (at most maxHeight; 0: the
// window's height, 1000): the same page a person opening it at that width
// would scroll through.
func (b *Browser) Screenshot(width, maxHeight int) ([]byte, error) {
	set := func(h int) error {
		return b.call(b.session, "Emulation.setDeviceMetricsOverride", map[string]any{
			"width": width, "height": h, "deviceScaleFactor": 1, "mobile": width < 600}, nil)
	}
	height := 1000
	if err := set(height); err != nil {
		return nil, err
	}
	if maxHeight > 0 {
		var page int
		if err := b.Eval(`Math.ceil(document.documentElement.scrollHeight)`, &page); err != nil {
			return nil, err
		}
		height = min(max(page, 200), maxHeight)
		if err := set(height); err != nil {
			return nil, err
		}
	}
	// Let the page lay itself out again at that size.
	if err := b.Eval(`new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))`, nil); err != nil {
		return nil, err
	}
	var shot struct{ Data []byte }
	if err := b.call(b.session, "Page.captureScreenshot", map[string]any{"format": "png"}, &shot); err != nil {
		return nil, err
	}
	return shot.Data, nil
}

// Problems returns what the pages said on their console, threw, or were
// refused (a blocked script, a failed load) since the last call.
func (b *Browser) Problems() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	p := b.problems
	b.problems = nil
	return p
}

// Close stops Chromium.
func (b *Browser) Close() {
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

func quote(s string) string {
	var q strings.Builder
	json.NewEncoder(&q).Encode(s)
	return strings.TrimSpace(q.String())
}
