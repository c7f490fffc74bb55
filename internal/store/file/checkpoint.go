package file

import (
	"fmt"
	"time"

	"guard/internal/atomicfile"
	"guard/internal/jsonx"
)

// A checkpoint is a state file's store.Checkpoint: its export and import,
// whole.
type checkpoint struct {
	s     wholeFile
	check func([]byte) error
	empty any // the document to export when there is none
}

// A wholeFile is a state file as a checkpoint reads and replaces it:
// *stateFile, or *Circuits, which folds its skip tally in first.
type wholeFile interface {
	Export() ([]byte, error)
	Import(data []byte, now time.Time, from string, keep func(old []byte) (kept string, err error)) error
	Path() string
}

func (c checkpoint) Export() ([]byte, error) {
	data, err := c.s.Export()
	if err != nil || data != nil {
		return data, err
	}
	return jsonx.MarshalDocument(c.empty)
}

func (c checkpoint) Check(data []byte) error { return c.check(data) }

// Import keeps the state it replaces beside it, as STATE.bak-<UTC time>,
// owned as the state is.
func (c checkpoint) Import(data []byte, now time.Time, from string) (string, error) {
	var kept string
	err := c.s.Import(data, now, from, func(old []byte) (string, error) {
		if old == nil {
			return "", nil
		}
		var err error
		if kept, err = atomicfile.Backup(c.s.Path(), old, now); err != nil {
			return "", fmt.Errorf("cannot keep a backup: %w", err)
		}
		return kept, nil
	})
	return kept, err
}
