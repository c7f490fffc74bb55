package supervise

import "testing"

// Real outputs: Node 20's uncaught errors end in a property dump and its
// own version, which are not what failed (real-hooks re-run, N1).
func TestTelling(t *testing.T) {
	tests := []struct{ in, want string }{
		{"Traceback (most recent call last):\n  File \"x\", line 1\nModuleNotFoundError: No module named 'yaml'\n", "ModuleNotFoundError: No module named 'yaml'"},
		{"error: Failed to spawn: `check.py`\n  Caused by: No such file or directory (os error 2)\n", "error: Failed to spawn: `check.py`; caused by: No such file or directory (os error 2)"},
		{"node:internal/modules/cjs/loader:1210\n  throw err;\n  ^\n\nError: Cannot find module 'no-such-module'\nRequire stack:\n- /tmp/t1.js\n    at Module._resolveFilename (node:internal/modules/cjs/loader:1207:15)\n    at Function.executeUserEntryPoint [as runMain] (node:internal/modules/run_main:164:12) {\n  code: 'MODULE_NOT_FOUND',\n  requireStack: [ '/tmp/t1.js' ]\n}\n\nNode.js v20.20.2\n",
			"Error: Cannot find module 'no-such-module'"},
		{"/tmp/t2.js:1\nthrow new Error(\"boom\")\n^\n\nError: boom\n    at Object.<anonymous> (/tmp/t2.js:1:7)\n    at node:internal/main/run_main_module:28:49\n\nNode.js v20.20.2\n", "Error: boom"},
		{"/tmp/t3.js:1\nfunction (\n^^^^^^^^\n\nSyntaxError: Function statements require a function name\n    at wrapSafe (node:internal/modules/cjs/loader:1464:18)\n\nNode.js v20.20.2\n", "SyntaxError: Function statements require a function name"},
		{"file:///p/h.mjs:1\nError [ERR_MODULE_NOT_FOUND]: Cannot find package 'zod' imported from /p/h.mjs\n    at packageResolve (node:internal/modules/esm/resolve:853:9) {\n  code: 'ERR_MODULE_NOT_FOUND'\n}\n\nNode.js v22.1.0\n", "Error [ERR_MODULE_NOT_FOUND]: Cannot find package 'zod' imported from /p/h.mjs"},
		// A hook's own last line stays the telling one, even below an error.
		{"TypeError: x\nretried, still failing: 3 files\n", "retried, still failing: 3 files"},
		{"Node.js v20.20.2\n", "Node.js v20.20.2"},
		{"lint failed\n  src/a.go:1: unused\n", "lint failed"},
		// The hook's own summary, and Java's root cause, beat an error
		// heading above them (review).
		{"TypeError: old noise\nsummary: 2 checks failed\n  - check a\n", "summary: 2 checks failed"},
		{"java.lang.RuntimeException: wrap\n\tat A.b(A.java:1)\nCaused by: java.io.IOException: disk full\n\tat C.d(C.java:2)\n", "Caused by: java.io.IOException: disk full"},
		{"checking runtime\nNode.js v18 or later is required\n", "Node.js v18 or later is required"},
		{"", ""},
	}
	for _, tc := range tests {
		if got := Telling(tc.in); got != tc.want {
			t.Errorf("Telling(%q) = %q; want %q", tc.in, got, tc.want)
		}
	}
}

func TestErrorHeading(t *testing.T) {
	for line, want := range map[string]bool{
		"Error: boom": true, "TypeError: x": true, "Error [ERR_MODULE_NOT_FOUND]: y": true,
		"java.lang.IllegalStateException: z": true, "ModuleNotFoundError: No module": true,
		"error: Failed to spawn": false, "Require stack:": false, "my Error: x": false, "Error [x: y": false,
		"Errors: 3": false, "- /tmp/t1.js": false,
	} {
		if got := errorHeading(line); got != want {
			t.Errorf("errorHeading(%q) = %v; want %v", line, got, want)
		}
	}
	for line, want := range map[string]bool{
		"Node.js v20.20.2": true, "Bun v1.1.0 (Linux x64)": true, "Node.js v": false, "Node.js version: 20": false, "Node.js v2: error: x": false,
		"Node.js v18 or later is required": false, "Node.js v18.0.0-pre": false,
	} {
		if got := runtimeTrailer(line); got != want {
			t.Errorf("runtimeTrailer(%q) = %v; want %v", line, got, want)
		}
	}
}
