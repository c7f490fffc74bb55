package tests

import (
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// A keyKind is one kind of key in TestOutputsAgree's state, and what every
// output must say of it.
type keyKind struct {
	key   string
	state string // in JSON and Prometheus (view.States)
	word  string // for people: status, report, doctor, the page
	// problem says doctor lists the key; alert says it is in
	// guard_circuit_state (guard enforces it: an alert on 2 fires for it
	// once it opens).
	problem, alert bool
}

var agreeKeys = []keyKind{
	{key: "fine-but-flaky", state: "closed", word: "closed", alert: true},
	{key: "broken-lint", state: "open", word: "open", problem: true, alert: true},
	{key: "deny-policy", state: "open", word: "open", problem: true, alert: true},
	{key: "release-freeze", state: "forced_open", word: "open (forced)", problem: true, alert: true},
	{key: "probing-check", state: "half_open", word: "half-open", problem: true, alert: true},
	{key: "watch-new", state: "observe", word: "observe (open)", problem: true},
	{key: "legacy-audit", state: "disabled", word: "disabled"},
	{key: "slotted-build", state: "closed", word: "closed", alert: true},
}

// TestOutputsAgree builds one state with every kind of key (closed with
// failures below its threshold, open, forced open, half-open with a probe
// running, observe mode that would skip, disabled over an old open
// circuit, max_concurrent with its slots in use, a skip that blocked and
// one that allowed) and checks that status (table and JSON), report
// (text, JSON, Markdown, Prometheus), doctor, /api/status and the page say
// the same of each key (issue 33 #1; newcomer-and-mission #2, #3, #18).
func TestOutputsAgree(t *testing.T) {
	dir := t.TempDir()
	conf := filepath.Join(dir, "guardrails.yaml")
	env := []string{"HOME=" + dir, "GUARD_CONFIG=" + conf, "GUARD_STATE=" + filepath.Join(dir, "state.json"), "GUARD_COOLDOWN_STATE=" + filepath.Join(dir, "cooldown.json")}
	writeConf := func(extra string) {
		t.Helper()
		base := "circuit_breaker:\n  cooldown: 1h\nhooks:\n  - match: deny-policy\n    on_skip: block\n  - match: watch-*\n    mode: observe\n  - match: slotted-*\n    max_concurrent: 2\n" + extra
		if err := os.WriteFile(conf, []byte(base), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	writeConf("")
	g := func(args ...string) string { t.Helper(); return dashGuard(t, env, args...) }
	for _, k := range []string{"broken-lint", "deny-policy", "watch-new", "legacy-audit"} {
		for range 3 {
			g("run", "--name", k, "--", "sh", "-c", "echo 'boom' >&2; exit 1")
		}
	}
	g("run", "--name", "fine-but-flaky", "--", "false")
	g("run", "--name", "fine-but-flaky", "--", "true")
	g("run", "--name", "fine-but-flaky", "--", "false")
	g("run", "--name", "broken-lint", "--", "true") // skipped, allowed
	g("run", "--name", "deny-policy", "--", "true") // skipped, blocked
	g("trip", "release-freeze", "--reason", "release freeze")
	g("trip", "probing-check")
	g("probe", "probing-check")
	writeConf("  - match: legacy-*\n    mode: disabled\n")

	// Runs in flight: the probe, and both slots of slotted-build.
	done := filepath.Join(dir, "done")
	var bg []*exec.Cmd
	for _, k := range []string{"probing-check", "slotted-build", "slotted-build"} {
		cmd := exec.Command(guardBin, "run", "--name", k, "--", "sh", "-c", `i=0; while [ ! -e "$0" ] && [ $((i+=1)) -lt 6000 ]; do sleep 0.02; done`, done)
		cmd.Env = append(os.Environ(), env...)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		bg = append(bg, cmd)
	}
	t.Cleanup(func() {
		os.WriteFile(done, nil, 0o644)
		for _, c := range bg {
			c.Wait()
		}
	})
	deadline := time.Now().Add(30 * time.Second)
	for {
		var sts []struct {
			Key     string
			Running []any
		}
		json.Unmarshal([]byte(g("status", "--json")), &sts)
		n := 0
		for _, st := range sts {
			n += len(st.Running)
		}
		if n == 3 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the 3 runs in flight did not show in status within 30s (%d did)", n)
		}
		time.Sleep(50 * time.Millisecond)
	}
	g("run", "--name", "slotted-build", "--", "true") // rejected: both slots taken

	// status, the table.
	table := g("status", "--wide")
	for _, k := range agreeKeys {
		if !regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(k.word) + ` {2,}.* ` + regexp.QuoteMeta(k.key) + `( |$)`).MatchString(table) {
			t.Errorf("status: %s is not shown %q:\n%s", k.key, k.word, table)
		}
	}
	if !strings.Contains(table, "2 of 2 slots in use") || !regexp.MustCompile(`(?m)^closed +1/3 .* fine-but-flaky`).MatchString(table) {
		t.Errorf("status: no '2 of 2 slots in use', or fine-but-flaky's failures are not 1/3 (its rule's count):\n%s", table)
	}

	// status --json and /api/status.
	checkJSON := func(what, doc string) {
		t.Helper()
		var sts []struct {
			Key, State string
			Totals     struct {
				Skips           int64 `json:"skips"`
				SkipsBlocked    int64 `json:"skips_blocked"`
				Rejected        int64 `json:"rejected"`
				RejectedBlocked int64 `json:"rejected_blocked"`
			} `json:"totals"`
		}
		if err := json.Unmarshal([]byte(doc), &sts); err != nil {
			t.Fatalf("%s: %v\n%s", what, err, doc)
		}
		got := map[string]string{}
		for _, st := range sts {
			got[st.Key] = st.State
			switch st.Key {
			case "deny-policy":
				if st.Totals.Skips != 1 || st.Totals.SkipsBlocked != 1 {
					t.Errorf("%s: deny-policy's skip is not counted blocked: %+v", what, st.Totals)
				}
			case "broken-lint":
				if st.Totals.Skips != 1 || st.Totals.SkipsBlocked != 0 {
					t.Errorf("%s: broken-lint's skip is not counted allowed: %+v", what, st.Totals)
				}
			}
		}
		for _, k := range agreeKeys {
			if got[k.key] != k.state {
				t.Errorf("%s: %s has state %q; want %q", what, k.key, got[k.key], k.state)
			}
		}
	}
	checkJSON("status --json", g("status", "--json"))

	// report: text, JSON, Markdown, Prometheus.
	text := g("report")
	for _, k := range agreeKeys {
		title := strings.ToUpper(k.word[:1]) + k.word[1:]
		shown := strings.Contains(text, "\n"+title+": "+k.key+"\n") || strings.Contains(text, "\n"+title+": would skip, runs anyway: "+k.key+"\n")
		if k.problem != shown {
			t.Errorf("report: %s shown as %q: %v; want %v:\n%s", k.key, title, shown, k.problem, text)
		}
	}
	if !strings.Contains(text, "  keys:       8 (2 closed, 2 open, 1 half-open, 1 open (forced), 1 observe, 1 disabled)\n") ||
		!strings.Contains(text, "  disabled:   legacy-audit ") || !strings.Contains(text, "1 call not run (1 blocked, 0 allowed)") {
		t.Errorf("report: counts, the disabled key or the blocked skip wrong:\n%s", text)
	}
	var rj struct {
		States  map[string]int
		Details []struct{ Command, State string } `json:"disabled_hook_details"`
	}
	json.Unmarshal([]byte(g("report", "--format", "json")), &rj)
	want := map[string]int{"closed": 2, "open": 2, "half_open": 1, "forced_open": 1, "observe": 1, "disabled": 1}
	for s, n := range want {
		if rj.States[s] != n {
			t.Errorf("report json: states %v; want %v", rj.States, want)
			break
		}
	}
	for _, d := range rj.Details {
		if d.Command == "legacy-audit" {
			t.Errorf("report json: the disabled key is among the open ones")
		}
	}
	md := g("report", "--format", "markdown")
	if !strings.Contains(md, "| 8 | 2 | 2 | 1 | 1 | 1 | 1 |") || strings.Contains(md, "`legacy-audit`\n") ||
		!strings.Contains(md, "skipped, action blocked: circuit open") || !strings.Contains(md, "## Open (forced): `release-freeze`") {
		t.Errorf("report markdown disagrees:\n%s", md)
	}
	prom := g("report", "--format", "prometheus")
	for _, k := range agreeKeys {
		if !strings.Contains(prom, `guard_key_state{key="`+k.key+`",state="`+k.state+`"} 1`+"\n") {
			t.Errorf("prometheus: %s is not in state %s", k.key, k.state)
		}
		if got := strings.Contains(prom, `guard_circuit_state{key="`+k.key+`"}`); got != k.alert {
			t.Errorf("prometheus: %s in guard_circuit_state: %v; want %v", k.key, got, k.alert)
		}
	}
	for _, want := range []string{
		`guard_skips_total{key="deny-policy",verdict="blocked"} 1`, `guard_skips_total{key="broken-lint",verdict="allowed"} 1`,
		`guard_rejected_total{key="slotted-build",verdict="allowed"} 1`,
		`guard_runs_in_flight{key="slotted-build"} 2`, `guard_max_concurrent{key="slotted-build"} 2`,
	} {
		if !strings.Contains(prom, want+"\n") {
			t.Errorf("prometheus lacks %s", want)
		}
	}

	// doctor: a problem for each key that is not closed and in force (or
	// would skip), never for the disabled one.
	doc := g("doctor")
	for _, k := range agreeKeys {
		if got := strings.Contains(doc, "key "+k.key+": circuit "); got != k.problem {
			t.Errorf("doctor: %s is a problem: %v; want %v:\n%s", k.key, got, k.problem, doc)
		}
	}

	// The page, and /api/status, of guard serve; and the written page.
	b := newBrowser(t)
	page := filepath.Join(dir, "page.html")
	if out := g("report", "--format", "html", "--output", page); out != "" {
		t.Fatalf("report --format html: %s", out)
	}
	checkTiles := func(what string) {
		t.Helper()
		var tiles []struct{ Key, State, Word, Slots string }
		b.eval(`Array.from(document.querySelectorAll("#tiles > .tile")).map(t => ({
			Key: t.querySelector(".key").textContent, State: t.dataset.state,
			Word: t.querySelector(".state").textContent,
			Slots: Array.from(t.querySelectorAll("dd")).map(d => d.textContent).join("|")}))`, &tiles)
		got := map[string][2]string{}
		for _, tl := range tiles {
			got[tl.Key] = [2]string{tl.State, tl.Word}
			if tl.Key == "slotted-build" && !strings.Contains(tl.Slots, "2 of 2 in use") {
				t.Errorf("%s: slotted-build's tile does not say its slots are in use: %q", what, tl.Slots)
			}
		}
		for _, k := range agreeKeys {
			if got[k.key] != [2]string{k.state, k.word} {
				t.Errorf("%s: %s's tile is %q; want %q", what, k.key, got[k.key], [2]string{k.state, k.word})
			}
		}
		var summary string
		b.eval(`document.getElementById("summary").innerText.replace(/\s+/g, " ")`, &summary)
		// (skipped: broken-lint's skip and slotted-build's rejection)
		for _, want := range []string{"2 open", "1 half-open", "1 forced open", "1 observe (1 would skip)", "2 closed", "1 disabled", "2 skipped, 24 h", "1 blocked, 24 h"} {
			if !strings.Contains(summary, want) {
				t.Errorf("%s: the summary %q lacks %q", what, summary, want)
			}
		}
		b.checkNoProblems(what)
	}
	b.open("file://" + page)
	checkTiles("written page")
	u := serve(t, env)
	resp, err := http.Get(u + "api/status")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	checkJSON("/api/status", string(body))
	b.open(u)
	checkTiles("served page")
	b.open("about:blank")
}
