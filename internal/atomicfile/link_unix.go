//go:build unix

package atomicfile

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// CheckLink refuses to follow the symlink at path, described by fi (from
// Lstat), when it sits in a sticky world-writable directory and belongs to
// neither us nor the directory's owner: the rule of Linux's
// fs.protected_symlinks, which guard's own resolution of links would
// otherwise bypass. Following such a link would let another user make guard
// (root, say) replace, quarantine or create files wherever the link points.
// It is the one rule for every file guard writes: the state and the files
// beside it (package statefile), and any file a user names (WriteFile).
func CheckLink(path string, fi os.FileInfo) error {
	link, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return nil
	}
	owner, shared := SharedDir(filepath.Dir(path))
	if !shared || int(link.Uid) == os.Geteuid() || link.Uid == owner {
		return nil
	}
	return fmt.Errorf("%s (owned by uid %d): %w", path, link.Uid, ErrUnsafeLink)
}

// SharedDir reports whether dir is sticky and world-writable, as /tmp is,
// and who owns it: there, any user may create a name, but only its owner
// (or the directory's) may remove it.
func SharedDir(dir string) (owner uint32, shared bool) {
	di, err := os.Stat(dir)
	if err != nil {
		return 0, false
	}
	st, ok := di.Sys().(*syscall.Stat_t)
	if !ok || di.Mode()&os.ModeSticky == 0 || di.Mode().Perm()&0o002 == 0 {
		return 0, false
	}
	return st.Uid, true
}

// Owner returns the user who owns the file fi describes, where the system
// says (ok).
func Owner(fi os.FileInfo) (uid uint32, ok bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return st.Uid, true
}
