//go:build windows

package cli

import "os"

// inode returns 0: os.Stat on Windows gives no file index. A file replaced
// by a rename still shows as another through its size and modification
// time, which fingerprint also uses.
func inode(fi os.FileInfo) uint64 { return 0 }
