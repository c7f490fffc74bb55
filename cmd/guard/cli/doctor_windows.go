//go:build windows

package cli

import (
	"errors"
	"os"

	"golang.org/x/sys/windows"

	"guard/statefile"
)

// canCreateIn returns nil: Windows has no access(2), and its ACLs are
// judged only by trying. writable's test write in the directory, which
// follows, says whether guard can create files there.
func canCreateIn(dir string) error { return nil }

// canReadWrite says why this process could not open the file at path for
// reading and writing, as guard opens a state (shared for a rename over
// it), or nil.
func canReadWrite(path string) error {
	f, err := statefile.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	return f.Close()
}

// readWriteFix is the fix doctor gives for a state file guard cannot read
// and write.
func readWriteFix(path string) string {
	return "clear its read-only attribute (attrib -r \"" + path + "\") and check that your account may write it (icacls \"" + path + "\")"
}

// isNoSpace reports whether err is a full disk or a spent quota.
func isNoSpace(err error) bool {
	return errors.Is(err, windows.ERROR_DISK_FULL) || errors.Is(err, windows.ERROR_HANDLE_DISK_FULL) ||
		errors.Is(err, windows.ERROR_NOT_ENOUGH_QUOTA)
}
