package settings

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

const bin = "/usr/local/bin/guard"

// realistic is a settings.json with several events, matchers, a timeout,
// commands with quotes, pipes and &&, an exec-form hook, and other keys.
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
            "args": [
              "notify-send",
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

// commands decodes every hook command, or args joined, in document order.
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
				if h.Command != "" {
					out = append(out, h.Command)
				} else {
					out = append(out, strings.Join(h.Args, "|"))
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
	prefix := bin + " run -c "
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
	out, changes, err := Install(doc, Options{Binary: bin})
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
	if !strings.Contains(string(out), "\n              \""+bin+"\",\n              \"run\",\n              \"--\",\n              \"notify-send\",") {
		t.Errorf("exec form not indented like its array:\n%s", out)
	}

	again, changes, err := Install(out, Options{Binary: bin})
	if err != nil || len(changes) != 0 || string(again) != string(out) {
		t.Errorf("second install changed %d hooks; want none", len(changes))
	}
	back, changes, err := Uninstall(out)
	if err != nil {
		t.Fatal(err)
	}
	if string(back) != realistic {
		t.Errorf("uninstall after install is not byte-identical:\n%s", back)
	}
	if len(changes) != 5 {
		t.Errorf("uninstall made %d changes; want 5", len(changes))
	}
	if again, changes, _ := Uninstall(back); len(changes) != 0 || string(again) != realistic {
		t.Error("second uninstall changed something")
	}
}

func TestEscapesAreKept(t *testing.T) {
	// Escapes another writer chose: \u0027 for a quote, \/ and \u0026.
	doc := []byte(`{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"echo \u0027it\u0027s\u0027 \/tmp \u0026\u0026 echo \"q\" \\ done"}]}]}}`)
	out, _, err := Install(doc, Options{Binary: bin})
	if err != nil {
		t.Fatal(err)
	}
	if got := shellArg(t, commands(t, out)[0]); got != `echo 'it's' /tmp && echo "q" \ done` {
		t.Errorf("sh would run %q", got)
	}
	back, _, _ := Uninstall(out)
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
		{"type":"command","args":["/usr/bin/guard","cooldown","hook"]},
		{"type":"command","command":"z"}]}]}}`)
	out, changes, err := Install(doc, Options{Binary: bin, Skip: func(c string) bool { return strings.Contains(c, "critical") }})
	if err != nil {
		t.Fatal(err)
	}
	if len(changes) != 1 || changes[0].Before != "z" || changes[0].Event != "Stop" {
		t.Errorf("changes = %+v; want only z wrapped", changes)
	}
	if !strings.Contains(string(out), `"command":"/usr/local/bin/guard run -c 'z'"`) {
		t.Errorf("z not wrapped:\n%s", out)
	}
	// A binary path with spaces is quoted for the shell.
	out, _, _ = Install([]byte(`{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"z"}]}]}}`), Options{Binary: "/my dir/guard"})
	if !strings.Contains(string(out), `"command":"'/my dir/guard' run -c 'z'"`) {
		t.Errorf("binary not quoted:\n%s", out)
	}
	if again, changes, _ := Install(out, Options{Binary: "/my dir/guard"}); len(changes) != 0 || string(again) != string(out) {
		t.Error("a quoted binary was wrapped twice")
	}
}

func TestNoHooksChangesNothing(t *testing.T) {
	for _, doc := range []string{`{}`, `{"model": "x"}`, `{"hooks": {}}`, `{"hooks": []}`, "{\n  \"hooks\": {\"Stop\": []}\n}\n"} {
		out, changes, err := Install([]byte(doc), Options{Binary: bin})
		if err != nil || len(changes) != 0 || string(out) != doc {
			t.Errorf("Install(%s) = %s, %v, %v", doc, out, changes, err)
		}
	}
}

func TestInvalidJSON(t *testing.T) {
	_, _, err := Install([]byte("{\n  \"hooks\": {\n    \"Stop\": [,]\n  }\n}\n"), Options{Binary: bin})
	var se *SyntaxError
	if !errors.As(err, &se) || se.Line != 3 || se.Column != 14 {
		t.Errorf("err = %v; want a syntax error at line 3, column 14", err)
	}
	if _, _, err := Install([]byte(`[1]`), Options{Binary: bin}); !errors.Is(err, ErrNotSettings) {
		t.Errorf("Install([1]) = %v; want ErrNotSettings", err)
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
			hook = map[string]any{"type": "command", "args": []string{command, "--flag", command}}
		}
		v := map[string]any{"hooks": map[string]any{"PreToolUse": []any{
			map[string]any{"matcher": "Bash", "hooks": []any{hook, map[string]any{"type": "command", "command": "true"}}},
		}}}
		doc, err := json.MarshalIndent(v, "", indent)
		if err != nil {
			return
		}
		out, _, err := Install(doc, Options{Binary: bin})
		if err != nil {
			t.Fatalf("Install: %v\n%s", err, doc)
		}
		if !json.Valid(out) {
			t.Fatalf("Install wrote invalid JSON:\n%s", out)
		}
		var decoded string // command as JSON carries it: invalid UTF-8 replaced
		if json.Unmarshal(jsonString(command), &decoded); !exec && !guardCommand(decoded, bin) {
			if got := shellArg(t, commands(t, out)[0]); got != decoded {
				t.Fatalf("sh would run %q; want %q", got, decoded)
			}
		}
		back, _, err := Uninstall(out)
		if err != nil {
			t.Fatalf("Uninstall: %v", err)
		}
		if string(back) != string(doc) {
			t.Fatalf("round trip not byte-identical:\n%s\nwant\n%s", back, doc)
		}
	})
}

// FuzzDocument feeds arbitrary documents, so that the parser and the raw
// rewrite meet every escape and layout JSON allows.
func FuzzDocument(f *testing.F) {
	f.Add([]byte(realistic))
	f.Add([]byte(`{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"a\u0027b\\'c"}]}]}}`))
	f.Add([]byte(`{"hooks":{"X":[{"hooks":[{"command":"\ud83d\ude00 \t","type":"command"},{"args":["a"],"type":"command"}]}]}}`))
	f.Fuzz(func(t *testing.T, doc []byte) {
		out, _, err := Install(doc, Options{Binary: bin})
		if err != nil {
			return
		}
		if !json.Valid(out) {
			t.Fatalf("Install wrote invalid JSON:\n%s", out)
		}
		if _, changes, _ := Uninstall(doc); len(changes) > 0 {
			return // it held wrapped hooks: Uninstall would change them too
		}
		back, _, err := Uninstall(out)
		if err != nil || string(back) != string(doc) {
			t.Fatalf("round trip not byte-identical (%v):\n%s\nwant\n%s", err, back, doc)
		}
	})
}
