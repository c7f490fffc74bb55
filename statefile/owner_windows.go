//go:build windows

package statefile

import "os"

// fileOwner reports no owner on Windows: a file's owner is a SID in its
// security descriptor, which no guard process can hand to another user,
// and guard never runs as one user for another there (os.Geteuid is -1).
// A file guard creates gets its directory's inherited ACL, as any new file
// does; there are no sticky directories (see atomicfile.CheckLink).
func fileOwner(fi os.FileInfo) (uid, gid uint32, ok bool) { return 0, 0, false }
