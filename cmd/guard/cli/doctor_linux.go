package cli

import (
	"fmt"
	"runtime"

	"golang.org/x/sys/unix"
)

// platformNotes: Linux is where guard's tests run (on amd64); every
// promise holds here.
func platformNotes() []platformNote {
	if runtime.GOARCH == "amd64" {
		return nil
	}
	return []platformNote{{
		problem: "guard's tests run on linux/amd64; this build is cross-compiled and vetted in CI, not run there",
		instead: "the code is the same as on amd64; report what does not hold (docs/platforms.md)",
	}}
}

// linuxFilesystems names the filesystem types statfs(2) reports that
// filesystemNote or a person needs to tell apart.
var linuxFilesystems = map[int64]string{
	unix.EXT4_SUPER_MAGIC: "ext4", // ext2 and ext3 report it too
	unix.TMPFS_MAGIC:      "tmpfs", unix.RAMFS_MAGIC: "ramfs",
	unix.XFS_SUPER_MAGIC: "xfs", unix.BTRFS_SUPER_MAGIC: "btrfs", unix.OVERLAYFS_SUPER_MAGIC: "overlay",
	unix.F2FS_SUPER_MAGIC: "f2fs", 0x2fc12fc1: "zfs",
	unix.NFS_SUPER_MAGIC: "nfs", unix.SMB_SUPER_MAGIC: "smb", unix.CIFS_SUPER_MAGIC: "cifs",
	unix.SMB2_SUPER_MAGIC: "smb2", unix.V9FS_MAGIC: "9p", unix.FUSE_SUPER_MAGIC: "fuse",
	unix.CEPH_SUPER_MAGIC: "ceph", unix.AFS_SUPER_MAGIC: "afs",
	unix.MSDOS_SUPER_MAGIC: "vfat", unix.EXFAT_SUPER_MAGIC: "exfat",
}

// filesystemOf names the filesystem of dir, from statfs(2): Linux's
// names for the types it knows, else the type's magic number. Whether a
// filesystem is on the network is in its type.
func filesystemOf(dir string) (name string, remote, ok bool) {
	var fs unix.Statfs_t
	if unix.Statfs(dir, &fs) != nil {
		return "", false, false
	}
	if name, known := linuxFilesystems[int64(fs.Type)]; known {
		return name, false, true
	}
	return fmt.Sprintf("a filesystem of type %#x", fs.Type), false, true
}
