//go:build unix

package cli

import "os"

// exeName is the file name of guard's command name (guard-pg, guard-web):
// the name itself.
func exeName(name string) string { return name }

// isExecutable reports whether path is a regular file with an execute bit.
func isExecutable(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0
}
