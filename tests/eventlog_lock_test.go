//go:build unix

package tests

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// TestRunWhileTheEventLogIsLocked: a process that takes the event log's
// lock and keeps it (a guard stopped with SIGSTOP in an append, another
// tool that locked the file) holds up no guard run: each still records its
// outcome in the state, waits lock_timeout at most for the log, and warns
// once that its event line was left out; a skip counted without the
// state's lock does the same. Before, an update waited for the log's lock
// for ever while it held the state's, so guard run hung, and every other
// call behind it ran unguarded and lost its outcome (issue 36, the event
// log's lock waited on without a timeout).
func TestRunWhileTheEventLogIsLocked(t *testing.T) {
	sb := newSandbox(t, "")
	sb.env = append(sb.env, "GUARDRAILS_LOCK_TIMEOUT=1s")
	if code, _, stderr := sb.guard("run", "--name", "k", "--", "true"); code != 0 || stderr != "" {
		t.Fatalf("a first run: exit %d, stderr %q", code, stderr)
	}
	if code, _, stderr := sb.guard("trip", "tripped"); code != 0 {
		t.Fatalf("guard trip: exit %d, stderr %q", code, stderr)
	}
	logBefore, err := os.ReadFile(sb.path("state.events.jsonl"))
	if err != nil {
		t.Fatal(err)
	}

	held, err := os.OpenFile(sb.path("state.events.jsonl"), os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	if err := syscall.Flock(int(held.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}

	// run runs guard, killed after a minute: a guard that waits on the
	// log's lock for ever fails the test instead of hanging it.
	run := func(args ...string) (code int, stdout, stderr string) {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, guardBin, args...)
		cmd.Dir, cmd.Env = sb.dir, sb.env
		var out, errOut bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errOut
		err := cmd.Run()
		if ctx.Err() != nil {
			return -1, out.String(), "hung: killed after a minute\n" + errOut.String()
		}
		if ee, ok := err.(*exec.ExitError); ok {
			return ee.ExitCode(), out.String(), errOut.String()
		}
		if err != nil {
			return -1, out.String(), err.Error()
		}
		return 0, out.String(), errOut.String()
	}
	warning := regexp.MustCompile(`^guard: warning: could not write the event log: cannot lock event log \S+state\.events\.jsonl: held by another process, not obtained in time\n$`)

	// A crowd of closed calls: each records its outcome.
	const callers = 6
	var wg sync.WaitGroup
	results := make([]string, callers)
	for i := range callers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			code, stdout, stderr := run("run", "--name", "k", "--", "echo", "ran")
			if code != 0 || stdout != "ran\n" || !warning.MatchString(stderr) {
				results[i] = fmt.Sprintf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
			}
		}()
	}
	wg.Wait()
	for i, r := range results {
		if r != "" {
			t.Errorf("call %d while the event log's lock is held: %s; want it run, recorded and one warning", i, r)
		}
	}
	if got := totals(sb.hook("k"), "successes"); got != 1+callers {
		t.Errorf("k's successes = %d; want %d: every outcome recorded while the event log's lock was held", got, 1+callers)
	}

	// A skip, counted without the state's lock.
	code, stdout, stderr := run("run", "--name", "tripped", "--", "echo", "ran")
	if code != 0 || stdout != "" || !strings.Contains(stderr, "guard: skipped tripped:") || !warning.MatchString(stderr[strings.Index(stderr, "guard: warning:"):]) {
		t.Errorf("a skip while the event log's lock is held: exit %d, stdout %q, stderr %q; want it skipped, with one warning", code, stdout, stderr)
	}

	logHeld, _ := os.ReadFile(sb.path("state.events.jsonl"))
	if !bytes.Equal(logHeld, logBefore) {
		t.Errorf("the event log was written while its lock was held:\n%s", logHeld[len(logBefore):])
	}
	syscall.Flock(int(held.Fd()), syscall.LOCK_UN)
	if code, _, stderr := run("run", "--name", "k", "--", "true"); code != 0 || stderr != "" {
		t.Errorf("a run once the lock is let go: exit %d, stderr %q; want no warning", code, stderr)
	}
	logAfter, _ := os.ReadFile(sb.path("state.events.jsonl"))
	if n := bytes.Count(logAfter, []byte("\n")) - bytes.Count(logBefore, []byte("\n")); n != 1 {
		t.Errorf("the log took %d lines once its lock was let go; want the new run's", n)
	}
	if s := sb.hook("tripped"); totals(s, "skips") != 1 {
		_, out, _ := sb.guard("status", "--json", "tripped")
		if !strings.Contains(out, `"skips": 1,`) {
			t.Errorf("the skip was not counted: %s", out)
		}
	}
}
