package claude

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// hookOf decodes the first hook of the first group of event.
func hookOf(t *testing.T, doc []byte, event string, i int) map[string]any {
	t.Helper()
	var v struct {
		Hooks map[string][]struct {
			Hooks []map[string]any `json:"hooks"`
		} `json:"hooks"`
	}
	if err := json.Unmarshal(doc, &v); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, doc)
	}
	return v.Hooks[event][0].Hooks[i]
}

// argvOf returns a decoded exec-form hook's command and args.
func argvOf(h map[string]any) []string {
	out := []string{h["command"].(string)}
	for _, a := range h["args"].([]any) {
		out = append(out, a.(string))
	}
	return out
}

// roundTrip checks that Install changed doc and Uninstall gives it back
// byte for byte, and that both are idempotent.
func roundTrip(t *testing.T, doc string, opts Options) []byte {
	t.Helper()
	r, err := Install([]byte(doc), opts)
	if err != nil {
		t.Fatal(err)
	}
	if !json.Valid(bytes.TrimPrefix(r.Doc, bom)) {
		t.Fatalf("Install wrote invalid JSON:\n%s", r.Doc)
	}
	if again, _ := Install(r.Doc, opts); len(again.Changes) != 0 || string(again.Doc) != string(r.Doc) {
		t.Errorf("a second install changed %+v", again.Changes)
	}
	back, err := Uninstall(r.Doc)
	if err != nil || string(back.Doc) != doc {
		t.Errorf("Uninstall(Install(doc)) =\n%s\nwant\n%s", back.Doc, doc)
	}
	if again, _ := Uninstall(back.Doc); len(again.Changes) != 0 {
		t.Errorf("a second uninstall changed %+v", again.Changes)
	}
	return r.Doc
}

// TestExecForm covers D1: Claude Code's exec form, {"command": PROGRAM,
// "args": [...]}, started without a shell, becomes guard with the program
// and its args after "run --", placeholders as written, and Uninstall
// gives back the very bytes, however the array is laid out.
func TestExecForm(t *testing.T) {
	for _, c := range []struct {
		name, hook string
		want       []string
	}{
		{"docs' policy example, empty args", `{"type": "command", "command": "${CLAUDE_PROJECT_DIR}/.claude/hooks/block-rm.sh", "args": []}`,
			[]string{bin, "run", "--", "${CLAUDE_PROJECT_DIR}/.claude/hooks/block-rm.sh"}},
		{"docs' formatter example", `{"type": "command", "command": "node", "args": ["${CLAUDE_PLUGIN_ROOT}/scripts/format.js", "--fix"]}`,
			[]string{bin, "run", "--", "node", "${CLAUDE_PLUGIN_ROOT}/scripts/format.js", "--fix"}},
		{"args first, white space inside empty args", `{"args": [ ], "command": "lint", "type": "command"}`,
			[]string{bin, "run", "--", "lint"}},
		{"one arg, escapes kept", `{"type":"command","command":"a\u0027b","args":["\/x"]}`,
			[]string{bin, "run", "--", "a'b", "/x"}},
		{"multi-line", "{\n  \"type\": \"command\",\n  \"command\": \"npx\",\n  \"args\": [\n    \"prettier\",\n    \"--write\"\n  ]\n}",
			[]string{bin, "run", "--", "npx", "prettier", "--write"}},
		{"multi-line, empty", "{\n  \"type\": \"command\",\n  \"command\": \"x\",\n  \"args\": [\n  ]\n}",
			[]string{bin, "run", "--", "x"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			doc := `{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [` + c.hook + `]}]}}`
			out := roundTrip(t, doc, Options{Binary: bin})
			if got := argvOf(hookOf(t, out, "PreToolUse", 0)); !slices.Equal(got, c.want) {
				t.Errorf("installed %q; want %q\n%s", got, c.want, out)
			}
			hs, _ := List(out)
			if len(hs) != 1 || hs[0].Guard != bin || !slices.Equal(hs[0].InnerArgv, c.want[3:]) || hs[0].Broken {
				t.Errorf("List = %+v; want it behind guard", hs)
			}
		})
	}
}

// TestExecFormLaidOutAsItsArray: the words install adds to args are laid
// out as the array's own.
func TestExecFormLaidOutAsItsArray(t *testing.T) {
	doc := "{\"hooks\": {\"Stop\": [{\"hooks\": [\n  {\"type\": \"command\", \"command\": \"npx\", \"args\": [\n      \"prettier\",\n      \"--write\"\n  ]}\n]}]}}\n"
	out := roundTrip(t, doc, Options{Binary: bin})
	want := "\"command\": \"" + bin + "\", \"args\": [\n      \"run\",\n      \"--\",\n      \"npx\",\n      \"prettier\",\n      \"--write\"\n  ]}"
	if !strings.Contains(string(out), want) {
		t.Errorf("got\n%s\nwant it to hold\n%s", out, want)
	}
}

// TestExecFormRepointAndLeave: an exec-form hook already behind guard is
// re-pointed; one that calls guard, or runs the Python wrapper, or is
// excluded, is left alone, with its reason.
func TestExecFormRepointAndLeave(t *testing.T) {
	doc := `{"hooks":{"Stop":[{"hooks":[
		{"type":"command","command":"/old/guard","args":["run","--","lint","-q"]},
		{"type":"command","command":"env","args":["A=1","/usr/bin/guard","cooldown","hook"]},
		{"type":"command","command":"uv","args":["run","x/circuit_breaker_wrapper.py","--","lint"]},
		{"type":"command","command":"secret-check","args":["--strict"]},
		{"type":"command","command":"fine","args":[]}]}]}}`
	r, err := Install([]byte(doc), Options{Binary: bin, Skip: func(c string) bool { return strings.Contains(c, "secret") }})
	if err != nil {
		t.Fatal(err)
	}
	if got := argvOf(hookOf(t, r.Doc, "Stop", 0)); !slices.Equal(got, []string{bin, "run", "--", "lint", "-q"}) {
		t.Errorf("re-pointed hook = %q", got)
	}
	if len(r.Changes) != 2 || r.Changes[0].Why != "re-pointed from /old/guard" {
		t.Errorf("changes %+v", r.Changes)
	}
	var left []string
	for _, l := range r.Left {
		left = append(left, l.Why)
	}
	if want := []string{WhyGuard, WhyPyArgs, WhyExcluded}; !slices.Equal(left, want) {
		t.Errorf("left %q; want %q", left, want)
	}
}

// TestBrokenExecRewriteRepaired: an older install rewrote an exec-form
// hook's command to a shell line, which Claude Code cannot start. doctor
// must not call it "behind guard"; uninstall gives the hook back; install
// repairs it into the exec form.
func TestBrokenExecRewriteRepaired(t *testing.T) {
	orig := `{"hooks":{"PreToolUse":[{"hooks":[{"type":"command","command":"${CLAUDE_PROJECT_DIR}/.claude/hooks/block-rm.sh","args":[]}]}]}}`
	broken := `{"hooks":{"PreToolUse":[{"hooks":[{"type":"command","command":"/usr/local/bin/guard run -c '${CLAUDE_PROJECT_DIR}/.claude/hooks/block-rm.sh'","args":[]}]}]}}`
	hs, _ := List([]byte(broken))
	if len(hs) != 1 || !hs[0].Broken {
		t.Errorf("List(broken) = %+v; want it marked broken", hs)
	}
	u, _ := Uninstall([]byte(broken))
	if string(u.Doc) != orig {
		t.Errorf("Uninstall(broken) =\n%s\nwant\n%s", u.Doc, orig)
	}
	r, err := Install([]byte(broken), Options{Binary: bin})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Changes) != 1 || !strings.HasPrefix(r.Changes[0].Why, "repaired") {
		t.Errorf("changes %+v; want one repair", r.Changes)
	}
	want, _ := Install([]byte(orig), Options{Binary: bin})
	if string(r.Doc) != string(want.Doc) {
		t.Errorf("repaired\n%s\nwant\n%s", r.Doc, want.Doc)
	}
}

// TestArgsWithoutCommand: {"args": [...]} with no "command" is no hook
// Claude Code runs (it was guard's own notion of an exec form): install
// leaves it alone, saying so, and uninstall still undoes what an older
// guard install wrote there.
func TestArgsWithoutCommand(t *testing.T) {
	doc := `{"hooks":{"Stop":[{"hooks":[{"type":"command","args":["notify-send","hi"]},{"type":"command","args":["/usr/bin/guard","run","--","lint"]}]}]}}`
	r, err := Install([]byte(doc), Options{Binary: bin})
	if err != nil || len(r.Changes) != 0 || string(r.Doc) != doc {
		t.Errorf("Install changed %+v (%v)", r.Changes, err)
	}
	if len(r.Left) != 2 || r.Left[0].Why != WhyArgsOnly || r.Left[1].Why != WhyOldExec {
		t.Errorf("left %+v", r.Left)
	}
	u, _ := Uninstall([]byte(doc))
	if want := `{"hooks":{"Stop":[{"hooks":[{"type":"command","args":["notify-send","hi"]},{"type":"command","args":["lint"]}]}]}}`; string(u.Doc) != want {
		t.Errorf("Uninstall =\n%s\nwant\n%s", u.Doc, want)
	}
}

// TestOnFailureBlock covers D2's install side: a hook that blocks when it
// fails gets --on-skip block in both forms, so that guard skipping it
// blocks too; a hook wrapped before it was marked gets the flag on the
// next install; uninstall gives back the very bytes.
func TestOnFailureBlock(t *testing.T) {
	doc := `{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[
		{"type":"command","command":"./deny.sh 'x'","onFailure":"block"},
		{"onFailure":"block","type":"command","command":"node","args":["policy.js"]},
		{"type":"command","command":"uv run --with pyyaml ~/.claude/hooks/circuit_breaker_wrapper.py -- python3 ~/.claude/hooks/a.py","onFailure":"block"},
		{"type":"command","command":"./allow.sh","onFailure":"allow"}]}]}}`
	out := roundTrip(t, doc, Options{Binary: bin})
	if got := hookOf(t, out, "PreToolUse", 0)["command"]; got != bin+` run --on-skip block --shell bash -c './deny.sh '\''x'\'''` {
		t.Errorf("shell form = %s", got)
	}
	if got := argvOf(hookOf(t, out, "PreToolUse", 1)); !slices.Equal(got, []string{bin, "run", "--on-skip", "block", "--", "node", "policy.js"}) {
		t.Errorf("exec form = %q", got)
	}
	if got := hookOf(t, out, "PreToolUse", 2)["command"]; got != bin+` run --on-skip block --from-python 'uv run --with pyyaml ~/.claude/hooks/circuit_breaker_wrapper.py -- ' -c 'python3 ~/.claude/hooks/a.py'` {
		t.Errorf("moved from the Python wrapper = %s", got)
	}
	if got := hookOf(t, out, "PreToolUse", 3)["command"]; got != bin+` run --shell bash -c './allow.sh'` {
		t.Errorf("onFailure allow = %s", got)
	}
	hs, _ := List(out)
	for i, h := range hs[:3] {
		if !h.OnSkip || !h.FailClosed {
			t.Errorf("List: hook %d = %+v; want OnSkip and FailClosed", i, h)
		}
	}

	// Marked after it was wrapped: the next install adds the flag, in
	// both forms, and uninstall still gives back the original.
	plain := strings.NewReplacer(`,"onFailure":"block"`, "", `"onFailure":"block",`, "").Replace(doc)
	wrapped, _ := Install([]byte(plain), Options{Binary: bin})
	marked := strings.Replace(string(wrapped.Doc), `"type":"command","command":"`+bin+` run --shell bash -c './deny.sh`, `"type":"command","onFailure":"block","command":"`+bin+` run --shell bash -c './deny.sh`, 1)
	marked = strings.Replace(marked, `{"type":"command","command":"`+bin+`","args":["run","--","node"`, `{"onFailure":"block","type":"command","command":"`+bin+`","args":["run","--","node"`, 1)
	r, err := Install([]byte(marked), Options{Binary: bin})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Changes) != 2 || !strings.Contains(r.Changes[0].Why, "--on-skip block added") {
		t.Errorf("changes %+v; want --on-skip block added to two hooks", r.Changes)
	}
	if got := hookOf(t, r.Doc, "PreToolUse", 0)["command"]; got != bin+` run --on-skip block --shell bash -c './deny.sh '\''x'\'''` {
		t.Errorf("shell form = %s", got)
	}
	if got := argvOf(hookOf(t, r.Doc, "PreToolUse", 1)); !slices.Equal(got, []string{bin, "run", "--on-skip", "block", "--", "node", "policy.js"}) {
		t.Errorf("exec form = %q", got)
	}
	back, _ := Uninstall(r.Doc)
	want := strings.Replace(plain, `{"type":"command","command":"./deny.sh`, `{"type":"command","onFailure":"block","command":"./deny.sh`, 1)
	want = strings.Replace(want, `{"type":"command","command":"node"`, `{"onFailure":"block","type":"command","command":"node"`, 1)
	if string(back.Doc) != want {
		t.Errorf("Uninstall =\n%s\nwant\n%s", back.Doc, want)
	}
}

// TestOtherShellsLeftAlone covers D4: a hook Claude Code runs with
// PowerShell (or any shell but bash) is left alone, with the reason.
func TestOtherShellsLeftAlone(t *testing.T) {
	doc := `{"hooks":{"Stop":[{"hooks":[
		{"type":"command","command":"Write-Host 'done'","shell":"powershell"},
		{"type":"command","command":"echo hi","shell":"fish"},
		{"type":"command","command":"echo ok","shell":"bash"}]}]}}`
	r, err := Install([]byte(doc), Options{Binary: bin})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Changes) != 1 || r.Changes[0].Before != "echo ok" {
		t.Errorf("changes %+v; want only the bash hook wrapped", r.Changes)
	}
	if len(r.Left) != 2 || r.Left[0].Why != WhyShell("powershell") || !strings.Contains(r.Left[0].Why, "PowerShell") || r.Left[1].Why != WhyShell("fish") {
		t.Errorf("left %+v", r.Left)
	}
}
