package web

import (
	"crypto/sha256"
	"embed"
	"encoding/base64"
	"html/template"
	"io"
	"strings"
	"sync"
	"time"

	"guard/internal/view/dashboard"
)

//go:embed assets
var assets embed.FS

var (
	style   = mustRead("assets/style.css")
	tableJS = mustRead("assets/table.js")
	liveJS  = mustRead("assets/live.js")
	// tmpl is parsed when first used: guard-web runs every guard command,
	// and only two of them draw a page.
	tmpl = sync.OnceValue(func() *template.Template {
		return template.Must(template.New("").Funcs(template.FuncMap{"stamp": stamp}).ParseFS(assets, "assets/page.html"))
	})
)

func mustRead(name string) string {
	b, err := assets.ReadFile(name)
	if err != nil {
		panic(err)
	}
	return string(b)
}

func stamp(t time.Time) string { return t.UTC().Format("2006-01-02 15:04:05Z") }

// hash is a CSP source that allows the inline script or style s.
func hash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
}

// csp is the page's Content-Security-Policy: nothing but its own style
// and scripts; the live page may also fetch from where it came from.
// (frame-ancestors goes in the served page's header only: a <meta> policy
// cannot carry it.)
func csp(live bool) string {
	p := []string{"default-src 'none'", "style-src " + hash(style), "base-uri 'none'", "form-action 'none'"}
	if live {
		p = append(p, "script-src "+hash(tableJS)+" "+hash(liveJS), "connect-src 'self'", "frame-ancestors 'none'")
	} else {
		p = append(p, "script-src "+hash(tableJS))
	}
	return strings.Join(p, "; ")
}

// pageData is what the template reads.
type pageData struct {
	dashboard.Page
	Live    bool
	Epoch   string // the server's run, on the live page
	CSP     string
	CSS     template.CSS
	TableJS template.JS
	LiveJS  template.JS
}

// render writes page p: the live page of the server run epoch, or, with
// no epoch, the page of a file.
func render(w io.Writer, p dashboard.Page, epoch string) error {
	live := epoch != ""
	return tmpl().ExecuteTemplate(w, "page", pageData{Page: p, Live: live, Epoch: epoch, CSP: csp(live), CSS: template.CSS(style), TableJS: template.JS(tableJS), LiveJS: template.JS(liveJS)})
}

// Dashboard is the dashboard as guard-web links it in (see cli.SetWeb).
type Dashboard struct{}

// WritePage writes the page of src as it is at now.
func (Dashboard) WritePage(w io.Writer, src *dashboard.Source, now time.Time) error {
	m, err := dashboard.New(src, now)
	if err != nil {
		return err
	}
	return render(w, m.Page(), "")
}
