package atomicfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// ErrUnsafeLink is returned for a path that is a symlink another user
// planted in a sticky, world-writable directory such as /tmp.
var ErrUnsafeLink = errors.New("refusing to follow a symlink another user owns in a sticky world-writable directory")

// ErrForeignFile is matched (errors.Is) by a *ForeignFileError.
var ErrForeignFile = errors.New("refusing another user's file")

// A ForeignFileError is a file (or directory) at one of guard's names in a
// sticky world-writable directory that belongs to another user: neither
// us, nor root, nor the directory's owner. Anyone may create a name there
// first, so such a file is never used: another user could otherwise hold
// a lock or a slot guard needs, plant a state or an event log for guard to
// read, or keep guard from replacing its own file.
type ForeignFileError struct {
	Path string
	UID  uint32
	In   string // the kind of directory it is in; "": a sticky world-writable one
}

func (e *ForeignFileError) Error() string {
	in := e.In
	if in == "" {
		in = "a sticky world-writable directory"
	}
	return fmt.Sprintf("%s belongs to %s: %v in %s", e.Path, userName(e.UID), ErrForeignFile, in)
}

func (e *ForeignFileError) Unwrap() error { return ErrForeignFile }

// userName names a user for a message: "uid 65534 (nobody)", or "uid
// 1234" when the user database does not know it.
func userName(uid uint32) string {
	id := strconv.FormatUint(uint64(uid), 10)
	if u, err := user.LookupId(id); err == nil && u.Username != "" {
		return "uid " + id + " (" + u.Username + ")"
	}
	return "uid " + id
}

// CheckOwner refuses the file at path, described by fi (from Stat, Lstat
// or an open file's Stat), when it sits in a sticky world-writable
// directory and belongs to neither us, nor root, nor the directory's
// owner (a ForeignFileError): Linux's fs.protected_regular rule, which
// guard holds itself to whatever the system's setting, for reading as
// much as for writing (hostile-user-3 M2, m1).
func CheckOwner(path string, fi os.FileInfo) error {
	if uid, ok := Owner(fi); !ok || uid == 0 || int(uid) == os.Geteuid() {
		return nil // ours or root's: the directory need not be looked at
	}
	owner, shared := SharedDir(filepath.Dir(path))
	if !shared {
		return nil
	}
	return CheckOwnerIn(path, fi, owner)
}

// CheckOwnerIn is CheckOwner for a file whose directory the caller knows
// to be sticky and world-writable, owned by dirOwner.
func CheckOwnerIn(path string, fi os.FileInfo, dirOwner uint32) error {
	uid, ok := Owner(fi)
	if !ok || uid == 0 || int(uid) == os.Geteuid() || uid == dirOwner {
		return nil
	}
	return &ForeignFileError{Path: path, UID: uid}
}

// ErrForeignLink is matched (errors.Is) by a *ForeignLinkError.
var ErrForeignLink = errors.New("refusing to follow another user's symlink to a file they do not own")

// A ForeignLinkError is a symlink at one of guard's names that belongs to
// another user (neither us nor root) and points at a file that user does
// not own, or at none: following it would let them have guard (root, say,
// for a hook whose state is in their directory) append to, create or lock
// a file they could not touch themselves (/etc/nologin, another user's
// log).
type ForeignLinkError struct {
	Path string
	UID  uint32
}

func (e *ForeignLinkError) Error() string {
	return fmt.Sprintf("%s is a symlink of %s: %v", e.Path, userName(e.UID), ErrForeignLink)
}

func (e *ForeignLinkError) Unwrap() error { return ErrForeignLink }

// LinkOwner returns the owner of the symlink at path when it is another
// user's (neither us nor root), and whether it is; nothing at path, or
// anything else there, is not.
func LinkOwner(path string) (uid uint32, foreign bool) {
	fi, err := os.Lstat(path)
	if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		return 0, false
	}
	uid, ok := Owner(fi)
	if !ok || uid == 0 || int(uid) == os.Geteuid() {
		return 0, false
	}
	return uid, true
}

// CheckLinkTarget refuses the file fi (an open file's Stat) reached
// through path, another user's symlink owned by uid (see LinkOwner),
// unless that user owns it: another user's link is followed only to what
// they could have written themselves, anywhere (in a sticky world-writable
// directory, CheckLink refuses it first).
func CheckLinkTarget(path string, uid uint32, fi os.FileInfo) error {
	if got, ok := Owner(fi); ok && got != uid {
		return &ForeignLinkError{Path: path, UID: uid}
	}
	return nil
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
	// On Windows the path starts with a volume (C:, \\server\share),
	// which is not a name to look up; elsewhere vol is "".
	vol := filepath.VolumeName(path)
	done := vol + string(filepath.Separator)
	rest := strings.Split(path[len(vol):], string(filepath.Separator))
	links := 0
	for len(rest) > 0 {
		c := rest[0]
		rest = rest[1:]
		switch c {
		case "", ".":
			continue
		case "..":
			done = filepath.Dir(done) // the root's parent is the root
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
			vol := filepath.VolumeName(target)
			done, target = vol+string(filepath.Separator), target[len(vol):]
		} else if filepath.VolumeName(target) != "" {
			return "", &fs.PathError{Op: "resolve", Path: next, Err: errors.New("link to a path relative to another drive")}
		}
		rest = append(strings.Split(target, string(filepath.Separator)), rest...)
	}
	return done, nil
}
