package web

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"guard/internal/view"
	"guard/internal/view/dashboard"
)

// pollWait is how long /api/changes waits for a change before it answers
// with none.
const pollWait = 25 * time.Second

// A server serves one Model. Every read of the state (the refresh loop,
// /api/status, /metrics) holds mu: a state's handles are not safe for
// concurrent use.
type server struct {
	src *dashboard.Source
	o   dashboard.ServeOptions

	mu       sync.Mutex
	model    *dashboard.Model
	changed  chan struct{} // closed when the version goes up
	stopping chan struct{} // closed when the server stops
	failing  string        // the last refresh's error, shown until one works
	loopback bool          // bound to loopback: answer only to local host names
	// epoch names this server's run: versions and tile ids are its own,
	// so a page from an earlier run (the server restarted under it) is
	// sent whole.
	epoch string
}

// Serve serves the dashboard of src at o.Listen until ctx is done, then
// stops: it answers no new request and ends the pending ones.
func (Dashboard) Serve(ctx context.Context, src *dashboard.Source, o dashboard.ServeOptions) error {
	m, err := dashboard.New(src, o.Now())
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", o.Listen)
	if err != nil {
		return fmt.Errorf("cannot listen: %w", err)
	}
	addr := ln.Addr().(*net.TCPAddr)
	s := &server{src: src, o: o, model: m, changed: make(chan struct{}), stopping: make(chan struct{}), loopback: addr.IP.IsLoopback(),
		epoch: strconv.FormatInt(time.Now().UnixNano(), 36)}
	if !s.loopback {
		o.Warn("serving on %s, which other machines may reach: anyone who can reach it sees every command line guard runs and its errors (guard serve has no authentication; the default, 127.0.0.1, does not have this problem)", addr)
	}
	srv := &http.Server{Handler: s, ReadHeaderTimeout: 10 * time.Second}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	o.Ready("http://" + addr.String() + "/")

	tick := time.NewTicker(o.Interval)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			// The pages waiting for a change are answered at once; then
			// connections that carry no request are closed (a browser's
			// spare ones would otherwise hold Shutdown for 5s).
			close(s.stopping)
			sctx, cancel := context.WithTimeout(context.Background(), time.Second)
			defer cancel()
			if err := srv.Shutdown(sctx); errors.Is(err, context.DeadlineExceeded) {
				return srv.Close()
			} else if err != nil {
				return err
			}
			return nil
		case err := <-served:
			return err
		case <-tick.C:
			s.refresh()
		}
	}
}

// refresh brings the model up to date and wakes the pages waiting for a
// change.
func (s *server) refresh() {
	s.mu.Lock()
	defer s.mu.Unlock()
	changed, err := s.model.Refresh(s.o.Now())
	if err != nil {
		msg := view.ErrorLine(err)
		if msg != s.failing {
			s.o.Warn("%s", msg)
		}
		s.failing = msg
		return
	}
	s.failing = ""
	if changed {
		close(s.changed)
		s.changed = make(chan struct{})
	}
}

func (s *server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Cache-Control", "no-store")
	if s.loopback && !localHost(r.Host) {
		// A page elsewhere could reach a loopback port through a host
		// name of its own that resolves to 127.0.0.1 (DNS rebinding).
		http.Error(w, "guard serve answers only to localhost, 127.0.0.1 or [::1]", http.StatusMisdirectedRequest)
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		h.Set("Allow", "GET, HEAD")
		http.Error(w, "guard serve is read-only", http.StatusMethodNotAllowed)
		return
	}
	switch r.URL.Path {
	case "/":
		s.page(w)
	case "/api/changes":
		s.changes(w, r)
	case "/api/status":
		s.write(w, "application/json", s.src.Status)
	case "/metrics":
		s.write(w, "text/plain; version=0.0.4; charset=utf-8", s.src.Metrics)
	default:
		http.NotFound(w, r)
	}
}

// localHost reports whether host (a Host header) names this machine's
// loopback.
func localHost(host string) bool {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.Trim(host, "[]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func (s *server) page(w http.ResponseWriter) {
	s.mu.Lock()
	p := s.model.Page()
	s.mu.Unlock()
	s.warnOnPage(&p.Warnings)
	var b bytes.Buffer
	if err := render(&b, p, s.epoch); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Security-Policy", csp(true))
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Write(b.Bytes())
}

func (s *server) warnOnPage(ws *[]string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.failing != "" {
		*ws = append(*ws, "the state could not be read at the last look: "+s.failing)
	}
}

// A fragment is a part of the page that changed: the element with that
// id takes its place, or, if there is none, it goes at the end of into.
type fragment struct {
	ID   string `json:"id"`
	Into string `json:"into,omitempty"`
	HTML string `json:"html"`
}

type changes struct {
	Epoch     string     `json:"epoch"`
	Version   int64      `json:"version"`
	Fragments []fragment `json:"fragments"`
	Removed   []string   `json:"removed"`
}

// changes answers /api/changes?since=VERSION with what changed after
// VERSION, as soon as something has (at most pollWait later).
func (s *server) changes(w http.ResponseWriter, r *http.Request) {
	since, err := strconv.ParseInt(r.URL.Query().Get("since"), 10, 64)
	if err != nil {
		http.Error(w, "since must be a version number", http.StatusBadRequest)
		return
	}
	if r.URL.Query().Get("epoch") != s.epoch {
		since = -1 // a page of another run of the server: sent whole
	}
	s.mu.Lock()
	wait := s.changed
	current := s.model.Version()
	s.mu.Unlock()
	if current == since {
		select {
		case <-wait:
		case <-time.After(pollWait):
		case <-s.stopping:
		case <-r.Context().Done():
			return
		}
	}
	s.mu.Lock()
	d := s.model.Changes(since)
	var p dashboard.Page
	if d.Full {
		p = s.model.Page()
	}
	s.mu.Unlock()
	out, err := s.fragments(d, p)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(out)
}

// fragments renders a Delta (or, when it is Full, the page p's main part).
func (s *server) fragments(d dashboard.Delta, p dashboard.Page) (changes, error) {
	out := changes{Epoch: s.epoch, Version: d.Version, Removed: d.Removed}
	if out.Removed == nil {
		out.Removed = []string{}
	}
	add := func(id, into, name string, data any) error {
		var b strings.Builder
		if err := tmpl().ExecuteTemplate(&b, name, data); err != nil {
			return err
		}
		out.Fragments = append(out.Fragments, fragment{ID: id, Into: into, HTML: b.String()})
		return nil
	}
	warnings := d.Warnings
	s.warnOnPage(&warnings)
	if err := add("summary", "", "summary", d.Summary); err != nil {
		return out, err
	}
	if err := add("warnings", "", "warnings", warnings); err != nil {
		return out, err
	}
	if d.Full {
		return out, add("main", "", "main", pageData{Page: p})
	}
	for _, t := range d.Tiles {
		if err := add(t.ID, "tiles", "tile", t); err != nil {
			return out, err
		}
	}
	for _, r := range d.RunTimes {
		if err := add(r.ID, "rt", "runrow", r); err != nil {
			return out, err
		}
	}
	if d.BudgetsChanged {
		if err := add("budgets-body", "", "budgets", dashboard.Page{Budgets: d.Budgets, Cooldown: d.Cooldown}); err != nil {
			return out, err
		}
	}
	if d.HostsChanged {
		if err := add("hosts-body", "", "hosts", dashboard.Page{Hosts: d.Hosts}); err != nil {
			return out, err
		}
	}
	return out, nil
}

// write answers with what fn writes, read under the lock.
func (s *server) write(w http.ResponseWriter, contentType string, fn func(w io.Writer) error) {
	var b bytes.Buffer
	s.mu.Lock()
	err := fn(&b)
	s.mu.Unlock()
	if err != nil {
		http.Error(w, view.ErrorLine(err), http.StatusServiceUnavailable)
		return
	}
	w.Header().Set("Content-Type", contentType)
	w.Write(b.Bytes())
}
