package atomicfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// ErrUnsafeLink is returned for a path that is a symlink another user
// planted in a sticky, world-writable directory such as /tmp.
var ErrUnsafeLink = errors.New("refusing to follow a symlink another user owns in a sticky world-writable directory")

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

// Resolve returns path, made absolute, with every symlink in it followed
// (a final link whose target does not exist yet included), one component at
// a time, so that each link, a directory's as much as the file's, is
// checked by CheckLink before it is followed: a link CheckLink refuses is
// an error (ErrUnsafeLink). What does not exist yet is kept as it is, to be
// created.
func Resolve(path string) (string, error) {
	path, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	done := string(filepath.Separator)
	rest := strings.Split(path, string(filepath.Separator))
	links := 0
	for len(rest) > 0 {
		c := rest[0]
		rest = rest[1:]
		switch c {
		case "", ".":
			continue
		case "..":
			done = filepath.Dir(done)
			continue
		}
		next := filepath.Join(done, c)
		fi, err := os.Lstat(next)
		if errors.Is(err, fs.ErrNotExist) {
			// Not there yet: the rest is created as it is written.
			return filepath.Join(append([]string{next}, rest...)...), nil
		}
		if err != nil {
			return "", err
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			done = next
			continue
		}
		if links++; links > 40 {
			return "", &fs.PathError{Op: "resolve", Path: path, Err: syscall.ELOOP}
		}
		if err := CheckLink(next, fi); err != nil {
			return "", err
		}
		target, err := os.Readlink(next)
		if err != nil {
			return "", err
		}
		if filepath.IsAbs(target) {
			done = string(filepath.Separator)
		}
		rest = append(strings.Split(target, string(filepath.Separator)), rest...)
	}
	return done, nil
}
