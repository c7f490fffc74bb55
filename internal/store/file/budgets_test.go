package file

import (
	"path/filepath"
	"testing"
	"time"

	"guard/internal/store"
	"guard/statefile"
)

func TestStoreRetentionCoversWindows(t *testing.T) {
	s, err := openBudgets(filepath.Join(t.TempDir(), "cooldown.json"), statefile.Options{}, time.Hour,
		[]store.Action{{Name: "rebuild", Field: "rebuilds", Limit: 1, Window: 72 * time.Hour}}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if s.retention != 72*time.Hour {
		t.Errorf("retention = %s; want raised to the 72h window", s.retention)
	}
}
