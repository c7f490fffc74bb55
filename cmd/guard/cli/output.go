package cli

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"guard/internal/atomicfile"
	"guard/internal/jsonx"
	"guard/internal/safeopen"
)

// stdio is the file name that means stdout for an output and stdin for an
// input, as it does for most Unix tools.
const stdio = "-"

// writeOutput writes data to the file path names, atomically (a temp file
// renamed into place) with mode, or to stdout when path is "-". A path that
// is a directory is refused as a usage error before anything is written:
// the rename would fail with a confusing "file exists", or, worse, the
// name would be taken for a directory the user meant to fill. name is the
// file name to suggest inside it. A path that can only name a directory
// (it ends in / or in /. or /..) but names none is an error too, as it is
// for cp(1): writing there would make a file of the directory's name, or
// replace the file the path names.
//
// Every command that writes a file it is given comes through here (state
// and cooldown export, report --output).
func (e *env) writeOutput(path string, data []byte, mode os.FileMode, name string) error {
	if path == stdio {
		_, err := e.Stdout.Write(data)
		return err
	}
	fi, err := os.Stat(path)
	if err == nil && fi.IsDir() {
		return usagef("%s is a directory; give a file name, such as %s (or - for stdout)", path, filepath.Join(path, name))
	}
	if namesDir(path) {
		if err == nil || errors.Is(err, syscall.ENOTDIR) {
			return fmt.Errorf("%s: not a directory", path)
		}
		if errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("%s: no such directory", path)
		}
		return err
	}
	return atomicfile.WriteFile(path, data, mode, nil)
}

// namesDir reports whether path can only name a directory: it ends in a
// slash, or its last element is . or ..
func namesDir(path string) bool {
	if strings.HasSuffix(path, string(filepath.Separator)) {
		return true
	}
	base := path[strings.LastIndexByte(path, filepath.Separator)+1:]
	return base == "." || base == ".."
}

// readInput reads the file path names, or stdin when path is "-", past a
// UTF-8 byte order mark (a checkpoint an editor saved with one is taken,
// and the state it becomes has none).
func (e *env) readInput(path string) ([]byte, error) {
	if path == stdio {
		if e.Stdin == nil {
			return nil, nil
		}
		data, err := io.ReadAll(e.Stdin)
		return jsonx.TrimBOM(data), err
	}
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return nil, usagef("%s is a directory; give a file (or - for stdin)", path)
	}
	data, err := safeopen.ReadFile(path)
	if errors.Is(err, safeopen.ErrNotRegular) {
		// A FIFO or a device could keep guard waiting for ever; a pipe
		// is read as stdin.
		return nil, usagef("%v; give a file, or - to read stdin", err)
	}
	if err != nil {
		return nil, fmt.Errorf("cannot read checkpoint: %w", err)
	}
	return jsonx.TrimBOM(data), nil
}
