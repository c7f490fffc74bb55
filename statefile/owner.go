package statefile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"guard/internal/atomicfile"
	"guard/internal/safeopen"
)

// ErrUnsafeLink is returned for a path that is a symlink another user
// planted in a sticky, world-writable directory such as /tmp. The rule is
// atomicfile's (CheckLink), shared with every file guard writes.
var ErrUnsafeLink = atomicfile.ErrUnsafeLink

// checkLink and sharedDir are atomicfile's rule: see atomicfile.CheckLink.
func checkLink(path string, fi os.FileInfo) error { return atomicfile.CheckLink(path, fi) }

func sharedDir(dir string) (owner uint32, shared bool) { return atomicfile.SharedDir(dir) }

// ErrForeignFile is matched by the error for another user's file at one of
// guard's names in a sticky world-writable directory: see
// atomicfile.ForeignFileError.
var ErrForeignFile = atomicfile.ErrForeignFile

// OpenBeside opens (or creates, as flag says) a file guard keeps beside a
// state file: its event log, its quarantine file. Such files follow the
// state's rule: in a sticky world-writable directory, a symlink another
// user planted at the name is refused (ErrUnsafeLink), never followed, and
// no race can slip one in between the check and the open (O_NOFOLLOW); a
// file another user made at the name first is refused too
// (ErrForeignFile), and the error says whose it is. Elsewhere, and for
// one's own links, it opens as OpenFile does.
//
// It never waits on what it opens (O_NONBLOCK), and refuses what is not a
// regular file (a FIFO, a device: safeopen.NotRegularError): a FIFO at the
// quarantine's name hung guard run in open(2), deaf to SIGTERM (TC's
// variant of hostile-user-3 M5).
func OpenBeside(path string, flag int, perm os.FileMode) (*os.File, error) {
	f, _, err := OpenBesideStat(path, flag, perm)
	return f, err
}

// OpenBesideStat is OpenBeside, and returns what the file opened was when
// it checked it (fstat(2)): a caller that needs to know more of it (its
// size, whether it is still the file at path) asks no more of the system
// (the event log's append, on guard run's hot path).
func OpenBesideStat(path string, flag int, perm os.FileMode) (*os.File, os.FileInfo, error) {
	f, fi, err := openBeside(path, flag|syscall.O_NONBLOCK, perm)
	if errors.Is(err, syscall.ENXIO) { // a FIFO no one reads, opened to write
		if fi, serr := os.Stat(path); serr == nil && !fi.Mode().IsRegular() {
			return nil, nil, &safeopen.NotRegularError{Path: path, Mode: fi.Mode().Type()}
		}
	}
	if err != nil {
		return nil, nil, err
	}
	if fi == nil {
		if fi, err = f.Stat(); err != nil {
			f.Close()
			return nil, nil, err
		}
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, nil, &safeopen.NotRegularError{Path: path, Mode: fi.Mode().Type()}
	}
	return f, fi, nil
}

// openBeside opens path by OpenBeside's rules, returning what it learnt
// of the file opened if it asked (nil if not).
func openBeside(path string, flag int, perm os.FileMode) (*os.File, os.FileInfo, error) {
	dirOwner, shared := sharedDir(filepath.Dir(path))
	if !shared {
		return openFollowing(path, flag, perm)
	}
	f, err := OpenFile(path, flag|NoFollow, perm)
	if err == nil {
		fi, serr := f.Stat()
		if serr == nil {
			serr = atomicfile.CheckOwnerIn(path, fi, dirOwner)
		}
		if serr != nil {
			f.Close()
			return nil, nil, serr
		}
		return f, fi, nil
	}
	// A symlink fails O_NOFOLLOW with ELOOP, or, with O_CREAT, with EACCES
	// when it is another user's (the kernel's own rule for sticky
	// directories): either way the link is judged by the state's rule, so
	// that a refused link is said to be one, whatever the errno. Another
	// user's file (EACCES) is said to be theirs.
	fi, lerr := os.Lstat(path)
	if lerr != nil {
		return nil, nil, err
	}
	if fi.Mode()&os.ModeSymlink == 0 {
		if ferr := atomicfile.CheckOwnerIn(path, fi, dirOwner); ferr != nil {
			return nil, nil, ferr
		}
		return nil, nil, err
	}
	if err := checkLink(path, fi); err != nil {
		return nil, nil, err
	}
	return openFollowing(path, flag, perm)
}

// openFollowing opens path as OpenFile does, but another user's symlink
// there (neither ours nor root's: its directory's owner's, say, for a
// state in their directory) is followed only to a file that user owns,
// which must exist: guard never creates, appends to or locks, through
// such a link, a file its owner could not have touched themselves
// (atomicfile.ForeignLinkError; TC's variants of hostile-user-3 M3 and m1:
// root appended its events to, and created, files of root's through a
// link in a user's directory).
func openFollowing(path string, flag int, perm os.FileMode) (*os.File, os.FileInfo, error) {
	// A link is looked at only when the open meets one, so that no call
	// without one pays for the look.
	f, err := OpenFile(path, flag|NoFollow, perm)
	if !errors.Is(err, syscall.ELOOP) {
		return f, nil, err
	}
	uid, foreign := atomicfile.LinkOwner(path)
	if !foreign {
		f, err := OpenFile(path, flag, perm)
		return f, nil, err
	}
	if _, err := os.Stat(path); err != nil {
		return nil, nil, &atomicfile.ForeignLinkError{Path: path, UID: uid}
	}
	f, err = OpenFile(path, flag&^os.O_CREATE, perm)
	if err != nil {
		return nil, nil, err
	}
	fi, err := f.Stat()
	if err == nil {
		err = atomicfile.CheckLinkTarget(path, uid, fi)
	}
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, fi, nil
}

// CheckBeside checks a name guard uses beside a state file (a directory
// such as the slot files' "<state>.runs") by the state's rule: in a sticky
// world-writable directory, a symlink another user planted there is
// refused (ErrUnsafeLink), and so is a file or directory another user made
// there (ErrForeignFile). A name that does not exist is fine. It returns
// what Lstat found at the name (nil if nothing), for a caller that needs
// more of it.
func CheckBeside(path string) (os.FileInfo, error) {
	fi, err := os.Lstat(path)
	if err != nil {
		return nil, nil
	}
	if fi.Mode()&os.ModeSymlink != 0 {
		return fi, checkLink(path, fi)
	}
	return fi, atomicfile.CheckOwner(path, fi)
}

// GiveToOwnerOf makes path (a file guard created beside a state file: its
// lock, its runs directory and slots, the directories it made: MkdirAll) belong to the owner of ref (the state
// file, or the directory it is to be in), when guard runs as root for a
// user: otherwise the user's own guard could no longer open it. It does
// nothing when not root (and so nothing on Windows, where no process can
// give a file away: see owner_windows.go), and is best effort.
//
// It gives path away only where its new owner could have made it
// themselves: in a directory they own, or in a sticky world-writable one
// such as /tmp. Elsewhere path stays root's: a guardrails.yaml the user
// controls must not get root to hand them, say, an event log or a
// directory of its making in /etc.
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
	wantUID, wantGID, ok := fileOwner(ri)
	if !ok || wantUID == 0 {
		return
	}
	dir := filepath.Dir(path)
	di, err := os.Stat(dir)
	if err != nil {
		return
	}
	if _, shared := sharedDir(dir); !shared {
		if parentUID, _, ok := fileOwner(di); !ok || parentUID != wantUID {
			return
		}
	}
	pi, err := os.Lstat(path)
	if err != nil {
		return
	}
	if uid, gid, ok := fileOwner(pi); ok && (uid != wantUID || gid != wantGID) {
		_ = os.Lchown(path, int(wantUID), int(wantGID))
	}
}

// MkdirAll creates dir, and the directories above it that are missing,
// with mode perm, as os.MkdirAll does; and when guard runs as root for a
// user, gives each directory it made to the owner of ref (see
// GiveToOwnerOf): the state, for a directory made beside or for it (an
// event log's, the slots'). With no ref (ref "", or a state not made
// yet), each is given to the owner of the nearest directory above it that
// was there, as a state file root creates is given to its directory's
// owner: so a state's own directory, made before the state, is its
// owner's. A directory another process made meanwhile is left as it is.
func MkdirAll(dir string, perm os.FileMode, ref string) error {
	if os.Geteuid() != 0 {
		return os.MkdirAll(dir, perm)
	}
	if ref != "" {
		if _, err := os.Stat(ref); err != nil {
			ref = ""
		}
	}
	var missing []string // deepest first
	for d := filepath.Clean(dir); ; {
		if _, err := os.Lstat(d); err == nil {
			if ref == "" {
				ref = d
			}
			break
		}
		missing = append(missing, d)
		parent := filepath.Dir(d)
		if parent == d {
			break
		}
		d = parent
	}
	for i := len(missing) - 1; i >= 0; i-- {
		err := os.Mkdir(missing[i], perm)
		if err == nil {
			if ref != "" {
				GiveToOwnerOf(missing[i], ref)
			}
			continue
		}
		if !errors.Is(err, fs.ErrExist) {
			return err
		}
	}
	return os.MkdirAll(dir, perm) // a no-op, or MkdirAll's own error
}
