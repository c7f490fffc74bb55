package claudetest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
)

// An API is a stand-in for Anthropic's Messages API on loopback. To each
// request of a turn that offers the Bash tool and has no tool result yet,
// it streams one Bash tool call running Command (message_start,
// content_block_start with a tool_use, an input_json_delta,
// content_block_stop, message_delta with stop_reason tool_use,
// message_stop); to a request whose last message brings the tool's result
// back, and to any other, it streams a short text that ends the turn. It
// records the tool results it receives. It is safe for concurrent use.
type API struct {
	// Command is the Bash command the tool call runs.
	Command string

	srv *http.Server
	ln  net.Listener

	mu       sync.Mutex
	requests []Request
	results  []ToolResult
}

// A Request is one request Claude Code made.
type Request struct {
	Method, Path string
	Model        string
	Tools        []string
	Messages     int
}

// A ToolResult is a tool_result block Claude Code sent back: the tool's
// output, or, when a hook blocked the call, what the hook said
// ("PreToolUse:Bash hook error: [COMMAND]: STDERR").
type ToolResult struct {
	Content string
	IsError bool
}

// StartAPI starts a stand-in on a free loopback port.
func StartAPI(command string) (*API, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("cannot listen on loopback: %w", err)
	}
	a := &API{Command: command, ln: ln}
	a.srv = &http.Server{Handler: http.HandlerFunc(a.serve)}
	go a.srv.Serve(ln)
	return a, nil
}

// URL is the stand-in's base URL, for ANTHROPIC_BASE_URL.
func (a *API) URL() string { return "http://" + a.ln.Addr().String() }

// Close stops the stand-in.
func (a *API) Close() error { return a.srv.Close() }

// Requests returns the requests received so far.
func (a *API) Requests() []Request {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]Request(nil), a.requests...)
}

// ToolResults returns the tool results received so far, in order: one per
// tool call that came back.
func (a *API) ToolResults() []ToolResult {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]ToolResult(nil), a.results...)
}

type message struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

type block struct {
	Type    string          `json:"type"`
	Content json.RawMessage `json:"content"`
	IsError bool            `json:"is_error"`
	Text    string          `json:"text"`
}

func (a *API) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var req struct {
		Model    string    `json:"model"`
		Stream   bool      `json:"stream"`
		Messages []message `json:"messages"`
		Tools    []struct {
			Name string `json:"name"`
		} `json:"tools"`
	}
	_ = json.Unmarshal(body, &req)
	rec := Request{Method: r.Method, Path: r.URL.Path, Model: req.Model, Messages: len(req.Messages)}
	for _, t := range req.Tools {
		rec.Tools = append(rec.Tools, t.Name)
	}
	var results []ToolResult
	if n := len(req.Messages); n > 0 {
		results = toolResults(req.Messages[n-1])
	}
	a.mu.Lock()
	a.requests = append(a.requests, rec)
	a.results = append(a.results, results...)
	a.mu.Unlock()

	switch {
	case r.Method != http.MethodPost:
		http.NotFound(w, r)
		return
	case strings.HasSuffix(r.URL.Path, "/count_tokens"):
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"input_tokens": 10}`)
		return
	case !strings.HasSuffix(r.URL.Path, "/v1/messages"):
		http.NotFound(w, r)
		return
	}
	callTool := len(results) == 0 && len(req.Messages) > 0 && contains(rec.Tools, "Bash")
	msg := map[string]any{"id": "msg_guard_test", "type": "message", "role": "assistant", "model": req.Model,
		"content": []any{}, "stop_reason": nil, "stop_sequence": nil, "usage": map[string]int{"input_tokens": 10, "output_tokens": 1}}
	var events [][2]any
	add := func(name string, data any) { events = append(events, [2]any{name, data}) }
	add("message_start", map[string]any{"type": "message_start", "message": msg})
	stop := "end_turn"
	if callTool {
		stop = "tool_use"
		input, _ := json.Marshal(map[string]string{"command": a.Command, "description": "run the test's command"})
		add("content_block_start", map[string]any{"type": "content_block_start", "index": 0,
			"content_block": map[string]any{"type": "tool_use", "id": fmt.Sprintf("toolu_guard_%d", len(a.Requests())), "name": "Bash", "input": map[string]any{}}})
		add("content_block_delta", map[string]any{"type": "content_block_delta", "index": 0,
			"delta": map[string]any{"type": "input_json_delta", "partial_json": string(input)}})
	} else {
		add("content_block_start", map[string]any{"type": "content_block_start", "index": 0,
			"content_block": map[string]any{"type": "text", "text": ""}})
		add("content_block_delta", map[string]any{"type": "content_block_delta", "index": 0,
			"delta": map[string]any{"type": "text_delta", "text": "Done."}})
	}
	add("content_block_stop", map[string]any{"type": "content_block_stop", "index": 0})
	add("message_delta", map[string]any{"type": "message_delta",
		"delta": map[string]any{"stop_reason": stop, "stop_sequence": nil}, "usage": map[string]int{"output_tokens": 5}})
	add("message_stop", map[string]any{"type": "message_stop"})

	if !req.Stream {
		// The whole message at once.
		content := []any{map[string]any{"type": "text", "text": "Done."}}
		if callTool {
			var input map[string]any
			_ = json.Unmarshal([]byte(events[2][1].(map[string]any)["delta"].(map[string]any)["partial_json"].(string)), &input)
			content = []any{map[string]any{"type": "tool_use", "id": "toolu_guard", "name": "Bash", "input": input}}
		}
		msg["content"], msg["stop_reason"] = content, stop
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(msg)
		return
	}
	var out bytes.Buffer
	for _, e := range events {
		data, _ := json.Marshal(e[1])
		fmt.Fprintf(&out, "event: %s\ndata: %s\n\n", e[0], data)
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.Write(out.Bytes())
}

// toolResults returns the tool_result blocks of a user message.
func toolResults(m message) []ToolResult {
	var blocks []block
	if m.Role != "user" || json.Unmarshal(m.Content, &blocks) != nil {
		return nil
	}
	var out []ToolResult
	for _, b := range blocks {
		if b.Type != "tool_result" {
			continue
		}
		tr := ToolResult{IsError: b.IsError}
		var s string
		var parts []block
		switch {
		case json.Unmarshal(b.Content, &s) == nil:
			tr.Content = s
		case json.Unmarshal(b.Content, &parts) == nil:
			for _, p := range parts {
				tr.Content += p.Text
			}
		}
		out = append(out, tr)
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
