package atomicfile

import "golang.org/x/sys/unix"

func writev(fd int, segs [][]byte) (int, error) { return unix.Writev(fd, segs) }
