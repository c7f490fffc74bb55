package statefile

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// segmented is a document that writes itself in many small pieces.
type segmented struct{ n int }

func (s *segmented) UnmarshalState(data []byte) error { return nil }
func (s *segmented) MarshalState() ([]byte, error) {
	segs, _ := s.MarshalSegments()
	return bytes.Join(segs, nil), nil
}
func (s *segmented) MarshalSegments() ([][]byte, error) {
	segs := [][]byte{[]byte("[")}
	for i := range s.n {
		if i > 0 {
			segs = append(segs, []byte(","), nil)
		}
		segs = append(segs, []byte(fmt.Sprint(i)))
	}
	return append(segs, []byte("]\n")), nil
}

func TestSegmentsAreWrittenInOrder(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.json")
	f := open(t, path)
	const n = 3000 // more segments than one writev takes
	if err := Update(f, func(s *segmented) (bool, error) { s.n = n; return true, nil }); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(path)
	want, _ := (&segmented{n: n}).MarshalState()
	if !bytes.Equal(got, want) {
		t.Fatalf("file holds %d bytes, want %d", len(got), len(want))
	}
}

func TestRecycledBufferIsReused(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.json")
	os.WriteFile(path, []byte(`{"n": 1}`), 0o600)
	f := open(t, path)
	first, err := f.Read()
	if err != nil {
		t.Fatal(err)
	}
	f.Recycle(first)
	os.WriteFile(path, []byte(`{"n": 22}`), 0o600)
	second, err := f.Read()
	if err != nil || string(second) != `{"n": 22}` {
		t.Fatalf("Read after Recycle = %q, %v", second, err)
	}
	if &first[:1][0] != &second[:1][0] {
		t.Error("the recycled buffer was not reused")
	}
	// A file larger than the buffer is read whole all the same.
	f.Recycle(second)
	big := bytes.Repeat([]byte(" "), 100000)
	big = append(big, `{"n": 3}`...)
	os.WriteFile(path, big, 0o600)
	if third, err := f.Read(); err != nil || !bytes.Equal(third, big) {
		t.Fatalf("Read of a larger file = %d bytes, %v", len(third), err)
	}
}
