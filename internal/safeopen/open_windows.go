package safeopen

import (
	"os"
	"strings"
)

// open opens the file and refuses it if it is not a regular file (a
// console, NUL, a named pipe, a directory): Windows opens none of them in
// a way that waits, but reading a console or a pipe would.
func open(name string) (*os.File, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !fi.Mode().IsRegular() && !strings.EqualFold(name, os.DevNull) {
		f.Close()
		return nil, &NotRegularError{Path: name, Mode: fi.Mode().Type()}
	}
	return f, nil
}
