package statefile

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// ErrUnsafeLink is returned for a path that is a symlink another user
// planted in a sticky, world-writable directory such as /tmp.
var ErrUnsafeLink = errors.New("refusing to follow a symlink another user owns in a sticky world-writable directory")

// checkLink refuses to follow the symlink at path, described by fi, when
// it sits in a sticky world-writable directory and belongs to neither us
// nor the directory's owner: the rule of Linux's fs.protected_symlinks,
// which guard's own resolution of links would otherwise bypass. Following
// such a link would let another user make guard replace, quarantine or
// create files wherever the link points.
func checkLink(path string, fi os.FileInfo) error {
	link, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return nil
	}
	di, err := os.Stat(filepath.Dir(path))
	if err != nil {
		return nil
	}
	dir, ok := di.Sys().(*syscall.Stat_t)
	if !ok || di.Mode()&os.ModeSticky == 0 || di.Mode().Perm()&0o002 == 0 {
		return nil
	}
	if int(link.Uid) == os.Geteuid() || link.Uid == dir.Uid {
		return nil
	}
	return fmt.Errorf("%s (owned by uid %d): %w", path, link.Uid, ErrUnsafeLink)
}

// GiveToOwnerOf makes path (a file guard created beside a state file: its
// lock, its runs directory and slots) belong to the owner of ref (the state
// file, or the directory it is to be in), when guard runs as root for a
// user: otherwise the user's own guard could no longer open it. It does
// nothing when not root, and is best effort.
func GiveToOwnerOf(path, ref string) {
	if os.Geteuid() != 0 {
		return
	}
	ri, err := os.Stat(ref)
	if err != nil {
		if ri, err = os.Stat(filepath.Dir(ref)); err != nil {
			return
		}
	}
	want, ok := ri.Sys().(*syscall.Stat_t)
	if !ok || want.Uid == 0 {
		return
	}
	pi, err := os.Lstat(path)
	if err != nil {
		return
	}
	if got, ok := pi.Sys().(*syscall.Stat_t); ok && (got.Uid != want.Uid || got.Gid != want.Gid) {
		_ = os.Lchown(path, int(want.Uid), int(want.Gid))
	}
}
