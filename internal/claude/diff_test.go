package claude

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// editAt makes an edit replacing the first occurrence of old in doc.
func editAt(doc, old, text string) Edit {
	i := strings.Index(doc, old)
	return Edit{Start: i, End: i + len(old), Text: []byte(text)}
}

func TestEditDiff(t *testing.T) {
	a := "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n"
	var buf bytes.Buffer
	Diff(&buf, "a", "b", []byte(a), []Edit{editAt(a, "4\n", "four\n"), {Start: len(a), End: len(a), Text: []byte("13\n")}})
	want := "--- a\n+++ b\n@@ -1,7 +1,7 @@\n 1\n 2\n 3\n-4\n+four\n 5\n 6\n 7\n@@ -10,3 +10,4 @@\n 10\n 11\n 12\n+13\n"
	if buf.String() != want {
		t.Errorf("diff =\n%s\nwant\n%s", buf.String(), want)
	}
}

// TestEditDiffApplies checks diffs with patch(1), when it is there.
func TestEditDiffApplies(t *testing.T) {
	if _, err := exec.LookPath("patch"); err != nil {
		t.Skip("patch is not installed")
	}
	a := "{\n  \"a\": 1,\n  \"b\": [\n    \"x\"\n  ],\n  \"c\": \"y\", \"d\": \"z\"\n}"
	tests := [][]Edit{
		{editAt(a, `"x"`, "\"guard\",\n    \"run\",\n    \"--\",\n    \"x\"")},
		{editAt(a, `"y"`, `"Y"`), editAt(a, `"z"`, `"Z"`)},
		{editAt(a, `"a": 1`, `"a": 2`), editAt(a, `"z"`, `"Z"`)},
		{editAt(a, "}", "}\n")},
	}
	for i, edits := range tests {
		dir := t.TempDir()
		var d bytes.Buffer
		Diff(&d, "f", "f", []byte(a), edits)
		os.WriteFile(filepath.Join(dir, "f"), []byte(a), 0o600)
		cmd := exec.Command("patch", "-s", "f")
		cmd.Dir, cmd.Stdin = dir, bytes.NewReader(d.Bytes())
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%d: patch: %v\n%s\n%s", i, err, out, d.String())
		}
		want := string(applyEdits([]byte(a), edits))
		if got, _ := os.ReadFile(filepath.Join(dir, "f")); string(got) != want {
			t.Errorf("%d: patched = %q; want %q\n%s", i, got, want, d.String())
		}
	}
}

func applyEdits(doc []byte, edits []Edit) []byte {
	var out []byte
	at := 0
	for _, e := range edits {
		out = append(append(out, doc[at:e.Start]...), e.Text...)
		at = e.End
	}
	return append(out, doc[at:]...)
}

// TestInstallDryRunIsLinear covers hostile-user finding 18: the dry run
// of a huge settings.json must not compare every line with every other.
// It checks the diff's size, not a time: 150,000 lines with a change every
// 50 lines.
func TestInstallDryRunIsLinear(t *testing.T) {
	var b strings.Builder
	b.WriteString("{\n  \"hooks\": {\n    \"Stop\": [\n")
	n := 3000
	for i := range n {
		fmt.Fprintf(&b, "      {\n        \"hooks\": [\n          {\"type\": \"command\", \"command\": \"check-%d.sh\"}\n        ]", i)
		for range 45 {
			b.WriteString(",\n        \"pad\": 1")
		}
		if i < n-1 {
			b.WriteString("\n      },\n")
		} else {
			b.WriteString("\n      }\n")
		}
	}
	b.WriteString("    ]\n  }\n}\n")
	doc := []byte(b.String())
	start := time.Now()
	r, err := Install(doc, Options{Binary: "/usr/bin/guard"})
	if err != nil {
		t.Fatal(err)
	}
	var d bytes.Buffer
	Diff(&d, "a", "b", doc, r.Edits)
	if got := strings.Count(d.String(), "\n+ "); got != n {
		t.Errorf("diff has %d added lines; want %d", got, n)
	}
	t.Logf("%d lines, %d hooks: install and diff took %s", bytes.Count(doc, []byte("\n")), n, time.Since(start))
}
