package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/urfave/cli/v2"

	"guard/cmd/guard/guardrun"
	"guard/config"
	"guard/internal/claude/doctor"
)

// A platformNote is something of guard's promises that this platform
// cannot keep, or keeps otherwise (docs/platforms.md), and what to do
// instead. Each platform's list is in doctor_linux.go, doctor_darwin.go
// and doctor_windows.go.
type platformNote struct{ problem, instead string }

// doctorPlatform reports the platform guard runs on and the filesystem
// its state is on. It returns the check, a warning when the state's
// filesystem keeps guard's promises less well (a network filesystem, FAT:
// the user can move the state), and the notes on what the platform itself
// cannot keep, which nobody can change and which doctor shows apart.
func (e *env) doctorPlatform(c *cli.Context) (doctor.Checked, []doctor.Finding, []doctor.Finding) {
	ch := doctor.Checked{What: "platform " + runtime.GOOS + "/" + runtime.GOARCH}
	var warnings, notes []doctor.Finding
	for _, n := range platformNotes() {
		notes = append(notes, doctor.Finding{Where: runtime.GOOS + "/" + runtime.GOARCH, Problem: n.problem, Fix: n.instead})
	}
	if sh := guardrun.SystemShell(); !filepath.IsAbs(sh) {
		// Windows without Git Bash: no shell for a -c string, a
		// fallback or on_state_change.
		warnings = append(warnings, doctor.Finding{Where: runtime.GOOS + "/" + runtime.GOARCH, Warning: true,
			Problem: "no sh on PATH nor beside a git on PATH: hooks behind guard run -c, fallbacks and on_state_change cannot start",
			Fix:     "install Git for Windows (Claude Code needs its Git Bash too), or put its usr\\bin on PATH"})
	}
	cfg, err := e.loadConfig(c)
	switch {
	case err != nil:
		ch.Detail = "state not known (the config is invalid)"
	case config.IsDatabaseURL(cfg.StateFile):
		ch.Detail = "state in PostgreSQL"
	default:
		dir := existingDir(filepath.Dir(cfg.StateFile))
		name, remote, ok := filesystemOf(dir)
		if !ok {
			ch.Detail = "state's filesystem not known"
			break
		}
		ch.Detail = "state on " + name
		if remote {
			ch.Detail += " (network)"
		}
		if problem := filesystemNote(name, remote); problem != "" {
			warnings = append(warnings, doctor.Finding{Where: cfg.StateFile, Warning: true,
				Problem: fmt.Sprintf("is on %s: %s", name, problem),
				Fix:     "keep the state on a local disk: state_file in guardrails.yaml, or GUARD_STATE"})
		}
	}
	return ch, warnings, notes
}

// existingDir returns dir, or the nearest directory above it that exists:
// guard makes the rest on the same filesystem.
func existingDir(dir string) string {
	for {
		if fi, err := os.Stat(dir); err == nil && fi.IsDir() {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return dir
		}
		dir = parent
	}
}

// filesystemNote says what a state on the filesystem name (as
// filesystemOf names it: Linux's and macOS's type names, Windows' file
// system names) loses of guard's promises, or "" for a local disk's.
func filesystemNote(name string, remote bool) string {
	n := strings.ToLower(name)
	switch {
	case remote || strings.HasPrefix(n, "nfs") || n == "cifs" || strings.HasPrefix(n, "smb") || n == "afpfs" ||
		n == "webdav" || n == "9p" || n == "ceph" || n == "afs" || n == "glusterfs" || n == "fuse.sshfs":
		return "a network filesystem, where the state's lock may not hold between machines (flock over NFS) and a sync may return before the server has the data"
	case n == "vfat" || n == "msdos" || n == "fat" || n == "fat32" || n == "exfat":
		return "FAT has no journal, so a power loss while guard replaces the state can damage the directory, not only undo the write; it has no owners or modes either"
	case strings.Contains(n, "fuse"): // fuse, fuse.NAME; macfuse, osxfuse on macOS
		return "a FUSE filesystem keeps what the program behind it keeps: a sync or a rename may promise less than on a local disk"
	}
	return ""
}
