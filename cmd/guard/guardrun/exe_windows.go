//go:build windows

package guardrun

import (
	"os"
	"os/exec"
	"path/filepath"
)

// exeName is the file name of guard's command name (guard-cli, guard-pg, guard-web):
// name.exe. (exec.LookPath adds the extension for a name on PATH; a path
// beside guard must have it, as CreateProcess adds none to a path.)
func exeName(name string) string { return name + ".exe" }

// isExecutable reports whether path is a regular file: Windows has no
// execute bit (os.Stat gives every file mode 0666, or 0444 if read-only).
func isExecutable(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular()
}

// SystemShell is the shell that runs a -c string, a fallback or an
// on_state_change command when no --shell names another. Windows has no
// /bin/sh: it is the sh.exe on PATH, which is Git Bash's where Claude Code
// runs hooks (Git Bash puts its usr\bin on their PATH), else the one of
// the Git for Windows whose git is on PATH (shellDirs), else sh, which
// then cannot be started: the run fails as "sh: command not found".
func SystemShell() string {
	if p, err := exec.LookPath("sh"); err == nil {
		return p
	}
	for _, dir := range shellDirs() {
		if p := filepath.Join(dir, "sh.exe"); isExecutable(p) {
			return p
		}
	}
	return "sh"
}

// shellDirs are where a shell that is not on PATH is looked for: the
// usr\bin and bin of the Git for Windows whose git is on PATH
// (C:\Program Files\Git\cmd\git.exe), where Claude Code finds its Git Bash.
func shellDirs() []string {
	git, err := exec.LookPath("git")
	if err != nil {
		return nil
	}
	root := filepath.Dir(filepath.Dir(git))
	return []string{filepath.Join(root, "usr", "bin"), filepath.Join(root, "bin")}
}
