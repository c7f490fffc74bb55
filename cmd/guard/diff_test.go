package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestUnifiedDiff(t *testing.T) {
	a := "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n"
	b := "1\n2\n3\nfour\n5\n6\n7\n8\n9\n10\n11\n12\n13\n"
	var buf bytes.Buffer
	unifiedDiff(&buf, "a", "b", a, b)
	want := "--- a\n+++ b\n@@ -1,7 +1,7 @@\n 1\n 2\n 3\n-4\n+four\n 5\n 6\n 7\n@@ -10,3 +10,4 @@\n 10\n 11\n 12\n+13\n"
	if buf.String() != want {
		t.Errorf("diff =\n%s\nwant\n%s", buf.String(), want)
	}
}

// TestUnifiedDiffApplies checks the diff with patch(1), when it is there.
func TestUnifiedDiffApplies(t *testing.T) {
	if _, err := exec.LookPath("patch"); err != nil {
		t.Skip("patch is not installed")
	}
	dir := t.TempDir()
	a := "{\n  \"a\": 1,\n  \"b\": [\n    \"x\"\n  ]\n}\n"
	b := "{\n  \"a\": 1,\n  \"b\": [\n    \"guard\",\n    \"run\",\n    \"--\",\n    \"x\"\n  ]\n}\n"
	var d bytes.Buffer
	unifiedDiff(&d, "f", "f", a, b)
	if strings.Count(d.String(), "@@") != 2 {
		t.Errorf("want one hunk:\n%s", d.String())
	}
	os.WriteFile(filepath.Join(dir, "f"), []byte(a), 0o600)
	cmd := exec.Command("patch", "-s", "f")
	cmd.Dir, cmd.Stdin = dir, &d
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("patch: %v\n%s\n%s", err, out, d.String())
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "f")); string(got) != b {
		t.Errorf("patched = %q; want %q", got, b)
	}
}
