//go:build unix

package statefile

import (
	"os"
	"syscall"
)

// fileOwner returns the owner and group of the file fi describes. On Linux
// and macOS alike a file has one owner and one group, and only root can
// give it away (chown), so the same rules hold on both.
func fileOwner(fi os.FileInfo) (uid, gid uint32, ok bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, 0, false
	}
	return st.Uid, st.Gid, true
}
