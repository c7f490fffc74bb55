//go:build unix

package tests

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadmeFirstCommandLeavesHomeAlone covers newcomer-and-mission #6
// and architecture-2 #9: the README opens with a one-line pitch, then its
// two commands (go run ./cmd/guard run -- ..., go test ./...); the first,
// run as written (with this guard for go run ./cmd/guard), writes nothing
// into the user's ~/.claude.
func TestReadmeFirstCommandLeavesHomeAlone(t *testing.T) {
	data, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(data)
	before, block, ok := strings.Cut(readme, "```sh\n")
	if !ok {
		t.Fatal("README.md has no sh block")
	}
	block, _, _ = strings.Cut(block, "```")
	lines := strings.Split(strings.TrimSpace(block), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "go run ./cmd/guard run ") || !strings.HasPrefix(lines[1], "go test ./...") {
		t.Fatalf("README.md's first commands = %q; want go run ./cmd/guard run ... and go test ./...", lines)
	}
	pitch := strings.Split(strings.TrimSpace(strings.TrimPrefix(before, "# guard")), "\n")
	if len(pitch) > 3 || !strings.Contains(before, "circuit breaker") {
		t.Errorf("README.md before its commands: %q; want a one-line pitch", before)
	}

	home := t.TempDir()
	cmdline, _, _ := strings.Cut(lines[0], "#")
	cmdline = strings.Replace(cmdline, "go run ./cmd/guard", guardBin, 1)
	cmd := exec.Command("sh", "-c", cmdline)
	cmd.Dir = t.TempDir()
	cmd.Env = append(os.Environ(), "HOME="+home, "GUARD_STATE=", "GUARD_CONFIG=", "GUARD_COOLDOWN_STATE=")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", cmdline, err, out)
	}
	if exists(filepath.Join(home, ".claude")) {
		t.Errorf("README.md's first command %q wrote into ~/.claude", lines[0])
	}
}
