package tests

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// python310 returns a Python 3.10 interpreter, if this machine has one.
func python310() string {
	home, _ := os.UserHomeDir()
	matches, _ := filepath.Glob(filepath.Join(home, ".pyenv/versions/3.10*/bin/python3.10"))
	if len(matches) > 0 {
		return matches[len(matches)-1]
	}
	if p, err := exec.LookPath("python3.10"); err == nil && exec.Command(p, "--version").Run() == nil {
		return p
	}
	return ""
}

// py310Time is what Python 3.10's datetime.fromisoformat reads: what its
// isoformat writes, with no "Z".
var py310Time = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(\.\d{3}(\d{3})?)?([+-]\d{2}:\d{2})?$`)

// TestPython310ReadsEveryTimestamp: every timestamp guard writes into
// hook_state.json (an open circuit, a failure window, a probe lease, the
// global stats) is one the Python wrapper's minimum Python reads, checked
// with Python 3.10 itself where the machine has it, and against its
// grammar always.
func TestPython310ReadsEveryTimestamp(t *testing.T) {
	dir := t.TempDir()
	state := filepath.Join(dir, "hook_state.json")
	cfg := filepath.Join(dir, "guardrails.yaml")
	os.WriteFile(cfg, []byte("circuit_breaker:\n  failure_threshold: 3\n  failure_window: 1h\n  probe_lease: 1h\n"), 0o644)
	guard := func(args ...string) {
		t.Helper()
		cmd := exec.Command(guardBin, args...)
		cmd.Env = append(os.Environ(), "GUARD_STATE="+state, "GUARD_CONFIG="+cfg, "HOME="+dir)
		cmd.Run()
	}
	for range 3 {
		guard("run", "--", "false")
	}
	guard("run", "--", "true")
	guard("trip", "--for", "1h", "--", "sleep 0")
	raw, err := os.ReadFile(state)
	if err != nil {
		t.Fatal(err)
	}
	var doc any
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	var times []string
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			for _, x := range v {
				walk(x)
			}
		case []any:
			for _, x := range v {
				walk(x)
			}
		case string:
			if len(v) >= 19 && v[4] == '-' && v[10] == 'T' {
				times = append(times, v)
			}
		}
	}
	walk(doc)
	if len(times) < 6 {
		t.Fatalf("only %d timestamps in\n%s", len(times), raw)
	}
	for _, ts := range times {
		if !py310Time.MatchString(ts) {
			t.Errorf("%q is not a timestamp Python 3.10 reads", ts)
		}
	}
	py := python310()
	if py == "" {
		t.Log("no Python 3.10 here: checked the timestamps against its grammar only")
		return
	}
	script := `import json, sys
from datetime import datetime
n = 0
def walk(v):
    global n
    if isinstance(v, dict):
        for x in v.values(): walk(x)
    elif isinstance(v, list):
        for x in v: walk(x)
    elif isinstance(v, str) and len(v) >= 19 and v[4] == '-' and v[10] == 'T':
        datetime.fromisoformat(v); n += 1
walk(json.load(open(sys.argv[1])))
print(n)`
	out, err := exec.Command(py, "-c", script, state).CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) == "0" {
		t.Errorf("Python 3.10 cannot read guard's hook_state.json: %v\n%s\n%s", err, out, raw)
	}
	if v, _ := exec.Command(py, "--version").Output(); !strings.Contains(string(v), "3.10") {
		t.Errorf("%s is %s, not 3.10", py, v)
	}
}
