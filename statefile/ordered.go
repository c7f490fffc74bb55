package statefile

import (
	"bufio"
	"bytes"
	"io"
	"strconv"
	"strings"
	"time"
)

// renameKeepsData (ordered_linux.go, ordered_other.go) reports whether the
// filesystem of dir makes a rename that replaces a file wait for the new
// file's data, so that after a power loss the name holds the old file or
// the new one, whole, even when the new one was not synced before the
// rename. A relaxed write then skips the temp file's sync as well as the
// directory's (see File.write). lock is the state's lock file, which the
// caller holds: Linux keeps its decision there (see mountCache).
//
// Only Linux says yes, for tmpfs and ramfs, where nothing survives a power
// loss anyway, and for ext4 mounted with its defaults (auto_da_alloc and
// data=ordered): ext4 "will detect the replace-via-rename and
// replace-via-truncate patterns and force that any delayed allocation
// blocks are allocated such that at the next journal commit, in the
// default data=ordered mode, the data blocks of the new file are forced to
// disk before the rename() operation is committed"
// (Documentation/admin-guide/ext4.rst). Mounted with noauto_da_alloc or
// data=writeback, it does not. macOS and Windows document no such order,
// and a build with the guard_portable tag says no on Linux too.

// mountOf finds the filesystem type and superblock options of the device
// major:minor in /proc/self/mountinfo. It reads only up to the device's
// first line, and gives up after maxMounts lines (a host with thousands
// of container mounts): the caller then syncs, which costs less.
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

// ext4Journaled reports whether ext4's own option list (the contents of
// /proc/fs/ext4/DEV/options, which shows every option, defaults included)
// has a journal that orders data: data=ordered or data=journal. A
// filesystem without a journal lists no data= option at all.
func ext4Journaled(options string) bool {
	for o := range strings.FieldsSeq(options) {
		if o == "data=ordered" || o == "data=journal" {
			return true
		}
	}
	return false
}

// A mountID names the mount a state directory is on: its device, the
// kernel's mount ID (statx's stx_mnt_id; 0 before Linux 5.8) and the
// filesystem's ID (statfs's f_fsid, which ext4 derives from its UUID).
// Another filesystem at the same path, or the same one unmounted and
// mounted again, has another mountID.
type mountID struct {
	Major, Minor uint32
	Mount        uint64
	FSID         [2]int32
}

// mountCacheTTL is how long a decision about a mount is trusted. A remount
// (mount -o remount,noauto_da_alloc) keeps the mount's ID, so the cache
// cannot see it; a decision older than this is made again, so a remount is
// seen within this time. Making it again costs one read of the mount
// table (about 50µs), which a call pays at most once in this time.
const mountCacheTTL = 10 * time.Second

// mountCache is how a decision of renameKeepsData is kept for the next
// call, as the extended attribute mountCacheAttr of the state's lock file:
// one line, "v1 MAJOR:MINOR MOUNT FSID0:FSID1 UNIXTIME 0|1". It is read
// and written under the lock. Anything that does not parse, names another
// mount, or is older than mountCacheTTL (or from the future: a clock set
// back) is no decision.
const mountCacheAttr = "user.guard.mount"

func formatMountDecision(id mountID, keeps bool, now time.Time) []byte {
	b := appendMountKey(nil, id)
	b = strconv.AppendInt(b, now.Unix(), 10)
	if keeps {
		return append(b, " 1"...)
	}
	return append(b, " 0"...)
}

// appendMountKey appends the part of a record that names the mount:
// "v1 MAJOR:MINOR MOUNT FSID0:FSID1 ".
func appendMountKey(b []byte, id mountID) []byte {
	b = append(b, "v1 "...)
	b = strconv.AppendUint(b, uint64(id.Major), 10)
	b = append(b, ':')
	b = strconv.AppendUint(b, uint64(id.Minor), 10)
	b = append(b, ' ')
	b = strconv.AppendUint(b, id.Mount, 10)
	b = append(b, ' ')
	b = strconv.AppendUint(b, uint64(uint32(id.FSID[0])), 16)
	b = append(b, ':')
	b = strconv.AppendUint(b, uint64(uint32(id.FSID[1])), 16)
	return append(b, ' ')
}

// parseMountDecision returns the decision rec holds for id, if it holds a
// fresh one. It compares rather than parses the mount's part: this runs on
// every relaxed write.
func parseMountDecision(rec []byte, id mountID, now time.Time) (keeps, ok bool) {
	var key [64]byte
	rest, found := bytes.CutPrefix(rec, appendMountKey(key[:0], id))
	if !found {
		return false, false
	}
	at, k, found := bytes.Cut(rest, []byte{' '})
	if !found || len(k) != 1 || (k[0] != '0' && k[0] != '1') {
		return false, false
	}
	unix, err := strconv.ParseInt(string(at), 10, 64)
	if err != nil {
		return false, false
	}
	age := now.Sub(time.Unix(unix, 0))
	if age < 0 || age >= mountCacheTTL {
		return false, false
	}
	return k[0] == '1', true
}
