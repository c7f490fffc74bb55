//go:build unix

package supervise

import (
	"io/fs"
	"os"
	"runtime"
	"syscall"
)

// childSys is nothing on Unix: the child's processes are found in the
// process table (tree.go).
type childSys struct{}

// startChild starts spec's command with stderr as its stderr, in guard's
// own process group, so that a signal sent to that group (Claude Code's at
// a hook's timeout, a terminal's Ctrl-C) reaches it as it would without
// guard. It does what os/exec would, with syscall.ForkExec: os/exec checks,
// on the first start in a process, that the kernel's pidfd support works
// by starting a throwaway child of its own, which would cost every guard
// run a tenth of a millisecond; guard waits for its one child with wait4
// and needs no pidfd.
//
// Where the platform has one (Linux), the child gets a parent-death
// signal, SIGKILL: it dies with guard, however guard dies. The kernel
// sends it when the thread that forked the child ends, not the process
// (golang/go#27505), so the goroutine that forks keeps its thread for the
// child's whole life, and waits for it there.
func startChild(spec Spec, stderr *os.File) (*child, error) {
	path, err := lookPath(spec.Argv[0])
	if err != nil {
		return nil, err
	}
	env := spec.Env
	if env == nil {
		env = os.Environ()
	}
	c := &child{done: make(chan exitStatus, 1)}
	stdin, stdout, closeAfter, err := childFiles(spec, c)
	if err != nil {
		c.closeAll(closeAfter, true)
		return nil, err
	}
	adoptOrphans()
	attr := &syscall.ProcAttr{
		Env:   env,
		Files: []uintptr{stdin.Fd(), stdout.Fd(), stderr.Fd()},
		Sys:   sysProcAttr(),
	}
	if spec.Hold != nil {
		attr.Files = append(attr.Files, spec.Hold.Fd())
	}
	started := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		pid, err := syscall.ForkExec(path, spec.Argv, attr)
		if err != nil {
			started <- &fs.PathError{Op: "fork/exec", Path: path, Err: err}
			return
		}
		c.pid = pid
		started <- nil
		c.done <- wait(pid)
	}()
	err = <-started
	c.closeAll(closeAfter, err != nil)
	if err != nil {
		return nil, err
	}
	return c, nil
}

// withExt returns path as it is: a Unix program needs no extension.
func withExt(path string) string { return path }

// wait waits for process pid to end.
func wait(pid int) exitStatus {
	var ws syscall.WaitStatus
	for {
		_, err := syscall.Wait4(pid, &ws, 0, nil)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return exitStatus{err: err}
		}
		if ws.Signaled() {
			return exitStatus{signal: ws.Signal()}
		}
		return exitStatus{code: ws.ExitStatus()}
	}
}
