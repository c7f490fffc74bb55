package cli

import (
	"golang.org/x/sys/unix"
)

// platformNotes: what macOS cannot keep (docs/platforms.md, and the
// lifetimes table in docs/rules.md).
func platformNotes() []platformNote {
	return []platformNote{
		{
			problem: "guard's tests run on Linux; on macOS guard is cross-compiled and vetted in CI, not run",
			instead: "report what does not hold on your Mac; docs/platforms.md says how each promise is kept here",
		},
		{
			problem: "a SIGKILL of guard alone (kill -9, a crash) leaves the hook's command running: macOS has no parent-death signal (its max_concurrent slot stays taken until it ends; on PostgreSQL until its row expires)",
			instead: "end guard with SIGTERM, which it passes on; Claude Code ends a hook through its process group, which reaches the command directly",
		},
		{
			problem: "a timeout or kill_background finds what the command orphaned only through guard's process group, when guard leads one (as under Claude Code)",
			instead: "run guard as the leader of its process group outside Claude Code too (a shell's job control does that)",
		},
	}
}

// filesystemOf names the filesystem of dir as statfs(2) does on macOS
// (apfs, hfs, nfs, smbfs, msdos, exfat, ...), and says whether it is on
// the network (no MNT_LOCAL).
func filesystemOf(dir string) (name string, remote, ok bool) {
	var fs unix.Statfs_t
	if unix.Statfs(dir, &fs) != nil {
		return "", false, false
	}
	return unix.ByteSliceToString(fs.Fstypename[:]), fs.Flags&unix.MNT_LOCAL == 0, true
}
