package supervise

import (
	"io"
	"os"
	"os/exec"
	"strings"
)

// A child is a started process, and what guard knows of the processes
// it starts in turn (see tree.go, job_windows.go).
type child struct {
	pid    int
	done   chan exitStatus // receives how it ended, once
	output chan struct{}   // closed when what the child wrote to a non-file Stdout is copied
	sys    childSys        // the platform's own: a job object on Windows
}

// lookPath finds the program argv0 names: as it is if it has a path
// separator in it (with the extension Windows finds it by: withExt), else
// on PATH.
func lookPath(argv0 string) (string, error) {
	if strings.ContainsRune(argv0, '/') || (os.PathSeparator != '/' && strings.ContainsRune(argv0, os.PathSeparator)) {
		return withExt(argv0), nil
	}
	return exec.LookPath(argv0)
}

// childFiles returns the files the child gets as its stdin and stdout
// (see childInput, childOutput), and those to close once it has started.
func childFiles(spec Spec, c *child) (stdin, stdout *os.File, closeAfter []io.Closer, err error) {
	stdin, err = childInput(spec.Stdin, &closeAfter)
	if err == nil {
		stdout, err = childOutput(spec.Stdout, &closeAfter, c)
	}
	return stdin, stdout, closeAfter, err
}

// childInput returns the file the child reads as its stdin: r itself if it
// is a file, the null device if it is nil, else a pipe fed from r.
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
// it is a file, the null device if it is nil, else a pipe copied to w;
// c.output is closed once that copy is done.
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

// closeAll closes the child's ends of its pipes once it has started, or
// failed to; after a failure it waits for stdout's copy, which has then
// reached its end.
func (c *child) closeAll(closeAfter []io.Closer, failed bool) {
	for _, f := range closeAfter {
		f.Close()
	}
	if failed && c.output != nil {
		<-c.output
	}
}
