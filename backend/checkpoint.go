package backend

import (
	"fmt"
	"os"
	"time"

	"guard/atomicfile"
	"guard/filestore"
	"guard/statefile"
)

// checkpoint is a state file's store.Checkpoint.
type checkpoint struct {
	s     *filestore.Store
	check func([]byte) error
	empty any // the document to export when there is none
}

func (c checkpoint) Export() ([]byte, error) {
	data, err := c.s.Export()
	if err != nil || data != nil {
		return data, err
	}
	return statefile.Marshal(c.empty)
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
		path := c.s.Path()
		kept = atomicfile.FreePath(fmt.Sprintf("%s.bak-%s", path, now.UTC().Format("20060102T150405Z")))
		fi, _ := os.Stat(path)
		if err := atomicfile.WriteFile(kept, old, 0o600, fi); err != nil {
			return "", fmt.Errorf("cannot keep a backup: %w", err)
		}
		return kept, nil
	})
	return kept, err
}
