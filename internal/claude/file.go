package claude

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"guard/internal/atomicfile"
	"guard/internal/safeopen"
)

// A File is a settings file rewritten on disk.
type File struct {
	Result
	Path   string // the file, with symlinks resolved
	Old    []byte // its bytes before
	Backup string // where they were kept; "" for a dry run or no change
}

// RewriteFile applies rewrite (Install or Uninstall) to the settings file
// at path. Unless dryRun, if anything changed it backs the file up to
// PATH.bak-<UTC time> (a name no file has yet, owned as the file is) and
// replaces the file atomically, keeping its mode, owner and group. verb
// names the rewrite in errors. A file that is not JSON is left untouched,
// with its line and column in the error.
//
// A symlink at path, or on the way to it, is followed (the file is
// replaced, the link stays: a settings.json kept in a dotfiles repository),
// under the rule of every file guard writes (atomicfile.Resolve): another
// user's symlink in a sticky world-writable directory is refused with
// atomicfile.ErrUnsafeLink, naming the link, before anything is read, and
// nothing is written through it, a backup included.
func RewriteFile(path, verb string, now time.Time, dryRun bool, rewrite func([]byte) (Result, error)) (File, error) {
	real, err := atomicfile.Resolve(path)
	if err != nil {
		return File{Path: path}, fmt.Errorf("%w; nothing changed", err)
	}
	if abs, _ := filepath.Abs(path); real != abs {
		path = real // replace the file, not the link to it
	} // else no link: keep the name as given, for messages
	f := File{Path: path}
	info, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return f, fmt.Errorf("there is no settings file at %s; nothing to %s", path, verb)
	}
	if err != nil {
		return f, err
	}
	if f.Old, err = safeopen.ReadFile(path); err != nil { // never a FIFO: see safeopen
		return f, err
	}
	f.Result, err = rewrite(f.Old)
	var se *SyntaxError
	switch {
	case errors.As(err, &se):
		return f, fmt.Errorf("%s:%d:%d: not valid JSON (%s); nothing changed", path, se.Line, se.Column, se.Msg)
	case err != nil:
		return f, fmt.Errorf("%s: %v; nothing changed", path, err)
	}
	if len(f.Changes) == 0 || dryRun {
		return f, nil
	}
	backup, err := atomicfile.Backup(path, f.Old, now)
	if err != nil {
		return f, fmt.Errorf("cannot back up %s, so nothing changed: %w", path, err)
	}
	if err := atomicfile.WriteFile(path, f.Doc, info.Mode().Perm(), nil); err != nil {
		return f, fmt.Errorf("cannot write %s: %w (it is unchanged; the backup is %s)", path, err, backup)
	}
	f.Backup = backup
	return f, nil
}
