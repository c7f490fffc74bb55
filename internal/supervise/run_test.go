//go:build unix

package supervise

import (
	"bytes"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

func run(t *testing.T, spec Spec) (Result, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	if spec.Stdout == nil {
		spec.Stdout = &stdout
	}
	spec.Stderr = &stderr
	if spec.Stdin == nil {
		spec.Stdin = strings.NewReader("")
	}
	res := Run(spec)
	return res, stdout.String(), stderr.String()
}

func TestExitStatuses(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(dir+"/noexec", []byte("#!/bin/sh\n"), 0o644)
	tests := []struct {
		name    string
		argv    []string
		code    int
		started bool
		sig     syscall.Signal
		desc    string
	}{
		{"success", []string{"true"}, 0, true, 0, "exit 0"},
		{"exit 7", []string{"sh", "-c", "echo oops >&2; exit 7"}, 7, true, 0, "exit 7: oops"},
		{"signal", []string{"sh", "-c", "kill -TERM $$"}, 128 + 15, true, syscall.SIGTERM, "killed by SIGTERM"},
		{"not found", []string{"no-such-program-xyz"}, 127, false, 0, "exit 127: no-such-program-xyz: command not found"},
		{"missing path", []string{dir + "/missing"}, 127, false, 0, "command not found"},
		{"not executable", []string{dir + "/noexec"}, 126, false, 0, "permission denied"},
		{"directory", []string{dir}, 126, false, 0, "is a directory"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, _, _ := run(t, Spec{Argv: tc.argv})
			if res.ExitCode != tc.code || res.Ran() != tc.started || res.Signal != tc.sig {
				t.Errorf("Run = code %d, started %v, signal %v; want %d, %v, %v", res.ExitCode, res.Ran(), res.Signal, tc.code, tc.started, tc.sig)
			}
			if d := res.Describe(0); !strings.Contains(d, tc.desc) {
				t.Errorf("Describe = %q; want it to contain %q", d, tc.desc)
			}
		})
	}
}

func TestStreamsPassThrough(t *testing.T) {
	in := "line one\nline two\x00binary"
	res, out, errOut := run(t, Spec{
		Argv:  []string{"sh", "-c", "cat; printf 'to stderr' >&2"},
		Stdin: strings.NewReader(in),
	})
	if res.ExitCode != 0 || out != in || errOut != "to stderr" {
		t.Errorf("Run = %d, stdout %q, stderr %q", res.ExitCode, out, errOut)
	}
	if string(res.Tail) != "to stderr" {
		t.Errorf("Tail = %q", res.Tail)
	}
}

func TestTailKeepsTheEnd(t *testing.T) {
	res, _, errOut := run(t, Spec{Argv: []string{"sh", "-c", "i=0; while [ $i -lt 2000 ]; do echo line $i >&2; i=$((i+1)); done; echo last >&2; exit 1"}})
	if len(res.Tail) != TailSize {
		t.Errorf("len(Tail) = %d; want %d", len(res.Tail), TailSize)
	}
	if !strings.HasSuffix(string(res.Tail), "line 1999\nlast\n") || !strings.HasPrefix(errOut, "line 0\n") {
		t.Errorf("Tail ends %q", res.Tail[len(res.Tail)-20:])
	}
	if d := res.Describe(0); !strings.HasPrefix(d, "exit 1: line ") || !strings.HasSuffix(d, "\nlast") || len(d) > 2100 {
		t.Errorf("Describe = %q...", d[:40])
	}
}

func TestTimeoutKillsTheGroup(t *testing.T) {
	pidFile := t.TempDir() + "/pid"
	res, _, _ := run(t, Spec{
		// The grandchild ignores SIGTERM, so only SIGKILL after the grace ends it.
		Argv:      []string{"sh", "-c", "sh -c 'trap \"\" TERM; echo $$ > " + pidFile + "; exec sleep 60' & wait"},
		Timeout:   200 * time.Millisecond,
		KillGrace: 100 * time.Millisecond,
	})
	if !res.TimedOut || res.ExitCode != 124 {
		t.Fatalf("Run = %+v; want a timeout and exit 124", res)
	}
	if d := res.Describe(200 * time.Millisecond); d != "timeout after 200ms" {
		t.Errorf("Describe = %q", d)
	}
	data, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	var pid int
	for _, c := range strings.TrimSpace(string(data)) {
		pid = pid*10 + int(c-'0')
	}
	// Run has returned only after SIGKILL went to the whole group.
	deadline := time.Now().Add(10 * time.Second)
	for Alive(pid, 0) {
		if time.Now().After(deadline) {
			t.Fatalf("grandchild %d still alive", pid)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestSummary(t *testing.T) {
	tests := []struct{ in, want string }{
		{"\x1b[31merror\x1b[0m: bad\n\n", "error: bad"},
		{"a\r\nb\r\n", "a\nb"},
		{"bad utf8 \xff here", "bad utf8 \uFFFD here"},
		{"first line\nsecond line\nthird", "third"}, // cut at a line start
	}
	for _, tc := range tests {
		max := 100
		if strings.HasPrefix(tc.in, "first") {
			max = 12
		}
		if got := Summary([]byte(tc.in), max); got != tc.want {
			t.Errorf("Summary(%q) = %q; want %q", tc.in, got, tc.want)
		}
	}
	if got := LastLine("a\nb\n  \n"); got != "b" {
		t.Errorf("LastLine = %q", got)
	}
}

func TestAlive(t *testing.T) {
	self := os.Getpid()
	start, err := StartTime(self)
	if err != nil {
		t.Fatal(err)
	}
	if !Alive(self, start) || !Alive(self, 0) {
		t.Error("this process is not alive")
	}
	if Alive(self, start+1) {
		t.Error("a different start time still counts as alive: a recycled PID would be mistaken for the holder")
	}
	cmd := exec.Command("true")
	cmd.Run()
	if Alive(cmd.Process.Pid, 0) {
		t.Errorf("exited process %d is alive", cmd.Process.Pid)
	}
	if Alive(0, 0) || Alive(-1, 0) {
		t.Error("non-positive PIDs are alive")
	}
}

// TestSignalAfterTimeoutIsTheTimeout: the caller's own signal at its
// timeout (Claude Code's SIGTERM), which comes while guard is stopping a
// command it stopped for its --hook-timeout, leaves the run a timeout, not
// a cancelled run (issue 29: hooks that hang trip).
func TestSignalAfterTimeoutIsTheTimeout(t *testing.T) {
	dir := t.TempDir()
	sigs := make(chan os.Signal, 1)
	res, _, _ := run(t, Spec{
		// It ignores SIGTERM, and says when guard's has come.
		Argv:        []string{"sh", "-c", "trap 'touch " + dir + "/term' TERM; while :; do sleep 0.02; done"},
		Timeout:     500 * time.Millisecond,
		KillGrace:   time.Minute, // ended by the test's SIGKILL below
		HookTimeout: time.Second,
		Signals:     sigs,
		Started: func(pid int) {
			go func() {
				for !exists(dir + "/term") {
					time.Sleep(10 * time.Millisecond)
				}
				sigs <- syscall.SIGTERM // the caller gives up too
				for len(sigs) > 0 {
					time.Sleep(10 * time.Millisecond) // Run has taken it
				}
				for !exists(dir + "/ended") {
					syscall.Kill(-pid, syscall.SIGKILL)
					syscall.Kill(pid, syscall.SIGKILL)
					time.Sleep(10 * time.Millisecond)
				}
			}()
		},
	})
	os.WriteFile(dir+"/ended", nil, 0o600)
	if !res.TimedOut || res.Interrupted != nil || res.ExitCode != 124 {
		t.Fatalf("Run = timed out %v, interrupted %v, exit %d; want a timeout, exit 124", res.TimedOut, res.Interrupted, res.ExitCode)
	}
	if !res.HookTimedOut() {
		t.Error("HookTimedOut = false; want true")
	}
	if d, want := res.Describe(res.Timeout), "timeout after 500ms (its hook timeout of 1s, less guard's margin)"; d != want {
		t.Errorf("Describe = %q; want %q", d, want)
	}
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// TestGroupSignalIsACancellation: a signal sent to guard's whole process
// group (Claude Code's SIGTERM when the user interrupts a hook, a
// terminal's Ctrl-C) reaches the child and guard at once; when the child
// ends of it before guard's own copy has come through, the run is still
// the cancelled one it is, not a failure (issue 29 item 2: an interrupt
// before the timeout is not a failure; without this, about one interrupt
// in five was counted, and a few tripped the hook). Here the child is
// killed first and guard's copy comes only once it is dead, as it does
// when guard loses that race: killed by SIGTERM, or exiting 143 from a
// trap.
func TestGroupSignalIsACancellation(t *testing.T) {
	defer func(d time.Duration) { ownSignalWait = d }(ownSignalWait)
	ownSignalWait = 2 * time.Minute // the test's copy comes once the child is gone
	for _, script := range []string{"while :; do sleep 0.02; done", "trap 'exit 143' TERM; while :; do sleep 0.02; done"} {
		dir := t.TempDir()
		sigs := make(chan os.Signal, 1)
		res, _, _ := run(t, Spec{
			Argv:      []string{"sh", "-c", "touch " + dir + "/ready; " + script},
			KillGrace: time.Minute,
			Signals:   sigs,
			Started: func(pid int) {
				go func() {
					for !exists(dir + "/ready") {
						time.Sleep(5 * time.Millisecond)
					}
					syscall.Kill(pid, syscall.SIGTERM)
					for Alive(pid, 0) {
						time.Sleep(5 * time.Millisecond)
					}
					sigs <- syscall.SIGTERM // guard's own copy, late
				}()
			},
		})
		if res.Interrupted != syscall.SIGTERM || res.TimedOut || res.ExitCode != 143 {
			t.Errorf("%s: Run = interrupted %v, timed out %v, exit %d; want interrupted by SIGTERM, exit 143", script, res.Interrupted, res.TimedOut, res.ExitCode)
		}
	}
}

// TestSignalToTheChildAloneIsAFailure: a child killed by a SIGTERM that
// guard never gets (sent to it alone) is a failure, once guard has waited
// ownSignalWait for a copy of its own.
func TestSignalToTheChildAloneIsAFailure(t *testing.T) {
	defer func(d time.Duration) { ownSignalWait = d }(ownSignalWait)
	ownSignalWait = 10 * time.Millisecond
	res, _, _ := run(t, Spec{Argv: []string{"sh", "-c", "kill -TERM $$"}, Signals: make(chan os.Signal)})
	if res.Interrupted != nil || res.Signal != syscall.SIGTERM || res.ExitCode != 143 {
		t.Errorf("Run = interrupted %v, signal %v, exit %d; want killed by SIGTERM, not interrupted", res.Interrupted, res.Signal, res.ExitCode)
	}
}
