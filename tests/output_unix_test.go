//go:build unix

package tests

import (
	"errors"
	"os"
	"os/exec"
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

// TestRunOutlivesAReaderThatLeft: a reader of guard run's stderr that goes
// away (guard run ... 2>&1 | head -1) must not kill guard by SIGPIPE
// before it records the run: its copy of the command's stderr fails with
// EPIPE instead, the command's failure is recorded, and guard exits with
// the command's status. (guard writes through a duplicate of fd 2, which
// the Go runtime does not end the process for; see earlysig.)
func TestRunOutlivesAReaderThatLeft(t *testing.T) {
	for _, c := range []struct {
		name  string
		flags []string
	}{
		{"run", nil},
		// A run line guard cannot read runs its command unguarded, and
		// copies its stderr on all the same: a SIGPIPE there killed guard
		// and, by the parent-death signal, the command (found by review
		// of e4fb8ac).
		{"unparsed", []string{"--bogus-flag"}},
		{"flag twice", []string{"--name", "other"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			sb := newSandbox(t, "")
			r, w, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			r.Close() // the reader left before guard wrote
			args := append([]string{"run", "--name", "noisy"}, c.flags...)
			args = append(args, "--", "sh", "-c", "echo boom >&2; echo more >&2; : > ran; exit 3")
			cmd := sb.command(args...)
			cmd.Stderr = w
			err = cmd.Run()
			w.Close()
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != 3 {
				t.Fatalf("guard %q with a closed stderr: %v; want exit 3, the command's", args, err)
			}
			if !exists(sb.path("ran")) {
				t.Errorf("the command did not run to its end")
			}
			if c.flags == nil {
				if got := totals(sb.hook("noisy"), "failures"); got != 1 {
					t.Errorf("failures recorded = %d; want 1", got)
				}
			}
		})
	}
}
