package postgres

import (
	"errors"
	"testing"

	"guard/internal/store"
)

// A row whose entry does not decode is corrupt the way store says, which
// is what callers branch on (architecture-2 defect 5: it matched only
// statefile's sentinel).
func TestEntryThatDoesNotDecodeMatchesErrCorrupt(t *testing.T) {
	for _, entry := range []string{`{"state": `, `[1, 2]`, `{"failure_count": "three"}`} {
		if _, err := decode([]byte(entry)); !errors.Is(err, store.ErrCorrupt) {
			t.Errorf("decode(%q) = %v; want an error matching store.ErrCorrupt", entry, err)
		}
	}
}
