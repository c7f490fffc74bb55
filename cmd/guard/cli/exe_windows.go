//go:build windows

package cli

import "os"

// exeName is the file name of guard's command name (guard-pg, guard-web):
// name.exe. (exec.LookPath adds the extension for a name on PATH; a path
// beside guard must have it, as CreateProcess adds none to a path.)
func exeName(name string) string { return name + ".exe" }

// isExecutable reports whether path is a regular file: Windows has no
// execute bit (os.Stat gives every file mode 0666, or 0444 if read-only).
func isExecutable(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular()
}
