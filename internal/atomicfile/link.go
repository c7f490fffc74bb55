package atomicfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// ErrUnsafeLink is returned for a path that is a symlink another user
// planted in a sticky, world-writable directory such as /tmp.
var ErrUnsafeLink = errors.New("refusing to follow a symlink another user owns in a sticky world-writable directory")

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
