//go:build windows

package atomicfile

import "os"

// CheckLink refuses nothing on Windows: it has no sticky world-writable
// directories, where another user may create a name in a directory that
// is not theirs. (Creating a symlink there also takes a privilege an
// ordinary user lacks unless Developer Mode is on.) A user's directories
// are their own through its ACL, which the system enforces on every open.
func CheckLink(path string, fi os.FileInfo) error { return nil }

// SharedDir reports false: Windows has no sticky directories (see
// CheckLink).
func SharedDir(dir string) (owner uint32, shared bool) { return 0, false }

// Owner reports no owner on Windows: a file's owner is a SID in its
// security descriptor, and there are no sticky directories where another
// user's file could stand at one of guard's names (see CheckLink).
func Owner(fi os.FileInfo) (uid uint32, ok bool) { return 0, false }
