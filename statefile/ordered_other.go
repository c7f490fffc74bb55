//go:build !linux || guard_portable

package statefile

// renameKeepsData says no: macOS and Windows document no filesystem that
// orders a rename after the renamed file's data, so every write syncs its
// temp file (see ordered.go). With the guard_portable tag, Linux takes this
// path too, so that CI runs the code macOS and Windows run.
var renameKeepsData = func(dir, lock string) bool { return false }
