//go:build linux && gorun_with

package main

import (
	"io"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"strings"
	"syscall"
)

// run runs cmd with the parts of guard's supervision $GORUN_WITH names
// (see the package doc), each done the way guard run does it.
func run(cmd *exec.Cmd) error {
	with := map[string]bool{}
	for _, w := range strings.Split(os.Getenv("GORUN_WITH"), ",") {
		with[w] = true
	}
	ready := make(chan struct{})
	if with["signals"] { // internal/earlysig: in the background, waited for before the child starts
		go func() {
			signal.Notify(make(chan os.Signal, 4), syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT)
			close(ready)
		}()
	} else {
		close(ready)
	}
	var copied chan struct{}
	var pw *os.File
	if with["pipe"] { // internal/supervise: the child's stderr copied on, its tail kept
		pr, w, err := os.Pipe()
		if err != nil {
			return err
		}
		pw, cmd.Stderr = w, w
		copied = make(chan struct{})
		go func() {
			io.Copy(os.Stderr, pr)
			pr.Close()
			close(copied)
		}()
	}
	<-ready
	if !with["pdeath"] {
		err := cmd.Start()
		if pw != nil {
			pw.Close()
		}
		if err == nil {
			err = cmd.Wait()
		}
		if copied != nil {
			<-copied
		}
		return err
	}
	// internal/supervise (start_unix.go, proc_linux.go): a subreaper, and
	// the child's parent-death signal from a thread kept until it ends.
	syscall.RawSyscall(syscall.SYS_PRCTL, 36 /* PR_SET_CHILD_SUBREAPER */, 1, 0)
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	done := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		err := cmd.Start()
		if pw != nil {
			pw.Close()
		}
		if err == nil {
			err = cmd.Wait()
		}
		done <- err
	}()
	err := <-done
	if copied != nil {
		<-copied
	}
	return err
}
