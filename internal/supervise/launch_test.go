package supervise

import (
	"syscall"
	"testing"
)

func TestLaunchFailure(t *testing.T) {
	for _, c := range []struct {
		tail string
		exit int
		want string
	}{
		{"python3: can't open file '/h/.claude/hooks/lint.py': [Errno 2] No such file or directory\n", 2, "python3: can't open file '/h/.claude/hooks/lint.py': [Errno 2] No such file or directory"},
		{"/usr/bin/python3.11: can't open file '/x.py': [Errno 2] No such file or directory\n", 2, "/usr/bin/python3.11: can't open file '/x.py': [Errno 2] No such file or directory"},
		{"python: can't open file 'x.py': [Errno 2] No such file or directory", 2, "python: can't open file 'x.py': [Errno 2] No such file or directory"},
		{"error: Failed to spawn: `check.py`\n  Caused by: No such file or directory (os error 2)\n", 2, "error: Failed to spawn: `check.py`"},
		{"node:internal/modules/cjs/loader:1228\n  throw err;\nError: Cannot find module '/p/hook.js'\n    at Module._resolveFilename\n  code: 'MODULE_NOT_FOUND',\n  requireStack: []\n", 1, "Error: Cannot find module '/p/hook.js'"},
		{"Error: Cannot find module 'lodash'\nRequire stack:\n- /p/hook.js\n  requireStack: [ '/p/hook.js' ]\n", 1, ""}, // it started
		{"error: Module not found \"hook.ts\"\n", 1, "error: Module not found \"hook.ts\""},
		{"bash: ./hook.sh: /usr/bin/nopython: bad interpreter: No such file or directory\n", 126, "bash: ./hook.sh: /usr/bin/nopython: bad interpreter: No such file or directory"},
		{"/usr/bin/env: 'python9': No such file or directory\n", 127, "/usr/bin/env: 'python9': No such file or directory"},
		{"blocked: rm -rf is not allowed\n", 2, ""},
		{"python3: can't open file 'x.py'\n", 0, ""},
	} {
		r := Result{ExitCode: c.exit, Tail: []byte(c.tail)}
		if got := r.LaunchFailure(); got != c.want {
			t.Errorf("%q (exit %d): %q; want %q", c.tail, c.exit, got, c.want)
		}
	}
	killed := Result{ExitCode: 137, Signal: syscall.SIGKILL, Tail: []byte("python3: can't open file 'x'\n")}
	if killed.LaunchFailure() != "" {
		t.Error("a killed command counted as not started")
	}
}
