//go:build unix

package tests

import (
	"os"
	"reflect"
	"strings"
	"syscall"
	"testing"
)

// TestOpenCircuitIsSkippedWhileTheLockIsHeld covers faults #4: while the
// state lock is held elsewhere (a stopped guard, a slow disk), a call of a
// circuit the lock-free read shows open (not yet due for a probe) is
// skipped, with the usual notice, never run unguarded; a hook marked
// on_skip: block still blocks. A closed circuit's call still runs. The
// skip needs no lock (issue 36): it is counted in the skip tally, which
// status shows at once and the next write folds into the state.
func TestOpenCircuitIsSkippedWhileTheLockIsHeld(t *testing.T) {
	sb := newSandbox(t, "record_timeout: 1s\nhooks:\n  - match: policy\n    on_skip: block\n")
	sb.env = append(sb.env, "GUARDRAILS_LOCK_TIMEOUT=1s")
	for _, key := range []string{"k0", "policy"} {
		for range 3 {
			sb.guard("run", "--name", key, "--", "false")
		}
		if st := sb.hook(key)["state"]; st != "open" {
			t.Fatalf("%s: state %v after 3 failures; want open", key, st)
		}
	}
	skipsBefore := sb.hook("k0")["totals"]
	f, err := os.OpenFile(sb.path("state.json.lock"), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}

	code, stdout, stderr := sb.guard("run", "--name", "k0", "--", "sh", "-c", "echo RAN-WHILE-OPEN; exit 1")
	if code != 0 || stdout != "" || !strings.Contains(stderr, "skipped k0:") || strings.Contains(stderr, "not recorded") || strings.Contains(stderr, "unguarded") {
		t.Errorf("an open circuit while the lock is held: exit %d, stdout %q, stderr %q; want it skipped, and counted", code, stdout, stderr)
	}
	code, stdout, stderr = sb.guard("run", "--name", "policy", "--", "sh", "-c", "echo RAN-WHILE-OPEN; exit 0")
	if code != 2 || stdout != "" || !strings.Contains(stderr, "skipped policy:") {
		t.Errorf("an open on_skip: block circuit while the lock is held: exit %d, stdout %q, stderr %q; want it blocked", code, stdout, stderr)
	}
	code, stdout, _ = sb.guard("run", "--name", "closed", "--", "echo", "ran")
	if code != 0 || stdout != "ran\n" {
		t.Errorf("a closed circuit while the lock is held: exit %d, stdout %q; want it run", code, stdout)
	}

	if after := sb.hook("k0")["totals"]; !reflect.DeepEqual(after, skipsBefore) {
		t.Errorf("the state file was written while its lock was held: totals of k0 %v, were %v", after, skipsBefore)
	}
	syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
	_, out, _ := sb.guard("status", "--json", "k0")
	if !strings.Contains(out, `"skips": 1,`) {
		t.Errorf("status after the skip:\n%s\nwant the skip counted", out)
	}
}
