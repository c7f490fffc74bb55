//go:build unix

package guardrun

import "os"

// exeName is the file name of guard's command name (guard-cli, guard-pg, guard-web):
// the name itself.
func exeName(name string) string { return name }

// isExecutable reports whether path is a regular file with an execute bit.
func isExecutable(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0
}

// SystemShell is the shell that runs a -c string, a fallback or an
// on_state_change command when no --shell names another: /bin/sh.
func SystemShell() string { return "/bin/sh" }

// shellDirs are where a --shell that is not on the hook's PATH is looked
// for: /bin and /usr/bin, which a hook's PATH may leave out.
func shellDirs() []string { return []string{"/bin", "/usr/bin"} }
