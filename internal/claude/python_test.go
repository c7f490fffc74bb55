package claude

import (
	"strings"
	"testing"
)

// pyDoc is a settings.json with hooks wrapped by the Python guardrails, in
// each way they are launched.
const pyDoc = `{
  "hooks": {
    "PostToolUse": [
      {
        "matcher": "Write|Edit",
        "hooks": [
          {"type": "command", "command": "uv run ~/.claude/hooks/guardrails/circuit_breaker_wrapper.py -- uv run ~/.claude/hooks/validators/ruff_check.py"},
          {"type": "command", "command": "python3 /opt/g/circuit_breaker_wrapper.py --failure-threshold 5 --cooldown-seconds 60 -- python3 \"$CLAUDE_PROJECT_DIR/hooks/it's.py\" --fix"},
          {"type": "command", "command": "~/.claude/hooks/guardrails/circuit_breaker_wrapper.py -- npx prettier --check ."},
          {"type": "command", "command": "uv run --no-project --script w/circuit_breaker_wrapper.py --  bash -c \"echo \u00e9 && exit 1\""},
          {"type": "command", "command": "uv run x/circuit_breaker_wrapper.py -- a.sh && b.sh"},
          {"type": "command", "command": "uv", "args": ["run", "circuit_breaker_wrapper.py", "--", "lint"]},
          {"type": "command", "command": "echo circuit_breaker_wrapper.py -- x"}
        ]
      }
    ]
  }
}
`

func TestPythonWrappedHooksMoveToGuardAndBack(t *testing.T) {
	r, err := Install([]byte(pyDoc), Options{Binary: "/usr/local/bin/guard"})
	if err != nil {
		t.Fatal(err)
	}
	var moved []Change
	for _, c := range r.Changes {
		if c.Moved != nil {
			moved = append(moved, c)
		}
	}
	if len(moved) != 4 {
		t.Fatalf("moved %d hooks; want 4:\n%s", len(moved), r.Doc)
	}
	want := []struct{ key, cmd, after string }{
		{"ruff-check", "uv run ~/.claude/hooks/validators/ruff_check.py",
			`/usr/local/bin/guard run --from-python 'uv run ~/.claude/hooks/guardrails/circuit_breaker_wrapper.py -- ' -c 'uv run ~/.claude/hooks/validators/ruff_check.py'`},
		{"it's", `python3 "$CLAUDE_PROJECT_DIR/hooks/it's.py" --fix`,
			`/usr/local/bin/guard run --from-python 'python3 /opt/g/circuit_breaker_wrapper.py --failure-threshold 5 --cooldown-seconds 60 -- ' --failure-threshold 5 --cooldown-seconds 60 -c 'python3 "$CLAUDE_PROJECT_DIR/hooks/it'\''s.py" --fix'`},
		{".", "npx prettier --check .", ""}, // the wrapper's key, lossy as it is
		{"echo é && exit 1", `bash -c "echo é && exit 1"`, ""},
	}
	for i, w := range want {
		m := moved[i].Moved
		if m.PythonKey != w.key || m.Command != w.cmd || (w.after != "" && moved[i].After != w.after) {
			t.Errorf("hook %d: key %q, command %q, after\n%s\nwant key %q, command %q, after\n%s", i, m.PythonKey, m.Command, moved[i].After, w.key, w.cmd, w.after)
		}
	}
	// Not moved, nor wrapped (guard's breaker and the wrapper's would both
	// count a.sh): a wrapped command that is not the rest of the hook, an
	// exec-form hook, and any other that names the wrapper's script (an
	// echo of it too: install cannot tell); each is left with its reason.
	if !strings.Contains(string(r.Doc), `"command": "uv run x/circuit_breaker_wrapper.py -- a.sh && b.sh"`) {
		t.Errorf("the && hook was wrapped:\n%s", r.Doc)
	}
	if !strings.Contains(string(r.Doc), `"command": "echo circuit_breaker_wrapper.py -- x"`) {
		t.Errorf("the echo was wrapped:\n%s", r.Doc)
	}
	var why []string
	for _, c := range r.Left {
		why = append(why, c.Why)
	}
	if len(why) != 3 || !strings.Contains(why[0], "one of several commands") || why[1] != WhyPyArgs || !strings.Contains(why[2], "starts with echo") {
		t.Errorf("left %q; want the && hook, the exec-form hook and the echo, for their reasons", why)
	}
	// Installing again changes nothing; uninstall gives the very bytes back.
	again, err := Install(r.Doc, Options{Binary: "/usr/local/bin/guard"})
	if err != nil || string(again.Doc) != string(r.Doc) || len(again.Changes) != 0 {
		t.Errorf("a second install changed %d hooks (%v)", len(again.Changes), err)
	}
	back, err := Uninstall(r.Doc)
	if err != nil {
		t.Fatal(err)
	}
	if string(back.Doc) != pyDoc {
		t.Errorf("uninstall gave\n%s\nwant the original\n%s", back.Doc, pyDoc)
	}
	// Re-pointing a moved hook keeps it restorable.
	moved2, err := Install(r.Doc, Options{Binary: "/opt/bin/guard"})
	if err != nil {
		t.Fatal(err)
	}
	if back, _ := Uninstall(moved2.Doc); string(back.Doc) != pyDoc {
		t.Errorf("uninstall after a re-point gave\n%s", back.Doc)
	}
}

func TestBothWrappersAreRefused(t *testing.T) {
	for _, cmd := range []string{
		`guard run -c 'uv run circuit_breaker_wrapper.py -- python3 lint.py'`,
		`uv run circuit_breaker_wrapper.py -- guard run -- python3 lint.py`,
		`python3 circuit_breaker_wrapper.py -- env A=1 /usr/bin/guard run -c lint`,
	} {
		doc := `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": ` + string(jsonString(cmd)) + `}]}]}}`
		_, err := Install([]byte(doc), Options{Binary: "guard"})
		if _, ok := err.(*BothWrappedError); !ok {
			t.Errorf("%s: %v; want a BothWrappedError", cmd, err)
		}
	}
}

func TestPythonKey(t *testing.T) {
	for _, c := range []struct {
		argv []string
		want string
	}{
		{[]string{"uv", "run", "hooks/Ruff_Check.py", "--fix"}, "ruff-check"},
		{[]string{"npx", "prettier", "--check", "."}, "."},
		{[]string{"caf-hooks", "lint_all", "--quick"}, "lint-all"},
		{[]string{"/usr/bin/make"}, "make"},
	} {
		if got := PythonKey(c.argv); got != c.want {
			t.Errorf("PythonKey(%q) = %q; want %q", c.argv, got, c.want)
		}
	}
}

// TestPythonWrapperForms covers M8: however the wrapper is started, a hook
// behind it is moved to guard exactly or left alone with the reason, and
// never wrapped a second time.
func TestPythonWrapperForms(t *testing.T) {
	moved := []struct{ cmd, inner string }{
		{"uv run --with pyyaml ~/.claude/hooks/circuit_breaker_wrapper.py -- python3 ~/.claude/hooks/a.py", "python3 ~/.claude/hooks/a.py"},
		{"uv run --with=pyyaml --python 3.12 -q w/circuit_breaker_wrapper.py -- lint", "lint"},
		{"python3 -u -X utf8 /opt/circuit_breaker_wrapper.py -- lint --fix", "lint --fix"},
		{`uv run "$HOME/.claude/hooks/circuit_breaker_wrapper.py" -- lint`, "lint"},
	}
	left := []struct{ cmd, why string }{
		{"cd ~ && uv run ~/.claude/hooks/circuit_breaker_wrapper.py -- python3 b.py", "one of several commands"},
		{"FOO=1 uv run w/circuit_breaker_wrapper.py -- lint", "VAR=value"},
		{"env FOO=1 uv run w/circuit_breaker_wrapper.py -- lint", "VAR=value"},
		{"timeout 30 python3 w/circuit_breaker_wrapper.py -- lint", "VAR=value"},
		{"uv run --directory /srv w/circuit_breaker_wrapper.py -- lint", "--directory"},
		{"uv run --env-file .env w/circuit_breaker_wrapper.py -- lint", "--env-file"},
		{"uv run --frobnicate x w/circuit_breaker_wrapper.py -- lint", "cannot tell"},
		{`sh -c 'uv run w/circuit_breaker_wrapper.py -- lint'`, "cannot tell"},
		{"uv run w/circuit_breaker_wrapper.py -- lint | tee log", "one of several commands"},
		// Launchers install does not take apart (h12): left alone, never
		// wrapped a second time.
		{"poetry run python ~/.claude/hooks/circuit_breaker_wrapper.py -- cmd", "starts with poetry"},
		{"uvx --from x python ~/.claude/hooks/circuit_breaker_wrapper.py -- cmd", "starts with uvx"},
		{"pipx run --spec x python ~/.claude/hooks/circuit_breaker_wrapper.py -- cmd", "starts with pipx"},
		{"pdm run circuit_breaker_wrapper.py -- cmd", "starts with pdm"},
		{"conda run -n x python w/circuit_breaker_wrapper.py -- cmd", "starts with conda"},
		{`bash -lc "poetry run python w/circuit_breaker_wrapper.py -- cmd"`, "starts with poetry"},
		{`bash -c "uv run w/circuit_breaker_wrapper.py -- cmd"`, "cannot tell"},
		{"uv run w/circuit_breaker_wrapper.py.bak -- cmd", "cannot tell how"},
	}
	var hooks []string
	for _, m := range moved {
		hooks = append(hooks, `{"type":"command","command":`+string(jsonString(m.cmd))+`}`)
	}
	for _, l := range left {
		hooks = append(hooks, `{"type":"command","command":`+string(jsonString(l.cmd))+`}`)
	}
	doc := `{"hooks":{"Stop":[{"hooks":[` + strings.Join(hooks, ",") + `]}]}}`
	r, err := Install([]byte(doc), Options{Binary: "/usr/local/bin/guard"})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Changes) != len(moved) {
		t.Errorf("%d changes; want %d:\n%s", len(r.Changes), len(moved), r.Doc)
	}
	for i, c := range r.Changes {
		if i < len(moved) && (c.Moved == nil || c.Moved.Command != moved[i].inner) {
			t.Errorf("%s: change %+v; want it moved, running %q", moved[i].cmd, c, moved[i].inner)
		}
	}
	if len(r.Left) != len(left) {
		t.Fatalf("left %d; want %d: %+v", len(r.Left), len(left), r.Left)
	}
	for i, l := range r.Left {
		if l.Before != left[i].cmd || !strings.Contains(l.Why, left[i].why) || !strings.Contains(l.Why, "Python wrapper") {
			t.Errorf("left %q (%s); want %q, for %q", l.Before, l.Why, left[i].cmd, left[i].why)
		}
	}
	if back, _ := Uninstall(r.Doc); string(back.Doc) != doc {
		t.Errorf("round trip:\n%s\nwant\n%s", back.Doc, doc)
	}
	// doctor sees the same.
	hs, _ := List([]byte(doc))
	for i, h := range hs {
		if i < len(moved) && h.Python != moved[i].inner || i >= len(moved) && h.PythonManual == "" {
			t.Errorf("List: %+v", h)
		}
	}
}
