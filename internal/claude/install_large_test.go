package claude

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/diff"
)

// TestInstallDryRunIsLinear covers hostile-user finding 18: the dry run
// of a huge settings.json (its diff is go-internal's, O(n log n)) must not
// compare every line with every other. It checks the diff's size, not a
// time: 150,000 lines with a change every 50 lines.
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
	d := diff.Diff("a", doc, "b", r.Doc)
	if got := strings.Count(string(d), "/usr/bin/guard run"); got != n {
		t.Errorf("diff shows %d wrapped hooks; want %d", got, n)
	}
	t.Logf("%d lines, %d hooks: install and diff took %s", bytes.Count(doc, []byte("\n")), n, time.Since(start))
}
