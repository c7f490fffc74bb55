package claude

import (
	"bytes"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
)

const bin = "/usr/local/bin/guard"

// realistic is a settings.json with several events, matchers, a timeout,
// commands with quotes, pipes and &&, a hook in Claude Code's exec form,
// and other keys.
const realistic = `{
  "permissions": {
    "allow": ["Bash(npm run lint)"]
  },
  "hooks": {
    "PreToolUse": [
      {
        "matcher": "Bash",
        "hooks": [
          {
            "type": "command",
            "command": "python3 ~/.claude/hooks/check_bash.py"
          },
          {
            "type": "command",
            "command": "jq -r '.tool_input.command' | grep -q 'rm -rf' && exit 2 || exit 0",
            "timeout": 10
          }
        ]
      }
    ],
    "PostToolUse": [
      {
        "matcher": "Write|Edit",
        "hooks": [
          {
            "type": "command",
            "command": "npx prettier --write \"$CLAUDE_PROJECT_DIR\" && echo 'formatted'"
          }
        ]
      }
    ],
    "Stop": [
      {
        "hooks": [
          {
            "type": "command",
            "command": "uv run $CLAUDE_PROJECT_DIR/.claude/hooks/stop_check.py"
          }
        ]
      }
    ],
    "Notification": [
      {
        "hooks": [
          {
            "type": "command",
            "command": "notify-send",
            "args": [
              "Claude",
              "needs you"
            ]
          }
        ]
      }
    ]
  },
  "model": "opus"
}
`

// commands decodes every hook command, or command and args joined by |, in
// document order.
func commands(t *testing.T, doc []byte) []string {
	t.Helper()
	var v struct {
		Hooks map[string][]struct {
			Hooks []struct {
				Command string   `json:"command"`
				Args    []string `json:"args"`
			} `json:"hooks"`
		} `json:"hooks"`
	}
	if err := json.Unmarshal(doc, &v); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, doc)
	}
	var out []string
	for _, ev := range []string{"PreToolUse", "PostToolUse", "Stop", "Notification"} {
		for _, g := range v.Hooks[ev] {
			for _, h := range g.Hooks {
				if h.Args == nil {
					out = append(out, h.Command)
				} else {
					out = append(out, strings.Join(append([]string{h.Command}, h.Args...), "|"))
				}
			}
		}
	}
	return out
}

// shellArg reads the argument of -c the way sh does, for the quoting
// Install writes: runs of '...' with \' between them.
func shellArg(t *testing.T, cmd string) string {
	t.Helper()
	prefix := bin + " run --shell bash -c "
	if !strings.HasPrefix(cmd, prefix) {
		t.Fatalf("%q does not start with %q", cmd, prefix)
	}
	s := cmd[len(prefix):]
	var b strings.Builder
	for s != "" {
		switch {
		case strings.HasPrefix(s, `\'`):
			b.WriteByte('\'')
			s = s[2:]
		case s[0] == '\'':
			end := strings.IndexByte(s[1:], '\'')
			if end < 0 {
				t.Fatalf("unterminated quote in %q", cmd)
			}
			b.WriteString(s[1 : 1+end])
			s = s[2+end:]
		default:
			t.Fatalf("unquoted text %q in %q", s, cmd)
		}
	}
	return b.String()
}

func TestInstallAndUninstall(t *testing.T) {
	doc := []byte(realistic)
	out, changes, err := install3(doc, Options{Binary: bin})
	if err != nil {
		t.Fatal(err)
	}
	if len(changes) != 5 {
		t.Errorf("%d changes; want 5: %+v", len(changes), changes)
	}
	before, after := commands(t, doc), commands(t, out)
	for i := range 4 {
		if got := shellArg(t, after[i]); got != before[i] {
			t.Errorf("hook %d: sh would run %q; want %q", i, got, before[i])
		}
	}
	if want := bin + "|run|--|notify-send|Claude|needs you"; after[4] != want {
		t.Errorf("exec form = %q; want %q", after[4], want)
	}
	// Everything else is as it was: only the command lines differ.
	outLines, docLines := strings.Split(string(out), "\n"), strings.Split(realistic, "\n")
	if len(outLines) != len(docLines)+3 { // three args inserted on lines of their own
		t.Errorf("line count %d; want %d", len(outLines), len(docLines)+3)
	}
	if !strings.HasSuffix(string(out), "  \"model\": \"opus\"\n}\n") || !strings.HasPrefix(string(out), "{\n  \"permissions\"") {
		t.Errorf("order or indentation changed:\n%s", out)
	}
	if !strings.Contains(string(out), "\"command\": \""+bin+"\",\n            \"args\": [\n              \"run\",\n              \"--\",\n              \"notify-send\",\n              \"Claude\",") {
		t.Errorf("exec form not indented like its array:\n%s", out)
	}

	again, changes, err := install3(out, Options{Binary: bin})
	if err != nil || len(changes) != 0 || string(again) != string(out) {
		t.Errorf("second install changed %d hooks; want none", len(changes))
	}
	back, changes, err := uninstall3(out)
	if err != nil {
		t.Fatal(err)
	}
	if string(back) != realistic {
		t.Errorf("uninstall after install is not byte-identical:\n%s", back)
	}
	if len(changes) != 5 {
		t.Errorf("uninstall made %d changes; want 5", len(changes))
	}
	if again, changes, _ := uninstall3(back); len(changes) != 0 || string(again) != realistic {
		t.Error("second uninstall changed something")
	}
}

func TestEscapesAreKept(t *testing.T) {
	// Escapes another writer chose: \u0027 for a quote, \/ and \u0026.
	doc := []byte(`{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"echo \u0027it\u0027s\u0027 \/tmp \u0026\u0026 echo \"q\" \\ done"}]}]}}`)
	out, _, err := install3(doc, Options{Binary: bin})
	if err != nil {
		t.Fatal(err)
	}
	if got := shellArg(t, commands(t, out)[0]); got != `echo 'it's' /tmp && echo "q" \ done` {
		t.Errorf("sh would run %q", got)
	}
	back, _, _ := uninstall3(out)
	if string(back) != string(doc) {
		t.Errorf("escapes not kept:\n%s\nwant\n%s", back, doc)
	}
}

func TestSkipAndAlreadyWrapped(t *testing.T) {
	doc := []byte(`{"hooks":{"Stop":[{"hooks":[
		{"type":"command","command":"critical-hook.sh"},
		{"type":"command","command":"/opt/tools/guard run -c 'x'"},
		{"type":"command","command":"'/my dir/guard' run -- y"},
		{"type":"prompt","prompt":"is the task done?"},
		{"type":"command","command":"guard cooldown hook --record"},
		{"type":"command","command":"/usr/bin/guard","args":["cooldown","hook"]},
		{"type":"command","command":"z"}]}]}}`)
	r, err := Install(doc, Options{Binary: bin, Skip: func(c string) bool { return strings.Contains(c, "critical") }})
	if err != nil {
		t.Fatal(err)
	}
	out, changes := r.Doc, r.Changes
	// The hook wrapped with another guard is re-pointed at this one.
	if len(changes) != 2 || changes[0].Why != "re-pointed from /opt/tools/guard; --shell bash added: Claude Code runs a hook's command with bash" || changes[1].Before != "z" || changes[1].Event != "Stop" {
		t.Errorf("changes = %+v; want x re-pointed and z wrapped", changes)
	}
	if !strings.Contains(string(out), `"command":"/usr/local/bin/guard run --shell bash -c 'x'"`) {
		t.Errorf("x not re-pointed:\n%s", out)
	}
	var why []string
	for _, l := range r.Left {
		why = append(why, l.Before+": "+l.Why)
	}
	want := []string{"critical-hook.sh: " + WhyExcluded, "'/my dir/guard' run -- y: " + WhyGuard,
		"is the task done?: " + WhyType("prompt"), "guard cooldown hook --record: " + WhyGuard, "/usr/bin/guard cooldown hook: " + WhyGuard}
	if !slices.Equal(why, want) {
		t.Errorf("left alone:\n%q\nwant\n%q", why, want)
	}
	if !strings.Contains(string(out), `"command":"/usr/local/bin/guard run --shell bash -c 'z'"`) {
		t.Errorf("z not wrapped:\n%s", out)
	}
	// A binary path with spaces is quoted for the shell.
	out, _, _ = install3([]byte(`{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"z"}]}]}}`), Options{Binary: "/my dir/guard"})
	if !strings.Contains(string(out), `"command":"'/my dir/guard' run --shell bash -c 'z'"`) {
		t.Errorf("binary not quoted:\n%s", out)
	}
	if again, changes, _ := install3(out, Options{Binary: "/my dir/guard"}); len(changes) != 0 || string(again) != string(out) {
		t.Error("a quoted binary was wrapped twice")
	}
}

// TestOnlyGuardsOwnHooks covers hostile-user findings 4, 19, 20 and 21:
// only hooks install wrapped are unwrapped, guard calls behind VAR=value
// are not wrapped twice, programs whose names merely start with "guard"
// are wrapped like any other, and a hook with two "command" members is
// left alone.
func TestOnlyGuardsOwnHooks(t *testing.T) {
	doc := []byte(`{"hooks":{"Stop":[{"hooks":[
		{"type":"command","command":"guardctl run -c 'deploy --prod'"},
		{"type":"command","command":"guarddog run -c 'x'"},
		{"type":"command","command":"./guard-secrets.sh"},
		{"type":"command","command":"GUARD_STATE=/tmp/s.json guard run -c './y.sh'"},
		{"type":"command","command":"env A=1 /usr/bin/guard run -- ./w.sh"},
		{"type":"command","command":"first", "command":"second"},
		{"type":"command","command":"guarddog","args":["run","--","x"]}]}]}}`)
	r, err := Install(doc, Options{Binary: bin})
	if err != nil {
		t.Fatal(err)
	}
	var wrapped, left []string
	for _, c := range r.Changes {
		wrapped = append(wrapped, c.Before)
	}
	for _, c := range r.Left {
		left = append(left, c.Before+": "+c.Why)
	}
	wantWrapped := []string{"guardctl run -c 'deploy --prod'", "guarddog run -c 'x'", "./guard-secrets.sh", "guarddog run -- x"}
	wantLeft := []string{"GUARD_STATE=/tmp/s.json guard run -c './y.sh': " + WhyGuard, "env A=1 /usr/bin/guard run -- ./w.sh: " + WhyGuard, "second: " + WhyTwice}
	if !slices.Equal(wrapped, wantWrapped) {
		t.Errorf("Install wrapped %q; want %q", wrapped, wantWrapped)
	}
	if !slices.Equal(left, wantLeft) {
		t.Errorf("Install left %q; want %q", left, wantLeft)
	}

	// Uninstall touches none of the originals: none was written by install.
	u, err := Uninstall(doc)
	if err != nil {
		t.Fatal(err)
	}
	if len(u.Changes) != 0 || string(u.Doc) != string(doc) {
		t.Errorf("Uninstall changed hooks install did not wrap: %+v", u.Changes)
	}
	// ... and says which guard calls it leaves.
	left = nil
	for _, c := range u.Left {
		left = append(left, c.Before+": "+c.Why)
	}
	wantLeft = []string{"GUARD_STATE=/tmp/s.json guard run -c './y.sh': " + WhyEdited, "env A=1 /usr/bin/guard run -- ./w.sh: " + WhyEdited}
	if !slices.Equal(left, wantLeft) {
		t.Errorf("Uninstall left %q; want %q", left, wantLeft)
	}

	// A wrapped hook the user edited is reported, not silently kept.
	edited := []byte(`{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"/usr/local/bin/guard run --timeout 5s -c 'x'"}]}]}}`)
	u, _ = Uninstall(edited)
	if len(u.Changes) != 0 || len(u.Left) != 1 || u.Left[0].Why != WhyEdited {
		t.Errorf("Uninstall of an edited wrapper = %+v, left %+v; want it reported", u.Changes, u.Left)
	}

	// Install then uninstall gives the very bytes back.
	back, err := Uninstall(r.Doc)
	if err != nil || string(back.Doc) != string(doc) {
		t.Errorf("round trip:\n%s\nwant\n%s", back.Doc, doc)
	}
}

// TestBareBinary: a bare "guard", found through PATH, is what teams
// commit; where guard is not installed the hook runs its command itself
// (newcomer-and-mission #1), and a hook a guard before this one wrote with
// a bare guard gets the fallback on the next install.
func TestBareBinary(t *testing.T) {
	doc := []byte(`{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"/tmp/go-build1/b001/exe/guard run -c 'x'"},{"type":"command","command":"y"},{"type":"command","command":"guard run --shell bash -c 'it'\\''s'"}]}]}}`)
	r, err := Install(doc, Options{Binary: "guard"})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"command -v guard >/dev/null 2>&1 || exec bash -c 'x'; exec guard run --shell bash -c 'x'"},` +
		`{"type":"command","command":"command -v guard >/dev/null 2>&1 || exec bash -c 'y'; exec guard run --shell bash -c 'y'"},` +
		`{"type":"command","command":"command -v guard >/dev/null 2>&1 || exec bash -c 'it'\\''s'; exec guard run --shell bash -c 'it'\\''s'"}]}]}}`
	if string(r.Doc) != want {
		t.Errorf("Install --binary guard:\n%s\nwant\n%s", r.Doc, want)
	}
	again, err := Install(r.Doc, Options{Binary: "guard"})
	if err != nil || len(again.Changes) != 0 {
		t.Errorf("a second install changed %+v (%v)", again.Changes, err)
	}
	back, err := Uninstall(r.Doc)
	if err != nil || !strings.Contains(string(back.Doc), `"command":"y"`) || !strings.Contains(string(back.Doc), `"command":"it's"`) {
		t.Errorf("uninstall: %s (%v)", back.Doc, err)
	}
	// Pointed at an absolute guard again: no fallback (the path is this
	// machine's; doctor checks it).
	abs, err := Install(r.Doc, Options{Binary: bin})
	if err != nil || strings.Contains(string(abs.Doc), "command -v") {
		t.Errorf("Install --binary %s: %s (%v)", bin, abs.Doc, err)
	}
}

func TestNoHooksChangesNothing(t *testing.T) {
	for _, doc := range []string{`{}`, `{"model": "x"}`, `{"hooks": {}}`, `{"hooks": []}`, "{\n  \"hooks\": {\"Stop\": []}\n}\n"} {
		out, changes, err := install3([]byte(doc), Options{Binary: bin})
		if err != nil || len(changes) != 0 || string(out) != doc {
			t.Errorf("install3(%s) = %s, %v, %v", doc, out, changes, err)
		}
	}
}

func TestInvalidJSON(t *testing.T) {
	_, _, err := install3([]byte("{\n  \"hooks\": {\n    \"Stop\": [,]\n  }\n}\n"), Options{Binary: bin})
	var se *SyntaxError
	if !errors.As(err, &se) || se.Line != 3 || se.Column != 14 {
		t.Errorf("err = %v; want a syntax error at line 3, column 14", err)
	}
	if _, _, err := install3([]byte(`[1]`), Options{Binary: bin}); !errors.Is(err, ErrNotSettings) {
		t.Errorf("install3([1]) = %v; want ErrNotSettings", err)
	}
}

func FuzzInstallUninstall(f *testing.F) {
	f.Add("python3 lint.py", "  ", false)
	f.Add(`echo 'a' "b" $HOME `+"`x`"+` && cat <<EOF\nline\nEOF`, "\t", true)
	f.Add(`it\'s \u0027 '\''`, "", false)
	f.Fuzz(func(t *testing.T, command, indent string, exec bool) {
		if strings.Trim(indent, " \t") != "" {
			return // indentation is white space
		}
		hook := map[string]any{"type": "command", "command": command}
		if exec {
			hook = map[string]any{"type": "command", "command": command, "args": []string{"--flag", command}}
		}
		v := map[string]any{"hooks": map[string]any{"PreToolUse": []any{
			map[string]any{"matcher": "Bash", "hooks": []any{hook, map[string]any{"type": "command", "command": "true"}}},
		}}}
		doc, err := json.MarshalIndent(v, "", indent)
		if err != nil {
			return
		}
		out, _, err := install3(doc, Options{Binary: bin})
		if err != nil {
			t.Fatalf("Install: %v\n%s", err, doc)
		}
		if !json.Valid(bytes.TrimPrefix(out, bom)) {
			t.Fatalf("Install wrote invalid JSON:\n%s", out)
		}
		var decoded string // command as JSON carries it: invalid UTF-8 replaced
		if json.Unmarshal(jsonString(command), &decoded); !exec && !callsGuard(decoded) {
			if got := shellArg(t, commands(t, out)[0]); got != decoded {
				t.Fatalf("sh would run %q; want %q", got, decoded)
			}
		}
		back, _, err := uninstall3(out)
		if err != nil {
			t.Fatalf("Uninstall: %v", err)
		}
		if string(back) != string(doc) {
			t.Fatalf("round trip not byte-identical:\n%s\nwant\n%s", back, doc)
		}
		// As a plugin's hook, in exec form: the round trip too.
		r, err := Install(doc, Options{Binary: bin, HookTimeout: true, Exec: true, Plugin: "p@m"})
		if err != nil || !json.Valid(r.Doc) {
			t.Fatalf("Install as a plugin's: %v\n%s", err, r.Doc)
		}
		if back, _, err := uninstall3(r.Doc); err != nil || string(back) != string(doc) {
			t.Fatalf("plugin round trip not byte-identical (%v):\n%s\nwant\n%s", err, back, doc)
		}
	})
}

// FuzzDocument feeds arbitrary documents, so that the parser and the raw
// rewrite meet every escape and layout JSON allows.
func FuzzDocument(f *testing.F) {
	f.Add([]byte(realistic))
	f.Add([]byte(`{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"a\u0027b\\'c"}]}]}}`))
	f.Add([]byte(`{"hooks":{"X":[{"hooks":[{"command":"\ud83d\ude00 \t","type":"command"},{"args":["a"],"type":"command"}]}]}}`))
	f.Add([]byte("\xef\xbb\xbf" + `{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"a","args":[ ],"onFailure":"block"},{"command":"b","args":["c"]},{"command":"/g/guard run -c 'x'","args":[]}]}]}}`))
	f.Add([]byte(`{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"/g/guard","args":["run","--","a"],"onFailure":"block"},{"command":"/g/guard run -c 'y'","onFailure":"block"},{"command":"z","shell":"powershell"}]}]}}`))
	f.Add([]byte(`{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"node \"${CLAUDE_PLUGIN_ROOT}/x.js\" '${CLAUDE_PROJECT_DIR}'","timeout":1.5},{"type":"command","command":"a","args":["${CLAUDE_PLUGIN_ROOT:-}"]}]}]}}`))
	f.Add([]byte("{\n  \"hooks\": {\"SessionEnd\": [{\"hooks\": [\n    {\n      \"type\": \"command\",\n      \"command\": \"x\",\n      \"shell\": \"powershell\"\n    }\n  ]}]}\n}\n"))
	opts := []Options{
		{Binary: bin},
		{Binary: "guard", HookTimeout: true},
		{Binary: bin, HookTimeout: true, Exec: true},
		{Binary: bin, HookTimeout: true, Exec: true, Plugin: "p@m"},
		{Binary: "C:/Program Files/guard.exe", HookTimeout: true, Exec: true, Windows: true},
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		for _, o := range opts {
			r, err := Install(doc, o)
			if err != nil {
				return
			}
			out := r.Doc
			if !json.Valid(bytes.TrimPrefix(out, bom)) {
				t.Fatalf("Install %+v wrote invalid JSON:\n%s", o, out)
			}
			if again, err := Install(out, o); err != nil || len(again.Changes) != 0 {
				t.Fatalf("a second Install %+v changed %+v (%v):\n%s", o, again.Changes, err, out)
			}
			if _, changes, _ := uninstall3(doc); len(changes) > 0 {
				return // it held wrapped hooks: Uninstall would change them too
			}
			back, _, err := uninstall3(out)
			if err != nil || string(back) != string(doc) {
				t.Fatalf("round trip %+v not byte-identical (%v):\n%s\nwant\n%s", o, err, back, doc)
			}
		}
	})
}

// install3 and uninstall3 return what the tests look at.
func install3(doc []byte, opts Options) ([]byte, []Change, error) {
	r, err := Install(doc, opts)
	return r.Doc, r.Changes, err
}

func uninstall3(doc []byte) ([]byte, []Change, error) {
	r, err := Uninstall(doc)
	return r.Doc, r.Changes, err
}

// TestGuardCallForms covers M8's second half: a hook that calls guard by
// any path, quoted or not, through $HOME or ~, as guard-pg, behind env or
// in a list of commands, is guard already, and is not wrapped again.
func TestGuardCallForms(t *testing.T) {
	for _, cmd := range []string{
		`"$HOME/.local/bin/guard" run -c x`,
		`${HOME}/.local/bin/guard run -c x`,
		`"${HOME}"/.local/bin/guard run -- x`,
		`~/.local/bin/guard run -c x`,
		`guard-pg run -c x`,
		`guard-cli run -c x`,
		`/usr/local/bin/guard-pg cooldown hook`,
		`env X=1 guard run -c x`,
		`X=1 "$HOME/bin/guard" run -c x`,
		`cd "$CLAUDE_PROJECT_DIR" && guard run -c ./lint.sh`,
		// guard called inside a shell's string (h12).
		`bash -c "guard run -c inner"`,
		`sh -ec 'cd /srv && /usr/local/bin/guard run -- ./lint.sh'`,
		`env A=1 bash --norc -lc "sh -c 'guard run -c x'"`,
	} {
		doc := `{"hooks":{"Stop":[{"hooks":[{"type":"command","command":` + string(jsonString(cmd)) + `}]}]}}`
		r, err := Install([]byte(doc), Options{Binary: bin})
		if err != nil || len(r.Changes) != 0 || len(r.Left) != 1 || r.Left[0].Why != WhyGuard {
			t.Errorf("%s: changes %+v, left %+v (%v); want it left alone as a guard call", cmd, r.Changes, r.Left, err)
		}
		if strings.Contains(cmd, " run ") {
			if u, _ := Uninstall([]byte(doc)); len(u.Changes) != 0 || len(u.Left) != 1 || u.Left[0].Why != WhyEdited {
				t.Errorf("%s: Uninstall %+v, left %+v; want it reported, not touched", cmd, u.Changes, u.Left)
			}
		}
	}
}

// TestExecGuardCallForms covers h21 N3: an exec-form hook that calls guard
// is recognised as the shell form is (its argv read as the shell line that
// runs it), through a shell's -c script (sh, bash, behind env or
// /usr/bin/env, options clustered), behind env, or as guard itself: left
// alone as a guard call, never wrapped a second time, and reported, not
// touched, by Uninstall.
func TestExecGuardCallForms(t *testing.T) {
	for _, argv := range [][]string{
		{"bash", "-c", "guard run -c x9"},
		{"sh", "-c", "guard-pg run -c x"},
		{"sh", "-ec", "cd /srv && /usr/local/bin/guard run -- ./lint.sh"},
		{"/bin/bash", "--norc", "-lc", `sh -c 'guard run -c x'`},
		{"env", "bash", "-c", "guard run -c x"},
		{"/usr/bin/env", "bash", "-c", "guard run -c x"},
		{"env", "A=1", "sh", "-c", `"$HOME/.local/bin/guard" run -c x`},
		{"env", "A=1", "/usr/bin/guard", "run", "--", "x"},
		{"$HOME/.local/bin/guard", "run", "-c", "x"},
		{"guard", "cooldown", "hook"},
	} {
		args, _ := json.Marshal(argv[1:])
		doc := `{"hooks":{"Stop":[{"hooks":[{"type":"command","command":` + string(jsonString(argv[0])) + `,"args":` + string(args) + `}]}]}}`
		r, err := Install([]byte(doc), Options{Binary: bin})
		if err != nil || len(r.Changes) != 0 || len(r.Left) != 1 || r.Left[0].Why != WhyGuard {
			t.Errorf("%q: changes %+v, left %+v (%v); want it left alone as a guard call", argv, r.Changes, r.Left, err)
		}
		if slices.Contains(argv, "run") || strings.Contains(argv[len(argv)-1], " run ") {
			if u, _ := Uninstall([]byte(doc)); len(u.Changes) != 0 || len(u.Left) != 1 || u.Left[0].Why != WhyEdited {
				t.Errorf("%q: Uninstall %+v, left %+v; want it reported, not touched", argv, u.Changes, u.Left)
			}
		}
	}
	// A shell that runs something else is wrapped, as ever.
	doc := `{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"bash","args":["-c","echo guard run; ./guardctl run"]}]}]}}`
	if r, err := Install([]byte(doc), Options{Binary: bin}); err != nil || len(r.Changes) != 1 {
		t.Errorf("bash -c 'echo guard run; ./guardctl run': changes %+v, left %+v (%v); want it wrapped", r.Changes, r.Left, err)
	}
}

// TestBinaryNeedsQuotes covers m5: a --binary path with characters the
// shell or JSON must quote installs hooks that Uninstall recognises and
// undoes, and that a second install leaves as they are.
func TestBinaryNeedsQuotes(t *testing.T) {
	doc := `{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"echo hi"},{"type":"command","command":"node","args":["x.js"]},{"type":"command","command":"uv run w/circuit_breaker_wrapper.py -- lint"}]}]}}`
	for _, b := range []string{"/tmp/it's/guard", "/tmp/a b/guard", `/tmp/$x/"q"/guard`, "/tmp/\\d/`e`/guard", "/tmp/é\u2028/guard", "/tmp/\U0001F600/guard"} {
		out := roundTrip(t, doc, Options{Binary: b})
		hs, _ := List(out)
		for _, h := range hs {
			if h.Guard != b {
				t.Errorf("--binary %q: List sees guard %q in %+v", b, h.Guard, h)
			}
		}
		// Re-pointing from it, and to it, works too.
		other, _ := Install(out, Options{Binary: bin})
		if len(other.Changes) != 3 {
			t.Errorf("--binary %q: re-pointed %d hooks; want 3", b, len(other.Changes))
		}
		back, _ := Install(other.Doc, Options{Binary: b})
		if string(back.Doc) != string(out) {
			t.Errorf("--binary %q: re-pointed back:\n%s\nwant\n%s", b, back.Doc, out)
		}
	}
}

// TestByteOrderMark covers m20: a settings file that starts with a UTF-8
// byte order mark (Claude Code reads it) is read, and the mark kept; a
// UTF-16 file is named as such.
func TestByteOrderMark(t *testing.T) {
	doc := "\xef\xbb\xbf{\"hooks\":{\"Stop\":[{\"hooks\":[{\"type\":\"command\",\"command\":\"echo hi\"}]}]}}\r\n"
	out := roundTrip(t, doc, Options{Binary: bin})
	if !strings.HasPrefix(string(out), "\xef\xbb\xbf{") {
		t.Errorf("the mark was lost:\n%q", out)
	}
	if hs, err := List([]byte(doc)); err != nil || len(hs) != 1 {
		t.Errorf("List = %v, %v", hs, err)
	}
	_, err := Install([]byte("\xef\xbb\xbf\xef\xbb\xbf{}"), Options{Binary: bin})
	if err == nil || !strings.Contains(err.Error(), "byte order mark") || strings.Contains(err.Error(), "ï") {
		t.Errorf("two marks: %v", err)
	}
	_, err = Install([]byte("\xff\xfe{\x00}\x00"), Options{Binary: bin})
	if err == nil || !strings.Contains(err.Error(), "UTF-16") {
		t.Errorf("UTF-16: %v", err)
	}
}

// TestBinaryNotUTF8: a --binary that JSON cannot hold is refused, not
// written as another file's name.
func TestBinaryNotUTF8(t *testing.T) {
	if _, _, err := Binary("/tmp/\xff/guard"); err == nil || !strings.Contains(err.Error(), "UTF-8") {
		t.Errorf("Binary(not UTF-8) = %v; want it refused", err)
	}
}
