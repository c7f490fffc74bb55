//go:build linux && !guard_portable

package statefile

import (
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// renameKeepsData: see ordered.go. One statfs(2) tells tmpfs and ramfs
// (yes) and every filesystem but ext4 (no) apart. ext4 depends on its mount
// options, which only the mount table has; that decision is kept in the
// lock file's mountCacheAttr, so that a call on the same mount finds it
// with a statx(2) and a getxattr(2) instead of reading the mount table
// (see ext4KeepsData). It is a variable for tests.
var renameKeepsData = func(dir, lock string) bool {
	var fs unix.Statfs_t
	if unix.Statfs(dir, &fs) != nil {
		return false
	}
	switch fs.Type {
	case unix.TMPFS_MAGIC, unix.RAMFS_MAGIC:
		return true
	case unix.EXT4_SUPER_MAGIC: // ext2 and ext3 have it too
		return ext4KeepsData(dir, lock, fs.Fsid.Val, time.Now(), ext4Mounted)
	}
	return false
}

// ext4KeepsData decides for dir, on a filesystem of the ext4 family whose
// statfs f_fsid is fsid: from the decision cached on lock (the state's
// lock file, held by the caller) when it names dir's mount and is fresh,
// else by decide(major, minor), which reads the mount table, and then
// caches that. A lock file that cannot hold an extended attribute (a
// filesystem mounted without user_xattr) has no cache: each call decides.
func ext4KeepsData(dir, lock string, fsid [2]int32, now time.Time, decide func(major, minor uint32) bool) bool {
	var stx unix.Statx_t
	if unix.Statx(unix.AT_FDCWD, dir, unix.AT_STATX_SYNC_AS_STAT, unix.STATX_MNT_ID, &stx) != nil {
		return false
	}
	id := mountID{Major: stx.Dev_major, Minor: stx.Dev_minor, FSID: fsid}
	if stx.Mask&unix.STATX_MNT_ID != 0 {
		id.Mount = stx.Mnt_id
	}
	var rec [96]byte
	if n, err := unix.Lgetxattr(lock, mountCacheAttr, rec[:]); err == nil && n <= len(rec) {
		if keeps, ok := parseMountDecision(rec[:n], id, now); ok {
			return keeps
		}
	}
	keeps := decide(id.Major, id.Minor)
	_ = unix.Lsetxattr(lock, mountCacheAttr, formatMountDecision(id, keeps, now), 0)
	return keeps
}

// ext4Mounted reports whether the ext4 filesystem on device major:minor is
// mounted so that it orders a replacing rename after the new file's data,
// from /proc/self/mountinfo.
func ext4Mounted(major, minor uint32) bool {
	info, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return false
	}
	defer info.Close()
	return ext4OrdersRename(mountOf(info, major, minor))
}
