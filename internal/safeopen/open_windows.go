package safeopen

import (
	"io/fs"
	"os"
	"strings"

	"golang.org/x/sys/windows"
)

// open opens the file and refuses it if it is not a regular file (a
// console, NUL, a named pipe, a directory): Windows opens none of them in
// a way that waits, but reading a console or a pipe would.
//
// It opens with FILE_SHARE_DELETE as well as read and write sharing, which
// os.Open does not give: a file open without it cannot be renamed over or
// removed, so a reader of a state, an event log or a slot record would
// make another guard's replace, rotation or release fail (see
// statefile.OpenFile).
func open(name string) (*os.File, error) {
	p, err := windows.UTF16PtrFromString(name)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	h, err := windows.CreateFile(p, windows.GENERIC_READ,
		windows.FILE_SHARE_READ|windows.FILE_SHARE_WRITE|windows.FILE_SHARE_DELETE, nil,
		windows.OPEN_EXISTING, windows.FILE_ATTRIBUTE_NORMAL|windows.FILE_FLAG_BACKUP_SEMANTICS, 0)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	f := os.NewFile(uintptr(h), name)
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
