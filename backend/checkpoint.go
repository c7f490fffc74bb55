package backend

import (
	"strings"
	"time"

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

func (c checkpoint) Import(data []byte, now time.Time, from string, keep func(old []byte) (string, error)) error {
	return c.s.Import(data, now, from, keep)
}

// firstLine keeps an error to its first line, for a warning.
func firstLine(err error) string {
	msg, _, _ := strings.Cut(err.Error(), "\n")
	if len(msg) > 200 {
		msg = msg[:200] + "..."
	}
	return msg
}
