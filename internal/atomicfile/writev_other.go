//go:build !linux || guard_portable

package atomicfile

import "os"

// writeSegments writes segs to f one after the other. golang.org/x/sys has
// no writev but on Linux, so the segments are joined and written with one
// write: one copy of the document costs less than a system call a segment.
func writeSegments(f *os.File, segs [][]byte) error {
	if len(segs) == 1 {
		_, err := f.Write(segs[0])
		return err
	}
	n := 0
	for _, s := range segs {
		n += len(s)
	}
	all := make([]byte, 0, n)
	for _, s := range segs {
		all = append(all, s...)
	}
	_, err := f.Write(all)
	return err
}
