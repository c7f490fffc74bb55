//go:build unix

package tests

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestReportOutputIsPrivate covers hostile-user-3 m6: a report --output
// makes (in every format, the dashboard's html too) is 0600 whatever the
// umask, as state export's checkpoints are: it holds every command line
// and error. A file that exists keeps its mode.
func TestReportOutputIsPrivate(t *testing.T) {
	old := syscall.Umask(0o022)
	defer syscall.Umask(old)
	sb := newSandbox(t, "")
	if code, _, stderr := sb.guard("run", "--name", "deploy --token s3cret", "--", "false"); code != 1 {
		t.Fatalf("guard run: exit %d: %s", code, stderr)
	}
	for _, format := range []string{"text", "json", "markdown", "prometheus", "html"} {
		out := sb.path("report." + format)
		if code, _, stderr := sb.guard("report", "--format", format, "--output", out); code != 0 {
			t.Fatalf("report --format %s: exit %d: %s", format, code, stderr)
		}
		if fi, err := os.Stat(out); err != nil || fi.Mode().Perm() != 0o600 {
			t.Errorf("report --format %s --output made %s with mode %v (%v); want 0600", format, filepath.Base(out), fi.Mode().Perm(), err)
		}
	}
	// A file made readable for a collector keeps its mode.
	prom := sb.path("report.prometheus")
	os.Chmod(prom, 0o644)
	sb.guard("report", "--format", "prometheus", "--output", prom)
	if fi, _ := os.Stat(prom); fi.Mode().Perm() != 0o644 {
		t.Errorf("report --output replaced a 0644 file with mode %v; want it kept", fi.Mode().Perm())
	}
}
