//go:build linux && !guard_portable

package statefile

import (
	"os"
	"path/filepath"
	"strconv"
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
// mounted so that it orders a replacing rename after the new file's data:
// its mount options from /proc/self/mountinfo, and a journal in ordered (or
// journal) data mode from the filesystem's own option list,
// /proc/fs/ext4/DEV/options. The mount table does not say whether there is
// a journal (an ext4 made with -O ^has_journal is mounted with the same
// options), and without one nothing orders the rename after the data.
func ext4Mounted(major, minor uint32) bool {
	info, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return false
	}
	defer info.Close()
	if !ext4OrdersRename(mountOf(info, major, minor)) {
		return false
	}
	return ext4Journaled(ext4Options(major, minor))
}

// ext4Options returns ext4's own list of the options of the filesystem on
// device major:minor (every option, one a line, defaults included), or ""
// if it cannot be read. The kernel names the directory after the block
// device, which /sys/dev/block/MAJOR:MINOR links to.
func ext4Options(major, minor uint32) string {
	dev, err := os.Readlink("/sys/dev/block/" + strconv.FormatUint(uint64(major), 10) + ":" + strconv.FormatUint(uint64(minor), 10))
	if err != nil {
		return ""
	}
	opts, err := os.ReadFile("/proc/fs/ext4/" + filepath.Base(dev) + "/options")
	if err != nil {
		return ""
	}
	return string(opts)
}
