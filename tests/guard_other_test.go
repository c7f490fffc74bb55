//go:build !linux

package tests

import "github.com/rogpeppe/go-internal/testscript"

// cmdSignalWhileLocked needs inotify to send its signal exactly while guard
// waits for the lock: Linux only (guard_linux_test.go).
func cmdSignalWhileLocked(ts *testscript.TestScript, neg bool, args []string) {
	ts.Fatalf("signal-while-locked runs on Linux only; the script should start with [!linux] skip")
}
