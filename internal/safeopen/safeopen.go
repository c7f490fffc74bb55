package safeopen

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// ErrNotRegular is what a NotRegularError is (errors.Is).
var ErrNotRegular = errors.New("not a regular file")

// A NotRegularError is Open's refusal of a file that is not a regular
// file.
type NotRegularError struct {
	Path string
	Mode fs.FileMode // its type bits
}

func (e *NotRegularError) Error() string {
	return fmt.Sprintf("%s is %s, not a regular file", e.Path, Kind(e.Mode))
}

// Is makes errors.Is(err, ErrNotRegular) true.
func (e *NotRegularError) Is(target error) bool { return target == ErrNotRegular }

// Kind says what a file of mode m is, in a few words: "a FIFO", "a
// character device", "a directory".
func Kind(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m.IsDir():
		return "a directory"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	case m.IsRegular():
		return "a regular file"
	}
	return "a special file"
}

// Open opens the file name for reading, as os.Open does, but without ever
// waiting for it, and only if it is a regular file (see the package
// documentation). Its errors are *fs.PathError (errors.Is(err,
// fs.ErrNotExist) works as for os.Open) or *NotRegularError.
func Open(name string) (*os.File, error) {
	return open(name)
}

// ReadFile reads the whole regular file name, as os.ReadFile does, opened
// by Open.
func ReadFile(name string) ([]byte, error) {
	f, err := Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	size := 512
	if fi, err := f.Stat(); err == nil && fi.Size() > 0 && fi.Size() < 1<<30 {
		size = int(fi.Size()) + 1 // one more, to see the end at once
	}
	data := make([]byte, 0, size)
	for {
		n, err := f.Read(data[len(data):cap(data)])
		data = data[:len(data)+n]
		if err == io.EOF {
			return data, nil
		}
		if err != nil {
			return data, &fs.PathError{Op: "read", Path: name, Err: err}
		}
		if len(data) == cap(data) {
			data = append(data, 0)[:len(data)]
		}
	}
}

// Regular returns a *NotRegularError if the open file f is not a regular
// file, for a caller that opened it itself (with O_NONBLOCK, so that the
// open could not wait).
func Regular(f *os.File) error {
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() {
		return &NotRegularError{Path: f.Name(), Mode: fi.Mode().Type()}
	}
	return nil
}
