//go:build windows

package cli

import (
	"errors"
	"os"

	"golang.org/x/sys/windows"

	"guard/statefile"
)

// canCreateIn returns nil: Windows has no access(2), and its ACLs are
// judged only by trying. writable's test write in the directory, which
// follows, says whether guard can create files there.
func canCreateIn(dir string) error { return nil }

// canReadWrite says why this process could not open the file at path for
// reading and writing, as guard opens a state (shared for a rename over
// it), or nil.
func canReadWrite(path string) error {
	f, err := statefile.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	return f.Close()
}

// readWriteFix is the fix doctor gives for a state file guard cannot read
// and write.
func readWriteFix(path string) string {
	return "clear its read-only attribute (attrib -r \"" + path + "\") and check that your account may write it (icacls \"" + path + "\")"
}

// isNoSpace reports whether err is a full disk or a spent quota.
func isNoSpace(err error) bool {
	return errors.Is(err, windows.ERROR_DISK_FULL) || errors.Is(err, windows.ERROR_HANDLE_DISK_FULL) ||
		errors.Is(err, windows.ERROR_NOT_ENOUGH_QUOTA)
}

// platformNotes: what Windows cannot keep, or keeps otherwise
// (docs/platforms.md, and the lifetimes table in docs/rules.md).
func platformNotes() []platformNote {
	return []platformNote{
		{
			problem: "guard's tests run on Linux; on Windows guard is cross-compiled and vetted in CI, not run",
			instead: "report what does not hold on your machine; docs/platforms.md says how each promise is kept here",
		},
		{
			problem: "there are no signals: a hook is asked to stop with Ctrl-Break, not SIGTERM, and ended with its whole job object, not SIGKILL; kill_background ends what is left in the job, not a process group",
			instead: "nothing to do; a hook that must leave a process running starts it with CREATE_BREAKAWAY_FROM_JOB",
		},
		{
			problem: "guard completion has scripts for bash, zsh and fish: PowerShell and cmd get none",
			instead: "in Git Bash, which Claude Code runs hooks with: source <(guard completion bash)",
		},
		{
			problem: "no owners to hand over, no modes but read-only and no sticky directories: guard's rules for other users' files do not apply, and a state in a directory others may write is theirs to change",
			instead: "keep the state in your profile (%USERPROFILE%\\.claude, the default), whose ACL is yours",
		},
	}
}

// filesystemOf names the file system of dir's volume (NTFS, ReFS, FAT32,
// exFAT, ...) and says whether the volume is a network drive.
func filesystemOf(dir string) (name string, remote, ok bool) {
	p, err := windows.UTF16PtrFromString(dir)
	if err != nil {
		return "", false, false
	}
	var root [windows.MAX_PATH + 1]uint16
	if windows.GetVolumePathName(p, &root[0], uint32(len(root))) != nil {
		return "", false, false
	}
	var fsName [windows.MAX_PATH + 1]uint16
	if windows.GetVolumeInformation(&root[0], nil, 0, nil, nil, nil, &fsName[0], uint32(len(fsName))) != nil {
		return "", false, false
	}
	return windows.UTF16ToString(fsName[:]), windows.GetDriveType(&root[0]) == windows.DRIVE_REMOTE, true
}
