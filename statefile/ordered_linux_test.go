//go:build linux && !guard_portable

package statefile

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

func TestRenameKeepsDataOnThisMachine(t *testing.T) {
	dir := t.TempDir()
	lock := filepath.Join(dir, "state.json.lock")
	os.WriteFile(lock, nil, 0o600)
	// Whatever this machine's filesystems are, the check runs on them; a
	// directory that is not there is "no".
	t.Logf("the temp directory's filesystem keeps a rename behind the data: %v", renameKeepsData(dir, lock))
	if renameKeepsData(filepath.Join(dir, "missing"), lock) {
		t.Error("renameKeepsData(a missing directory) = true")
	}
	if !renameKeepsData("/dev/shm", lock) {
		if _, err := os.Stat("/dev/shm"); err == nil {
			t.Error("renameKeepsData(/dev/shm, a tmpfs) = false")
		}
	}
}

// TestExt4DecisionIsCachedOnTheLock: on ext4, the mount table is read once
// per mount and mountCacheTTL, not on every relaxed write: the decision is
// kept on the lock file (issue 36, "no mount table read per call"). Another
// mount's decision, or a stale one, is made again.
func TestExt4DecisionIsCachedOnTheLock(t *testing.T) {
	dir := t.TempDir()
	lock := filepath.Join(dir, "state.json.lock")
	if err := os.WriteFile(lock, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := unix.Lsetxattr(lock, "user.guard.probe", []byte("x"), 0); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("the temp directory's filesystem has no user extended attributes: %v", err)
		}
		t.Skipf("the temp directory's filesystem has no user extended attributes: %v", err)
	}
	reads := 0
	decide := func(major, minor uint32) bool { reads++; return true }
	fsid := [2]int32{1, 2}
	now := time.Now()
	for i := range 3 {
		if !ext4KeepsData(dir, lock, fsid, now.Add(time.Duration(i)*time.Second), decide) {
			t.Fatalf("call %d: false; want the decision, true", i)
		}
	}
	if reads != 1 {
		t.Fatalf("3 calls on one mount read the mount table %d times; want 1", reads)
	}
	// A later call past the TTL reads it again (a remount is seen), and so
	// does one on another filesystem (another fsid).
	ext4KeepsData(dir, lock, fsid, now.Add(mountCacheTTL+time.Second), decide)
	if reads != 2 {
		t.Errorf("after the TTL: %d reads; want 2", reads)
	}
	ext4KeepsData(dir, lock, [2]int32{3, 4}, now.Add(mountCacheTTL+time.Second), decide)
	if reads != 3 {
		t.Errorf("on another filesystem: %d reads; want 3", reads)
	}
	// Without a lock file to keep it on, every call decides, and says what
	// decide says.
	reads = 0
	missing := filepath.Join(dir, "missing.lock")
	ext4KeepsData(dir, missing, fsid, now, decide)
	ext4KeepsData(dir, missing, fsid, now, decide)
	if reads != 2 {
		t.Errorf("without a lock file: %d reads; want 2", reads)
	}
}

// BenchmarkRenameKeepsData is the decision a relaxed write makes, on the
// temp directory's filesystem: cached (the lock file holds it) and made
// afresh (the mount table read, as every call did before).
func BenchmarkRenameKeepsData(b *testing.B) {
	dir := b.TempDir()
	lock := filepath.Join(dir, "state.json.lock")
	os.WriteFile(lock, nil, 0o600)
	b.Run("cached", func(b *testing.B) {
		for b.Loop() {
			renameKeepsData(dir, lock)
		}
	})
	b.Run("mountinfo", func(b *testing.B) {
		var st unix.Stat_t
		unix.Stat(dir, &st)
		var fs unix.Statfs_t
		for b.Loop() {
			unix.Statfs(dir, &fs)
			ext4Mounted(unix.Major(st.Dev), unix.Minor(st.Dev))
		}
	})
}
