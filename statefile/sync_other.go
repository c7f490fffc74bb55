//go:build !darwin

package statefile

import "os"

// barrierSync is nil where the system has no cheaper sync that orders a
// file's data before later writes (macOS's F_BARRIERFSYNC, sync_darwin.go):
// a relaxed write's temp file is synced as a durable write's is.
var barrierSync func(*os.File) error
