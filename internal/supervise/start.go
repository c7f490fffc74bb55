package supervise

import (
	"io"
	"io/fs"
	"os"
	"os/exec"
	"strings"
	"syscall"
)

// A child is a started process.
type child struct {
	pid    int
	output chan struct{} // closed when what the child wrote to a non-file Stdout is copied
}

// startChild starts spec's command with stderr as its stderr, in a process
// group of its own if group is set. It does what os/exec would, with
// syscall.ForkExec: os/exec checks, on the first start in a process, that
// the kernel's pidfd support works by starting a throwaway child of its
// own, which would cost every guard run a tenth of a millisecond; guard
// waits for its one child with wait4 and needs no pidfd.
func startChild(spec Spec, stderr *os.File, group bool) (*child, error) {
	path := spec.Argv[0]
	if !strings.Contains(path, "/") {
		var err error
		if path, err = exec.LookPath(path); err != nil {
			return nil, err
		}
	}
	env := spec.Env
	if env == nil {
		env = os.Environ()
	}

	var closeAfter []io.Closer // the child's ends of pipes, and /dev/null
	c := &child{}
	stdin, err := childInput(spec.Stdin, &closeAfter)
	var stdout *os.File
	if err == nil {
		stdout, err = childOutput(spec.Stdout, &closeAfter, c)
	}
	if err == nil {
		c.pid, err = syscall.ForkExec(path, spec.Argv, &syscall.ProcAttr{
			Env:   env,
			Files: []uintptr{stdin.Fd(), stdout.Fd(), stderr.Fd()},
			Sys:   &syscall.SysProcAttr{Setpgid: group},
		})
		if err != nil {
			err = &fs.PathError{Op: "fork/exec", Path: path, Err: err}
		}
	}
	for _, f := range closeAfter {
		f.Close()
	}
	if err != nil {
		if c.output != nil {
			<-c.output // at its end already: nobody else holds the pipe
		}
		return nil, err
	}
	return c, nil
}

// childInput returns the file the child reads as its stdin: r itself if it
// is a file, /dev/null if it is nil, else a pipe fed from r.
func childInput(r io.Reader, closeAfter *[]io.Closer) (*os.File, error) {
	if f, ok := r.(*os.File); ok {
		return f, nil
	}
	if r == nil {
		f, err := os.Open(os.DevNull)
		if err == nil {
			*closeAfter = append(*closeAfter, f)
		}
		return f, err
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	*closeAfter = append(*closeAfter, pr)
	go func() {
		_, _ = io.Copy(pw, r)
		pw.Close()
	}()
	return pr, nil
}

// childOutput returns the file the child writes as its stdout: w itself if
// it is a file, /dev/null if it is nil, else a pipe copied to w; c.output
// is closed once that copy is done.
func childOutput(w io.Writer, closeAfter *[]io.Closer, c *child) (*os.File, error) {
	if f, ok := w.(*os.File); ok {
		return f, nil
	}
	if w == nil {
		f, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
		if err == nil {
			*closeAfter = append(*closeAfter, f)
		}
		return f, err
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	*closeAfter = append(*closeAfter, pw)
	c.output = make(chan struct{})
	go func() {
		_, _ = io.Copy(w, pr)
		pr.Close()
		close(c.output)
	}()
	return pw, nil
}

// wait waits for the child to end.
func (c *child) wait() (syscall.WaitStatus, error) {
	var ws syscall.WaitStatus
	for {
		_, err := syscall.Wait4(c.pid, &ws, 0, nil)
		if err != syscall.EINTR {
			return ws, err
		}
	}
}
