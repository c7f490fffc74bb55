//go:build !failpoints

package statefile

// failpoint is a no-op outside test builds; see failpoint_on.go.
func failpoint(string) error { return nil }
