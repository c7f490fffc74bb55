//go:build linux

package tests

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestFullDiskMessagesNameTheFile covers hostile-user-3 m10: on a full
// disk, every command that writes a state says which file it could not
// write, as run and export do: trip, reset, probe, cooldown record, mark
// and healthy, state import, not only "no space left on device".
func TestFullDiskMessagesNameTheFile(t *testing.T) {
	dir := t.TempDir()
	mountTmpfs(t, dir, "256k")
	env := append(os.Environ(), "GUARD_STATE="+filepath.Join(dir, "state.json"),
		"GUARD_COOLDOWN_STATE="+filepath.Join(dir, "cooldown.json"), "HOME="+t.TempDir(), "GUARD_CONFIG=")
	guard := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(guardBin, args...)
		cmd.Env = env
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		cmd.Run()
		return stderr.String()
	}
	guard("run", "--name", "k", "--", "true")
	guard("trip", "open-one")
	guard("cooldown", "record", "web", "restart")
	guard("state", "export", filepath.Join(dir, "ckpt.json"))

	fill, err := os.Create(filepath.Join(dir, "fill"))
	if err != nil {
		t.Fatal(err)
	}
	chunk := make([]byte, 4096)
	for {
		if _, err := fill.Write(chunk); err != nil {
			break
		}
	}
	fill.Close()

	for _, args := range [][]string{
		{"trip", "k"},
		{"reset", "open-one"},
		{"probe", "open-one"},
		{"run", "--name", "k2", "--", "true"},
		{"cooldown", "record", "web", "restart"},
		{"cooldown", "mark", "run"},
		{"cooldown", "healthy", "web"},
		{"state", "import", filepath.Join(dir, "ckpt.json")},
	} {
		stderr := guard(args...)
		if !strings.Contains(stderr, "no space left on device") || !strings.Contains(stderr, dir+"/.") {
			t.Errorf("guard %s on a full disk: stderr %q; want it to name the file it could not write", strings.Join(args, " "), stderr)
		}
	}
}
