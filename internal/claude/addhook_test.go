package claude

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestAddHookRoundTrip: the SessionStart hook install --plugins --auto
// adds goes where Claude Code reads it, laid out as the file is, and
// RemoveHook gives back the very bytes.
func TestAddHookRoundTrip(t *testing.T) {
	hook := map[string]any{"type": "command", "command": "/usr/local/bin/guard install --plugins --session-start"}
	for _, doc := range []string{
		"{}",
		"{}\n",
		`{"model": "opus"}`,
		"{\n  \"model\": \"opus\"\n}\n",
		"{\n    \"model\": \"opus\",\n    \"enabledPlugins\": {\"a@b\": true}\n}\n",
		"{\n\t\"hooks\": {\n\t\t\"Stop\": [\n\t\t\t{\"hooks\": [{\"type\": \"command\", \"command\": \"x\"}]}\n\t\t]\n\t}\n}\n",
		"{\n  \"hooks\": {\n    \"SessionStart\": [\n      {\n        \"hooks\": [{\"type\": \"command\", \"command\": \"x\"}]\n      }\n    ]\n  }\n}\n",
		`{"hooks": {"SessionStart": [{"matcher": "startup", "hooks": [{"type": "command", "command": "x"}]}]}, "model": "x"}`,
		"\xef\xbb\xbf{\n  \"hooks\": {}\n}\n",
	} {
		out, err := AddHook([]byte(doc), "SessionStart", hook)
		if err != nil {
			t.Errorf("AddHook(%q): %v", doc, err)
			continue
		}
		var v struct {
			Hooks map[string][]struct {
				Hooks []map[string]any `json:"hooks"`
			} `json:"hooks"`
		}
		if err := json.Unmarshal(out[len(out)-len(strings.TrimPrefix(string(out), "\xef\xbb\xbf")):], &v); err != nil {
			t.Errorf("AddHook(%q) wrote invalid JSON: %v\n%s", doc, err, out)
			continue
		}
		groups := v.Hooks["SessionStart"]
		if len(groups) == 0 || groups[len(groups)-1].Hooks[0]["command"] != hook["command"] {
			t.Errorf("AddHook(%q): the hook is not the last of SessionStart:\n%s", doc, out)
		}
		back, ok, err := RemoveHook(out, "SessionStart", func(h []byte) bool { return strings.Contains(string(h), "--session-start") })
		want := doc
		if strings.Contains(doc, `"hooks": {}`) {
			want = "\xef\xbb\xbf{}\n" // a "hooks" left empty goes
		}
		if err != nil || !ok || string(back) != want {
			t.Errorf("RemoveHook(AddHook(%q)) = %q, %v, %v", doc, back, ok, err)
		}
		if again, ok, _ := RemoveHook(back, "SessionStart", func([]byte) bool { return false }); ok || string(again) != string(back) {
			t.Errorf("RemoveHook removed what it was not asked to")
		}
	}
}
