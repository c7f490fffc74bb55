package tests

import (
	"bufio"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"guard/internal/store/postgres/pgtest"
	"guard/internal/view"
)

// markupKeys are keys made to break a page: markup that would run, quotes,
// control characters, a bidi override, and an attempt to close the SVG a
// timeline is drawn in. Each must show as text, and none may run.
var markupKeys = []string{
	`<script>document.body.dataset.pwned="script"</script>`,
	`<img src=x onerror="document.body.dataset.pwned='img'">`,
	`"double" 'single' & <b>bold</b>`,
	"esc \x1b[31mred\x07 bell",
	"\u202eexe.txt",
	`</g></svg><script>document.body.dataset.pwned="svg"</script>`,
}

// dashGuard runs guard with env (KEY=VALUE items) over a fresh home.
func dashGuard(t *testing.T, env []string, args ...string) string {
	t.Helper()
	cmd := exec.Command(guardBin, args...)
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	if _, ok := err.(*exec.ExitError); err != nil && !ok {
		t.Fatalf("guard %q: %v", args, err)
	}
	return string(out)
}

// makeState gives a state: lint failing until it opens, fmt passing, the
// markup keys tripped by hand.
func makeState(t *testing.T, env []string) {
	t.Helper()
	for range 3 {
		dashGuard(t, env, "run", "--name", "lint", "--", "sh", "-c", "echo 'no module named black' >&2; exit 1")
	}
	dashGuard(t, env, "run", "--name", "fmt", "--", "true")
	for _, k := range markupKeys {
		dashGuard(t, env, "trip", k, "--reason", `<i>by hand</i>`)
	}
}

// A tileSeen is a tile as the browser shows it.
type tileSeen struct {
	Key, State string
	Compact    bool
	Svgs       int
}

// checkPage checks the page the browser shows: every key, with its state
// in words; the markup keys as text, none of them run; a sparkline on
// every tile that is not compact; nothing on the console. scripts is how many script elements
// the page has of its own.
func checkPage(t *testing.T, b *browser, what string, want map[string]string, scripts int) {
	t.Helper()
	var tiles []tileSeen
	b.eval(`Array.from(document.querySelectorAll("#tiles > .tile")).map(t => ({
		Key: t.querySelector(".key").textContent,
		State: t.querySelector(".state").textContent,
		Compact: t.classList.contains("compact"),
		Svgs: t.querySelectorAll(".spark svg").length}))`, &tiles)
	got := map[string]string{}
	for _, tl := range tiles {
		got[tl.Key] = tl.State
		if !tl.Compact && tl.Svgs != 1 {
			t.Errorf("%s: the tile of %q has %d sparklines", what, tl.Key, tl.Svgs)
		}
	}
	for key, state := range want {
		shown := view.KeyText(key) // as every text output shows it, so that no two keys look alike
		if got[shown] != state {
			t.Errorf("%s: key %q shows as %q; want %q (tiles: %q)", what, key, got[shown], state, got)
		}
	}
	if len(tiles) != len(want) {
		t.Errorf("%s: %d tiles; want %d", what, len(tiles), len(want))
	}
	var pwned string
	var imgs, nscripts int
	b.eval(`document.body.dataset.pwned || ""`, &pwned)
	b.eval(`document.images.length`, &imgs)
	b.eval(`document.scripts.length`, &nscripts)
	if pwned != "" || imgs != 0 || nscripts != scripts {
		t.Errorf("%s: markup in a key ran or was parsed: pwned=%q, %d images, %d scripts (want %d)", what, pwned, imgs, nscripts, scripts)
	}
	b.checkNoProblems(what)
}

func wantStates() map[string]string {
	want := map[string]string{"lint": "open", "fmt": "closed"}
	for _, k := range markupKeys {
		want[k] = "open (forced)"
	}
	return want
}

// serve starts guard serve on a free port and returns its URL; the server
// is stopped with SIGTERM at the end of the test, and must stop cleanly.
func serve(t *testing.T, env []string) string {
	t.Helper()
	cmd := exec.Command(guardBin, "serve", "--listen", "127.0.0.1:0", "--interval", "100ms")
	cmd.Env = append(os.Environ(), env...)
	stdout, _ := cmd.StdoutPipe()
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	stopped := false
	t.Cleanup(func() {
		if !stopped {
			cmd.Process.Kill()
			cmd.Wait()
		}
	})
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("guard serve printed no URL: %v; stderr: %s", err, stderr.String())
	}
	i := strings.Index(line, "http://")
	if i < 0 {
		t.Fatalf("guard serve printed %q", line)
	}
	u := strings.Fields(line[i:])[0]
	t.Cleanup(func() {
		stopped = true
		cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("guard serve after SIGTERM: %v; stderr: %s", err, stderr.String())
			}
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			t.Errorf("guard serve did not stop within 10s of SIGTERM")
		}
	})
	return u
}

// checkLive checks that the served page at u follows the state: a trip
// and a new key appear without a reload.
func checkLive(t *testing.T, b *browser, env []string, u string, want map[string]string) {
	t.Helper()
	b.open(u)
	checkPage(t, b, "served page", want, 2)
	b.eval(`window.loadedOnce = 1`, nil)
	dashGuard(t, env, "trip", "fmt")
	dashGuard(t, env, "run", "--name", "brand new", "--", "true")
	stateOf := func(key string) string {
		return `Array.from(document.querySelectorAll("#tiles > .tile")).some(t => t.querySelector(".key").textContent === ` + jsString(key) + ` && t.querySelector(".state").textContent === "open (forced)")`
	}
	if !b.waitFor(stateOf("fmt"), 15*time.Second) {
		var html string
		b.eval(`document.getElementById("tiles").innerText`, &html)
		t.Fatalf("the served page did not show fmt open after guard trip fmt:\n%s", html)
	}
	if !b.waitFor(`Array.from(document.querySelectorAll("#tiles .key")).some(k => k.textContent === "brand new")`, 15*time.Second) {
		t.Errorf("the served page did not show a new key")
	}
	var same int
	b.eval(`window.loadedOnce || 0`, &same)
	if same != 1 {
		t.Errorf("the page was reloaded to show the change")
	}
	b.checkNoProblems("served page, after the changes")
	// Leave before the server stops: the page would say it lost it.
	b.open("about:blank")
	b.checkNoProblems("leaving the served page")
}

// TestDashboardInBrowser loads the written page and the served one in
// headless Chromium, on a state file and on PostgreSQL.
func TestDashboardInBrowser(t *testing.T) {
	b := newBrowser(t)

	t.Run("file", func(t *testing.T) {
		dir := t.TempDir()
		env := []string{"HOME=" + dir, "GUARD_CONFIG=", "GUARD_STATE=" + filepath.Join(dir, "state.json"), "GUARD_COOLDOWN_STATE=" + filepath.Join(dir, "cooldown.json")}
		makeState(t, env)
		dashGuard(t, env, "cooldown", "record", "api", "restart")
		page := filepath.Join(dir, "page.html")
		if out := dashGuard(t, env, "report", "--format", "html", "--output", page); out != "" {
			t.Fatalf("report --format html: %s", out)
		}
		data, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		for _, ref := range []string{"<link", "url(", "@import", "http://", "https://"} {
			if strings.Contains(string(data), ref) {
				t.Errorf("the page refers to something outside it: %q", ref)
			}
		}
		b.open("file://" + page)
		var outside int
		b.eval(`document.querySelectorAll("[src], link, object, embed, iframe, [href]:not(use), use:not([href^='#'])").length`, &outside)
		if outside != 0 {
			t.Errorf("the page has %d elements that load something", outside)
		}
		checkPage(t, b, "written page", wantStates(), 1)
		// The script sorts and filters.
		var shown int
		b.eval(`(() => { const q = document.getElementById("q"); q.value = "lint"; q.dispatchEvent(new Event("input"));
			return Array.from(document.querySelectorAll("#tiles > .tile")).filter(t => !t.hidden).length })()`, &shown)
		if shown != 1 {
			t.Errorf("filtering on lint shows %d tiles; want 1", shown)
		}
		b.checkNoProblems("filtering")
		checkNarrow(t, b)

		checkLive(t, b, env, serve(t, env), wantStates())
	})

	t.Run("postgres", func(t *testing.T) {
		u, err := url.Parse(pgtest.Shared(t).NewDB(t))
		if err != nil {
			t.Fatal(err)
		}
		// The throwaway cluster trusts its users: a password in the URL is
		// ignored by the server, and must be masked on every page.
		u.User = url.UserPassword(u.User.Username(), "s3cret-pw")
		db := u.String()
		env := []string{"HOME=" + t.TempDir(), "GUARD_CONFIG=", "GUARD_STATE=" + db, "GUARD_COOLDOWN_STATE=" + db, "GUARD_HOST=alpha"}
		makeState(t, env)
		dashGuard(t, append(env, "GUARD_HOST=beta"), "trip", "deploy")
		want := wantStates()
		want["deploy"] = "open (forced)"
		page := filepath.Join(t.TempDir(), "page.html")
		if out := dashGuard(t, env, "report", "--format", "html", "--output", page); out != "" {
			t.Fatalf("report --format html: %s", out)
		}
		b.open("file://" + page)
		checkPage(t, b, "written page (PostgreSQL)", want, 1)
		var hosts []string
		b.eval(`Array.from(document.querySelectorAll("#hosts-body tbody tr")).map(r => r.innerText.replace(/\s+/g, " "))`, &hosts)
		if !slices.ContainsFunc(hosts, func(h string) bool { return strings.HasPrefix(h, "alpha ") && strings.Contains(h, " lint: 1×") }) ||
			!slices.ContainsFunc(hosts, func(h string) bool { return strings.HasPrefix(h, "beta deploy: 1×") }) {
			t.Errorf("hosts: %q; want alpha to have opened lint and beta deploy", hosts)
		}

		srv := serve(t, env)
		for _, path := range []string{"", "api/status", "metrics", "api/changes?since=0"} {
			resp, err := http.Get(srv + path)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 200 || strings.Contains(string(body), "s3cret-pw") || !strings.Contains(string(body), "lint") {
				t.Errorf("GET /%s: %s, %d bytes, password shown: %v", path, resp.Status, len(body), strings.Contains(string(body), "s3cret-pw"))
			}
		}
		data, _ := os.ReadFile(page)
		if strings.Contains(string(data), "s3cret-pw") {
			t.Errorf("the written page shows the database password")
		}
		checkLive(t, b, env, srv, want)
	})
}

// checkNarrow lays the page out 400 px wide, as a phone or a narrow split
// shows it (issue 33 item 4; newcomer-and-mission #14): nothing runs off
// the right edge (a table scrolls in its own box), the tiles are one
// column, and a time whose absolute form is hidden there leaves no stray
// space behind ("5 min ago : 3 consecutive failures").
func checkNarrow(t *testing.T, b *browser) {
	t.Helper()
	if _, err := b.b.Screenshot(400, 0); err != nil {
		t.Fatal(err)
	}
	defer b.b.Screenshot(1400, 0)
	var got struct {
		Width     int
		Columns   int
		Tiles     int
		Unboxed   []string
		Stray     []string
		TileWidth int
	}
	b.eval(`(() => {
		const q = document.getElementById("q"); q.value = ""; q.dispatchEvent(new Event("input"));
		const tiles = Array.from(document.querySelectorAll("#tiles > .tile")).filter(t => !t.hidden);
		// The text a person sees (innerText is empty for a tile that
		// content-visibility has not drawn yet).
		const shown = n => n.nodeType === 3 ? n.textContent : (n.nodeType === 1 && getComputedStyle(n).display === "none") ? "" : Array.from(n.childNodes).map(shown).join("");
		const boxed = el => { for (let p = el.parentElement; p; p = p.parentElement) { const o = getComputedStyle(p).overflowX; if (o === "auto" || o === "scroll") return p.clientWidth <= 400; } return false; };
		return {
			Width: document.documentElement.scrollWidth,
			Columns: new Set(tiles.map(t => t.offsetLeft)).size, Tiles: tiles.length,
			Unboxed: Array.from(document.querySelectorAll("table")).filter(t => !boxed(t)).map(t => t.innerText.slice(0, 40)),
			Stray: Array.from(document.querySelectorAll("#tiles dd")).map(shown).filter(s => / [:;,]/.test(s)),
			TileWidth: Math.ceil(Math.max(...tiles.map(t => t.getBoundingClientRect().right))),
		};
	})()`, &got)
	if got.Width > 400 || got.TileWidth > 400 {
		t.Errorf("at 400 px the page is %d px wide, its tiles reach %d px", got.Width, got.TileWidth)
	}
	if got.Columns != 1 || got.Tiles < 5 {
		t.Errorf("at 400 px the %d tiles are in %d columns; want 1", got.Tiles, got.Columns)
	}
	if len(got.Unboxed) > 0 {
		t.Errorf("at 400 px these tables do not scroll in a box of their own: %q", got.Unboxed)
	}
	if len(got.Stray) > 0 {
		t.Errorf("at 400 px a hidden time leaves a stray space: %q", got.Stray)
	}
	b.checkNoProblems("at 400 px")
}
