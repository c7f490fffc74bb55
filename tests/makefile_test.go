//go:build unix

package tests

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestMakeInstallSaysWhenNotOnPath covers newcomer-and-mission #12: make
// install (and install-pg) warns when the directory it installs into is
// not on PATH, with the line to add; on PATH, it says nothing more. (A
// stand-in go on PATH makes the install itself a no-op.)
func TestMakeInstallSaysWhenNotOnPath(t *testing.T) {
	if _, err := exec.LookPath("make"); err != nil {
		skipOutsideCI(t, "SKIP: make is not installed")
	}
	fake := t.TempDir()
	if err := os.WriteFile(filepath.Join(fake, "go"), []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), "bin")
	make := func(path, target string) string {
		t.Helper()
		cmd := exec.Command("make", "-s", "-C", "..", target, "GOBIN="+bin)
		cmd.Env = append(os.Environ(), "PATH="+path)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("make %s: %v: %s", target, err, stderr.String())
		}
		return stderr.String()
	}
	for _, target := range []string{"install", "install-pg"} {
		stderr := make(fake+":/usr/bin:/bin", target)
		if !strings.Contains(stderr, bin+" is not on your PATH") || !strings.Contains(stderr, `export PATH="`+bin+`:$PATH"`) {
			t.Errorf("make %s into a directory not on PATH: stderr %q; want a warning and the line to add", target, stderr)
		}
		if stderr := make(fake+":"+bin+":/usr/bin:/bin", target); stderr != "" {
			t.Errorf("make %s into a directory on PATH: stderr %q; want nothing", target, stderr)
		}
	}
}
