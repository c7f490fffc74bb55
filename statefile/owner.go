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
	owner, shared := sharedDir(filepath.Dir(path))
	if !shared || int(link.Uid) == os.Geteuid() || link.Uid == owner {
		return nil
	}
	return fmt.Errorf("%s (owned by uid %d): %w", path, link.Uid, ErrUnsafeLink)
}

// sharedDir reports whether dir is sticky and world-writable, as /tmp is,
// and who owns it: there, any user may create a name, but only its owner
// (or the directory's) may remove it.
func sharedDir(dir string) (owner uint32, shared bool) {
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

// OpenBeside opens (or creates, as flag says) a file guard keeps beside a
// state file: its event log, its quarantine file. Such files follow the
// state's rule: in a sticky world-writable directory, a symlink another
// user planted at the name is refused (ErrUnsafeLink), never followed, and
// no race can slip one in between the check and the open (O_NOFOLLOW).
// Elsewhere, and for one's own links, it opens as OpenFile does.
func OpenBeside(path string, flag int, perm os.FileMode) (*os.File, error) {
	if _, shared := sharedDir(filepath.Dir(path)); !shared {
		return OpenFile(path, flag, perm)
	}
	f, err := OpenFile(path, flag|syscall.O_NOFOLLOW, perm)
	if !errors.Is(err, syscall.ELOOP) {
		return f, err
	}
	fi, lerr := os.Lstat(path)
	if lerr != nil {
		return nil, err
	}
	if err := checkLink(path, fi); err != nil {
		return nil, err
	}
	return OpenFile(path, flag, perm)
}

// CheckBeside checks a name guard uses beside a state file (a directory
// such as the slot files' "<state>.runs") by the state's rule: a symlink
// another user planted there in a sticky world-writable directory is
// refused. A name that does not exist is fine.
func CheckBeside(path string) error {
	fi, err := os.Lstat(path)
	if err != nil || fi.Mode()&os.ModeSymlink == 0 {
		return nil
	}
	return checkLink(path, fi)
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
