//go:build linux && !guard_portable

package atomicfile

import (
	"io"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// writeSegments writes segs to f one after the other, with as few writev
// calls as the kernel allows. It may change the slices in segs.
func writeSegments(f *os.File, segs [][]byte) error {
	if len(segs) == 1 {
		_, err := f.Write(segs[0])
		return err
	}
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var werr error
	err = rc.Write(func(fd uintptr) bool {
		for {
			for len(segs) > 0 && len(segs[0]) == 0 {
				segs = segs[1:]
			}
			if len(segs) == 0 {
				return true
			}
			batch := segs[:min(len(segs), 1024)] // IOV_MAX
			n, err := unix.Writev(int(fd), batch)
			if err == syscall.EINTR {
				continue
			}
			if err != nil {
				werr = err
				return true
			}
			if n == 0 {
				werr = io.ErrShortWrite
				return true
			}
			for n > 0 { // drop what was written
				if n >= len(segs[0]) {
					n -= len(segs[0])
					segs = segs[1:]
				} else {
					segs[0] = segs[0][n:]
					n = 0
				}
			}
		}
	})
	if err != nil {
		return err
	}
	return werr
}
