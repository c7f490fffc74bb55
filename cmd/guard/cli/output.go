package cli

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"guard/internal/atomicfile"
)

// stdio is the file name that means stdout for an output and stdin for an
// input, as it does for most Unix tools.
const stdio = "-"

// writeOutput writes data to the file path names, atomically (a temp file
// renamed into place) with mode, or to stdout when path is "-". A path that
// is a directory is refused as a usage error before anything is written:
// the rename would fail with a confusing "file exists", or, worse, the
// name would be taken for a directory the user meant to fill. name is the
// file name to suggest inside it.
func (e *env) writeOutput(path string, data []byte, mode os.FileMode, name string) error {
	if path == stdio {
		_, err := e.stdout.Write(data)
		return err
	}
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return usagef("%s is a directory; give a file name, such as %s (or - for stdout)", path, filepath.Join(path, name))
	}
	return atomicfile.WriteFile(path, data, mode, nil)
}

// readInput reads the file path names, or stdin when path is "-".
func (e *env) readInput(path string) ([]byte, error) {
	if path == stdio {
		if e.stdin == nil {
			return nil, nil
		}
		return io.ReadAll(e.stdin)
	}
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return nil, usagef("%s is a directory; give a file (or - for stdin)", path)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("cannot read checkpoint: %w", err)
	}
	return data, nil
}
