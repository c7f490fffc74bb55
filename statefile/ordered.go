package statefile

import (
	"bufio"
	"io"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// renameKeepsData reports whether the filesystem of dir makes a rename that
// replaces a file wait for the new file's data, so that after a power loss
// the name holds the old file or the new one, whole, even when the new one
// was not fsynced before the rename. That is so:
//
//   - on tmpfs and ramfs, where nothing survives a power loss anyway;
//   - on ext4 mounted with its defaults (auto_da_alloc and data=ordered):
//     ext4 "will detect the replace-via-rename and replace-via-truncate
//     patterns and force that any delayed allocation blocks are allocated
//     such that at the next journal commit, in the default data=ordered
//     mode, the data blocks of the new file are forced to disk before the
//     rename() operation is committed" (Documentation/admin-guide/ext4.rst).
//     Mounted with noauto_da_alloc or data=writeback, it does not.
//
// Anywhere else, and when in doubt, it reports false. It is a variable for
// tests.
var renameKeepsData = func(dir string) bool {
	var fs unix.Statfs_t
	if unix.Statfs(dir, &fs) != nil {
		return false
	}
	switch fs.Type {
	case unix.TMPFS_MAGIC, unix.RAMFS_MAGIC:
		return true
	case unix.EXT4_SUPER_MAGIC: // ext2 and ext3 have it too
		var st unix.Stat_t
		if unix.Stat(dir, &st) != nil {
			return false
		}
		info, err := os.Open("/proc/self/mountinfo")
		if err != nil {
			return false
		}
		defer info.Close()
		fstype, options := mountOf(info, unix.Major(st.Dev), unix.Minor(st.Dev))
		return ext4OrdersRename(fstype, options)
	}
	return false
}

// mountOf finds the filesystem type and superblock options of the device
// major:minor in /proc/self/mountinfo. It reads only up to the device's
// first line, and gives up after maxMounts lines (a host with thousands
// of container mounts): the caller then fsyncs, which costs less.
func mountOf(info io.Reader, major, minor uint32) (fstype, options string) {
	dev := strconv.FormatUint(uint64(major), 10) + ":" + strconv.FormatUint(uint64(minor), 10)
	lines := bufio.NewScanner(info)
	for n := 0; n < maxMounts && lines.Scan(); n++ {
		// ID PARENT MAJOR:MINOR ROOT MOUNTPOINT OPTIONS [OPTIONAL...] - TYPE SOURCE SUPER-OPTIONS
		fields := strings.Fields(lines.Text())
		if len(fields) < 10 || fields[2] != dev {
			continue
		}
		for i := 6; i+3 < len(fields); i++ {
			if fields[i] == "-" {
				return fields[i+1], fields[i+3]
			}
		}
	}
	return "", ""
}

const maxMounts = 200

// ext4OrdersRename reports whether a filesystem of type fstype mounted with
// the superblock options is ext4 with auto_da_alloc and data=ordered (or
// data=journal, which orders more).
func ext4OrdersRename(fstype, options string) bool {
	if fstype != "ext4" {
		return false
	}
	for o := range strings.SplitSeq(options, ",") {
		if o == "noauto_da_alloc" || o == "data=writeback" {
			return false
		}
	}
	return true
}
