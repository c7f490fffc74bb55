package claude

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
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

// A NoSettingsError is a settings file that is not there.
type NoSettingsError struct{ Path, Verb string }

func (e *NoSettingsError) Error() string {
	return fmt.Sprintf("there is no settings file at %s; nothing to %s", e.Path, e.Verb)
}

// RewriteFile applies rewrite (Install or Uninstall) to the settings file
// at path. Unless dryRun, if anything changed it backs the file up (see
// backup) and replaces the file atomically, keeping its mode, owner and
// group. verb names the rewrite in errors. A file that is not JSON is left
// untouched, with its line and column in the error. A file that is not
// there is a *NoSettingsError.
//
// A symlink at path, or on the way to it, is followed (the file is
// replaced, the link stays: a settings.json kept in a dotfiles repository),
// under the rule of every file guard writes (atomicfile.Resolve): another
// user's symlink in a sticky world-writable directory is refused with
// atomicfile.ErrUnsafeLink, naming the link, before anything is read, and
// nothing is written through it, a backup included.
func RewriteFile(path, backupDir, verb string, now time.Time, dryRun bool, rewrite func([]byte) (Result, error)) (File, error) {
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
		return f, &NoSettingsError{Path: path, Verb: verb}
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
	backup, err := backupFile(path, backupDir, f.Old, now)
	if err != nil {
		return f, fmt.Errorf("cannot back up %s, so nothing changed: %w", path, err)
	}
	if err := atomicfile.WriteFile(path, f.Doc, info.Mode().Perm(), nil); err != nil {
		return f, fmt.Errorf("cannot write %s: %w (it is unchanged; the backup is %s)", path, err, backup)
	}
	f.Backup = backup
	return f, nil
}

// KeptBackups is how many backups of one file backupFile keeps in a
// backup directory.
const KeptBackups = 5

// backupFile keeps data, the bytes of the file at path before a rewrite:
// with dir "", beside it, at PATH.bak-<UTC time> (a name no file has yet,
// owned as the file is); else in dir, named after the file's whole path
// (/home/me/app/.claude/settings.json is
// home_me_app_.claude_settings.json.bak-<UTC time>), of which only the
// last KeptBackups of each file stay. A project's .claude/ is committed,
// and a plugin's files belong to Claude Code: their backups go to dir
// (newcomer-and-mission #11).
func backupFile(path, dir string, data []byte, now time.Time) (string, error) {
	if dir == "" {
		return atomicfile.Backup(path, data, now)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	name := flatName(abs) + ".bak-"
	backup := atomicfile.FreePath(filepath.Join(dir, name+now.UTC().Format("20060102T150405Z")))
	if err := atomicfile.WriteFile(backup, data, 0o600, nil); err != nil {
		return "", err
	}
	// Only the last few: the names sort by time.
	entries, _ := os.ReadDir(dir) // sorted by name
	var old []string
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), name) && e.Type().IsRegular() {
			old = append(old, filepath.Join(dir, e.Name()))
		}
	}
	for len(old) > KeptBackups {
		if old[0] != backup {
			os.Remove(old[0])
		}
		old = old[1:]
	}
	return backup, nil
}

// flatName makes an absolute path one file name: its separators (and a
// Windows drive's colon) as _.
func flatName(abs string) string {
	return strings.Trim(strings.Map(func(r rune) rune {
		if r == '/' || r == '\\' || r == ':' {
			return '_'
		}
		return r
	}, abs), "_")
}
