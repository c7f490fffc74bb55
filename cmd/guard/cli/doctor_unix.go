//go:build unix

package cli

import (
	"errors"

	"golang.org/x/sys/unix"
)

// canCreateIn says why this process could not create and rename files in
// dir (access(2) W_OK|X_OK), or nil.
func canCreateIn(dir string) error { return unix.Access(dir, unix.W_OK|unix.X_OK) }

// canReadWrite says why this process could not read and write the file at
// path (access(2) R_OK|W_OK), or nil.
func canReadWrite(path string) error { return unix.Access(path, unix.R_OK|unix.W_OK) }

// readWriteFix is the fix doctor gives for a state file guard cannot read
// and write.
func readWriteFix(path string) string { return "chmod u+rw " + path }

// isNoSpace reports whether err is a full filesystem or a spent quota.
func isNoSpace(err error) bool { return errors.Is(err, unix.ENOSPC) || errors.Is(err, unix.EDQUOT) }
