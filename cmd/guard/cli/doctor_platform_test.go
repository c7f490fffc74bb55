package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestFilesystemNote: a state on a network filesystem, FAT or FUSE is
// warned of (issue 30: doctor says where guard's promises hold less); a
// local disk's is not, whatever system names it.
func TestFilesystemNote(t *testing.T) {
	for _, c := range []struct {
		name   string
		remote bool
		want   string // in the note; "" for none
	}{
		{"ext4", false, ""}, {"xfs", false, ""}, {"btrfs", false, ""}, {"tmpfs", false, ""},
		{"apfs", false, ""}, {"hfs", false, ""}, {"NTFS", false, ""}, {"ReFS", false, ""},
		{"nfs", false, "network"}, {"nfs4", false, "network"}, {"cifs", false, "network"},
		{"smb2", false, "network"}, {"smbfs", false, "network"}, {"9p", false, "network"},
		{"fuse.sshfs", false, "network"}, {"NTFS", true, "network"}, {"apfs", true, "network"},
		{"vfat", false, "no journal"}, {"msdos", false, "no journal"}, {"FAT32", false, "no journal"},
		{"exFAT", false, "no journal"}, {"fuse", false, "FUSE"},
		{"macfuse", false, "FUSE"}, {"osxfuse", false, "FUSE"}, // macOS's, a volume mounted local
	} {
		got := filesystemNote(c.name, c.remote)
		if c.want == "" && got != "" || c.want != "" && !strings.Contains(got, c.want) {
			t.Errorf("filesystemNote(%q, %v) = %q; want %q", c.name, c.remote, got, c.want)
		}
	}
}

// TestDoctorNamesThePlatform: doctor says which platform it runs on and
// what the state's filesystem is, and notes what the platform cannot keep
// (none on linux/amd64, where every promise is tested).
func TestDoctorNamesThePlatform(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "guardrails.yaml"), nil, 0o600)
	var stdout, stderr bytes.Buffer
	e := testEnv(dir, &stdout, &stderr)
	e.main([]string{"guard", "doctor", "--json"})
	var r doctorReport
	if err := json.Unmarshal(stdout.Bytes(), &r); err != nil {
		t.Fatalf("doctor --json: %v\n%s%s", err, stdout.String(), stderr.String())
	}
	var platform string
	for _, ch := range r.Checked {
		if strings.HasPrefix(ch.What, "platform ") {
			platform = ch.What + ": " + ch.Detail
		}
	}
	name, _, _ := filesystemOf(dir)
	want := "platform " + runtime.GOOS + "/" + runtime.GOARCH + ": state on " + name
	if !strings.HasPrefix(platform, want) {
		t.Errorf("doctor checked %q; want %q", platform, want)
	}
	if len(r.Notes) != len(platformNotes()) || r.Notes == nil {
		t.Errorf("notes = %+v; want this platform's %d", r.Notes, len(platformNotes()))
	}
	if runtime.GOOS == "linux" && runtime.GOARCH == "amd64" && len(r.Notes) != 0 {
		t.Errorf("linux/amd64 has notes: %+v", r.Notes)
	}
	if _, err := os.Stat("/dev/shm"); err == nil && runtime.GOOS == "linux" {
		if name, _, _ := filesystemOf("/dev/shm"); name != "tmpfs" {
			t.Errorf("filesystemOf(/dev/shm) = %q; want tmpfs", name)
		}
	}
}
