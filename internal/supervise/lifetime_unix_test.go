//go:build unix

package supervise

import (
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// These tests run Run in a helper process (this test binary, re-run with
// GUARD_SUPERVISE_HELPER set to a shell command) as guard runs it, and
// kill the helper or its process group the ways Claude Code and the
// kernel do (issue 29: guard's lifetime is the hook's).

func TestMain(m *testing.M) {
	if cmd := os.Getenv("GUARD_SUPERVISE_HELPER"); cmd != "" {
		res := Run(Spec{Argv: []string{"/bin/sh", "-c", cmd}, Stdout: os.Stdout, Stderr: os.Stderr, KillGrace: 5 * time.Second})
		os.Exit(res.ExitCode)
	}
	os.Exit(m.Run())
}

// helper starts Run in a process of its own running the shell command
// cmd, as the leader of a new session and process group (as Claude Code
// starts every hook) when leader is set.
func helper(t *testing.T, cmd string, leader bool) *exec.Cmd {
	t.Helper()
	h := exec.Command(os.Args[0], "-test.run=^$")
	h.Env = append(os.Environ(), "GUARD_SUPERVISE_HELPER="+cmd)
	h.SysProcAttr = &syscall.SysProcAttr{Setsid: leader}
	if err := h.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		h.Process.Kill()
		h.Wait()
	})
	return h
}

// waitPID waits for a shell to write a pid to path, and returns it; the
// test ends it at the end, whatever happens.
func waitPID(t *testing.T, path string) int {
	t.Helper()
	var pid int
	waitUntil(t, "a pid in "+path, func() bool {
		data, err := os.ReadFile(path)
		if err != nil || !strings.HasSuffix(string(data), "\n") {
			return false
		}
		pid, err = strconv.Atoi(strings.TrimSpace(string(data)))
		return err == nil
	})
	t.Cleanup(func() { syscall.Kill(pid, syscall.SIGKILL) })
	return pid
}

// waitUntil polls cond with no deadline of its own but a generous one: a
// slow machine only makes the test slower.
func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for start := time.Now(); !cond(); time.Sleep(5 * time.Millisecond) {
		if time.Since(start) > 2*time.Minute {
			t.Fatalf("still waiting for %s", what)
		}
	}
}

// TestKillOfGuardKillsTheCommand: SIGKILL to guard alone ends the command
// it runs (Linux: the parent-death signal), SIGTERM to guard alone is
// passed on, and SIGKILL to guard's process group ends the command and
// what it started in the background, all at once (real-hooks-2 R1, faults
// #2, newcomer-and-mission #17).
func TestKillOfGuardKillsTheCommand(t *testing.T) {
	type kill struct {
		name    string
		group   bool // to guard's process group; else to guard alone
		sig     syscall.Signal
		bgToo   bool // what the command started dies too
		darwins bool // holds on macOS too
	}
	for _, k := range []kill{
		{"SIGKILL to guard", false, syscall.SIGKILL, false, false},
		{"SIGTERM to guard", false, syscall.SIGTERM, true, true},
		{"SIGKILL to the group", true, syscall.SIGKILL, true, true},
		{"SIGTERM to the group", true, syscall.SIGTERM, true, true},
	} {
		t.Run(k.name, func(t *testing.T) {
			if runtime.GOOS != "linux" && !k.darwins {
				t.Skip("no parent-death signal on " + runtime.GOOS)
			}
			dir := t.TempDir()
			h := helper(t, "sleep 300 & echo $! > "+dir+"/bg; echo $$ > "+dir+"/cmd; wait", true)
			cmd, bg := waitPID(t, dir+"/cmd"), waitPID(t, dir+"/bg")
			if k.group {
				syscall.Kill(-h.Process.Pid, k.sig)
			} else {
				syscall.Kill(h.Process.Pid, k.sig)
			}
			h.Wait()
			waitUntil(t, "the command to die with guard", func() bool { return !Alive(cmd, 0) })
			if k.bgToo {
				waitUntil(t, "what it started to die with guard", func() bool { return !Alive(bg, 0) })
			}
		})
	}
}

// TestTimeoutEndsAStoppedCommand: a command that stopped itself (kill
// -STOP $$) gets SIGCONT with guard's SIGTERM, so that SIGTERM ends it
// rather than SIGKILL after the grace.
func TestTimeoutEndsAStoppedCommand(t *testing.T) {
	res, _, _ := run(t, Spec{
		Argv:      []string{"sh", "-c", "kill -STOP $$; sleep 300"},
		Timeout:   100 * time.Millisecond,
		KillGrace: 2 * time.Minute,
	})
	if !res.TimedOut || res.Signal != syscall.SIGTERM {
		t.Errorf("Run = timed out %v, signal %v; want a timeout that SIGTERM ended", res.TimedOut, res.Signal)
	}
}

// TestTimeoutClosesStdout: at a timeout, what the command started in the
// background dies with it, so the reader of its stdout (Claude Code) sees
// the end at once instead of waiting for a grandchild that holds it.
func TestTimeoutClosesStdout(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	dir := t.TempDir()
	res, _, _ := run(t, Spec{
		Argv:      []string{"sh", "-c", "(trap '' TERM; echo $$ > " + dir + "/bg; exec sleep 300) & echo started; wait"},
		Stdout:    w,
		Timeout:   200 * time.Millisecond,
		KillGrace: 100 * time.Millisecond,
	})
	w.Close()
	if !res.TimedOut {
		t.Fatalf("Run = %+v; want a timeout", res)
	}
	done := make(chan string, 1)
	go func() {
		out, _ := readAll(r)
		done <- out
	}()
	select {
	case out := <-done:
		if out != "started\n" {
			t.Errorf("stdout = %q", out)
		}
	case <-time.After(2 * time.Minute):
		t.Fatal("stdout still open: a process the command started holds it")
	}
}

func readAll(f *os.File) (string, error) {
	var b strings.Builder
	buf := make([]byte, 512)
	for {
		n, err := f.Read(buf)
		b.Write(buf[:n])
		if err != nil {
			return b.String(), err
		}
	}
}

// TestDetachedDaemonIsLeftAlone: a process the command deliberately put in
// a session of its own (setsid) outlives a timeout and kill_background, as
// it would outlive the hook without guard.
func TestDetachedDaemonIsLeftAlone(t *testing.T) {
	if _, err := exec.LookPath("setsid"); err != nil {
		t.Skip("no setsid(1)")
	}
	dir := t.TempDir()
	// The daemon writes its pid once it has its session; the hook waits
	// for that (until then it is in guard's session, and kill_background
	// would end it, as a hook that exits before its daemon detached must
	// expect), then says it is ready.
	daemon := "setsid sh -c 'echo $$ > " + dir + "/daemon; exec sleep 300' </dev/null >/dev/null 2>&1 & while [ ! -s " + dir + "/daemon ]; do sleep 0.01; done; : > " + dir + "/ready"
	for _, spec := range []Spec{
		{Argv: []string{"sh", "-c", daemon + "; sleep 300"}, Timeout: 200 * time.Millisecond},
		{Argv: []string{"sh", "-c", daemon}, KillBackground: true},
	} {
		spec.KillGrace = 100 * time.Millisecond
		var res Result
		for {
			os.Remove(dir + "/daemon")
			os.Remove(dir + "/ready")
			res, _, _ = run(t, spec)
			if _, err := os.Stat(dir + "/ready"); err == nil {
				break
			}
			// The timeout came before the daemon had detached (a slow
			// machine): that daemon was fair game. Try again with more
			// time, so that what is judged is a daemon that detached in
			// time, however slow the machine.
			if spec.Timeout == 0 || spec.Timeout > time.Minute {
				t.Fatalf("%q: the hook never got its daemon detached (result %+v)", spec.Argv[2], res)
			}
			if data, err := os.ReadFile(dir + "/daemon"); err == nil {
				if pid, err := strconv.Atoi(strings.TrimSpace(string(data))); err == nil {
					syscall.Kill(pid, syscall.SIGKILL)
				}
			}
			spec.Timeout *= 2
		}
		daemon := waitPID(t, dir+"/daemon")
		if !Alive(daemon, 0) {
			t.Errorf("%q: the detached daemon died (result %+v)", spec.Argv[2], res)
		}
		if res.Background != "" {
			t.Errorf("%q: kill_background ended %q; want nothing", spec.Argv[2], res.Background)
		}
	}
}
