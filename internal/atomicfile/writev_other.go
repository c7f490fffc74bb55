//go:build !linux

package atomicfile

import "syscall"

// writev writes the first segment: other systems get no writev from
// golang.org/x/sys, and writeSegments calls again for the rest.
func writev(fd int, segs [][]byte) (int, error) { return syscall.Write(fd, segs[0]) }
