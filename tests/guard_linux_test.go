//go:build linux

package tests

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
	"golang.org/x/sys/unix"
)

// cmdSignalWhileLocked runs guard with ARGs while holding the lock LOCK (a
// state's .lock file), sends it SIGTERM as soon as guard opens LOCK to
// wait for it, and prints guard's exit status on stdout and its stderr on
// stderr:
//
//	signal-while-locked LOCK ARG...
//
// Guard opens the lock file only inside its lock wait, so the signal
// arrives exactly then, however fast the machine.
func cmdSignalWhileLocked(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: signal-while-locked LOCK ARG...")
	}
	lock := ts.MkAbs(args[0])
	f, err := os.OpenFile(lock, os.O_CREATE|os.O_RDWR, 0o600)
	ts.Check(err)
	defer f.Close()
	ts.Check(unix.Flock(int(f.Fd()), unix.LOCK_EX))
	in, err := unix.InotifyInit1(unix.IN_CLOEXEC)
	ts.Check(err)
	defer unix.Close(in)
	_, err = unix.InotifyAddWatch(in, lock, unix.IN_OPEN)
	ts.Check(err)

	cmd := exec.Command(guardBin, args[1:]...)
	cmd.Dir = ts.MkAbs(".")
	for _, k := range []string{"HOME", "PATH", "GUARD_STATE", "GUARD_CONFIG", "CLAUDE_PROJECT_DIR"} {
		cmd.Env = append(cmd.Env, k+"="+ts.Getenv(k))
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	ts.Check(cmd.Start())
	opened := make(chan error, 1)
	go func() {
		buf := make([]byte, 4096)
		_, err := unix.Read(in, buf) // the first event: guard opened the lock
		opened <- err
	}()
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	select {
	case err := <-opened:
		ts.Check(err)
		ts.Check(cmd.Process.Signal(syscall.SIGTERM))
		err = <-exited
		_ = err
	case <-exited:
		ts.Logf("guard exited without waiting for the lock")
	case <-time.After(time.Minute):
		cmd.Process.Kill()
		<-exited
		ts.Fatalf("guard did not wait for the lock within a minute")
	}
	fmt.Fprintln(ts.Stdout(), cmd.ProcessState.ExitCode())
	fmt.Fprint(ts.Stderr(), stderr.String())
}
