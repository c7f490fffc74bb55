package guardrun

import "testing"

// TestGoRun: guard built by go run (the README's first command) is told
// apart, so that its other commands are said to be go run ./cmd/guard-cli.
func TestGoRun(t *testing.T) {
	for dir, want := range map[string]bool{
		"/root/.cache/go-build/1c/1c0cf641d4eb5e0b-d": true,
		"/tmp/go-build3385201/b001/exe":               true,
		`C:\Users\me\AppData\Local\go-build\ab\cd-d`:  true,
		"/home/me/.local/bin":                         false,
		"/home/me/go-builder/bin":                     false,
		"/usr/local/bin":                              false,
	} {
		if got := goRun(dir); got != want {
			t.Errorf("goRun(%q) = %v, want %v", dir, got, want)
		}
	}
}
