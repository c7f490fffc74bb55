//go:build !stress

package tests

// stress is set by the stress build tag (go test -tags stress ./tests),
// which runs the crash tests for many more rounds.
const stress = false
