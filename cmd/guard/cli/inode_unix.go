//go:build unix

package cli

import (
	"os"
	"syscall"
)

// inode returns the inode number of the file fi describes: a file replaced
// by a rename has another.
func inode(fi os.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Ino)
	}
	return 0
}
