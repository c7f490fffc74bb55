//go:build unix

package tests

import (
	"bytes"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// These tests need root, as owner_test.go's do: they make files of
// another user (nobody, the "attacker") in a sticky world-writable
// directory, and run guard as root or as a third user (the victim).

const victimUID, victimGID = 4242, 4242 // a user with no passwd entry

// stickyDir makes a sticky world-writable directory, as /tmp is, owned by
// root, with a short path, as /tmp's are (warnings are cut at 200
// characters, and test directories have long names); the sandbox is made
// one every user may enter.
func stickyDir(t *testing.T, sb *sandbox) string {
	t.Helper()
	os.Chmod(sb.dir, 0o755)
	os.Chmod(filepath.Dir(sb.dir), 0o755)
	os.Chmod(sb.path("guardrails.yaml"), 0o644)
	top, err := os.MkdirTemp("", "g")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(top) })
	os.Chmod(top, 0o755)
	st := filepath.Join(top, "st")
	if err := os.Mkdir(st, 0o777); err != nil {
		t.Fatal(err)
	}
	os.Chmod(st, 0o777|os.ModeSticky)
	return st
}

// plantFile makes a file of the attacker's, mode 0666, at path.
func plantFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o666); err != nil {
		t.Fatal(err)
	}
	os.Chmod(path, 0o666)
	if err := os.Chown(path, otherUID, otherGID); err != nil {
		t.Fatal(err)
	}
}

// holdLock takes an flock on path for the rest of the test, as the
// attacker would, to keep guard from it.
func holdLock(t *testing.T, path string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
}

// guardAs runs guard in the sandbox as the user uid, from a copy of guard
// (and of guard-cli beside it) that user may run.
func (sb *sandbox) guardAs(uid, gid int, env []string, args ...string) (int, string, string) {
	sb.t.Helper()
	bin := filepath.Join(sb.dir, "bin", "guard")
	for _, copied := range []string{bin, filepath.Join(sb.dir, "bin", "guard-cli")} {
		if exists(copied) {
			continue
		}
		os.MkdirAll(filepath.Dir(copied), 0o755)
		src, err := os.Open(guardBin)
		if err != nil {
			sb.t.Fatal(err)
		}
		dst, err := os.OpenFile(copied, os.O_WRONLY|os.O_CREATE, 0o755)
		if err != nil {
			sb.t.Fatal(err)
		}
		_, err = io.Copy(dst, src)
		src.Close()
		if cerr := dst.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			sb.t.Fatal(err)
		}
	}
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(bin, args...)
	cmd.Dir = "/"
	cmd.Env = append(append(os.Environ(), "HOME="+sb.dir, "CLAUDE_PROJECT_DIR="), env...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}}
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		return ee.ExitCode(), stdout.String(), stderr.String()
	case err != nil:
		sb.t.Fatalf("guard %q as uid %d: %v", args, uid, err)
	}
	return 0, stdout.String(), stderr.String()
}

// TestForeignFilesBesideTheStateAreRefused covers hostile-user-3 m1:
// another user's regular file at one of guard's names beside a state in a
// sticky world-writable directory (the temp file, the lock, held; the
// state itself; the event log; the quarantine) is never used: every run
// of the state's owner says whose file it is and runs the hook, so the
// breaker is never switched off without a word; and status never shows
// another user's state as this one's.
func TestForeignFilesBesideTheStateAreRefused(t *testing.T) {
	needRoot(t)
	for _, tc := range []struct {
		name    string // the file planted, in the sticky directory
		content string
		bogus   bool // the victim's state has a malformed entry, which guard sets aside
		lock    bool // the attacker holds an flock on it
		rotate  bool // the event log rotates at every append: the warning comes from the second run on
	}{
		{name: ".state.json.tmp"},
		{name: "state.json.lock", lock: true},
		{name: "state.json", content: `{"hooks":{"k":{"state":"open","forced":true,"open_reason":"by nobody"}}}`},
		{name: "state.events.jsonl"},
		{name: "state.json.quarantine", bogus: true},
		{name: "state.events.jsonl.1", rotate: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// The event log's case records to the state: its circuit must
			// not open in these four runs.
			cfg := "lock_timeout: 1s\ncircuit_breaker:\n  failure_threshold: 100\n"
			if tc.rotate {
				cfg += "logging:\n  max_size: 100\n"
			}
			sb := newSandbox(t, cfg)
			st := stickyDir(t, sb)
			state := filepath.Join(st, "state.json")
			env := []string{"GUARD_STATE=" + state, "GUARD_CONFIG=" + sb.path("guardrails.yaml")}
			if tc.name != "state.json" {
				doc := `{"hooks":{}}`
				if tc.bogus {
					doc = `{"hooks":{"k":{"state":"bogus"}}}`
				}
				os.WriteFile(state, []byte(doc), 0o600)
				os.Chown(state, victimUID, victimGID)
			}
			planted := filepath.Join(st, tc.name)
			plantFile(t, planted, tc.content)
			if tc.lock {
				holdLock(t, planted)
			}
			for i := range 4 {
				code, stdout, stderr := sb.guardAs(victimUID, victimGID, env, "run", "--name", "k", "--", "sh", "-c", "echo ran; exit 1")
				if code != 1 || stdout != "ran\n" {
					t.Fatalf("run %d: exit %d, stdout %q; want the hook run with its own status", i+1, code, stdout)
				}
				if tc.rotate && i == 0 {
					continue // nothing to rotate yet
				}
				if want := planted + " belongs to uid 65534"; !strings.Contains(stderr, want) || !strings.Contains(stderr, "refusing another user's file in a sticky world-writable directory") {
					t.Fatalf("run %d: stderr %q; want a warning that says %q and why it is refused", i+1, stderr, want)
				}
			}
			if tc.name == "state.json" {
				code, stdout, stderr := sb.guardAs(victimUID, victimGID, env, "status")
				if code == 0 || strings.Contains(stdout, "by nobody") || !strings.Contains(stderr, "belongs to uid 65534") {
					t.Errorf("status: exit %d, stdout %q, stderr %q; want another user's state refused, not shown", code, stdout, stderr)
				}
			}
		})
	}
}

// keyHash is the file backend's name for a key's slot files.
func keyHash(key string) string {
	h := fnv.New64a()
	h.Write([]byte(key))
	return fmt.Sprintf("%016x", h.Sum64())
}

// TestForeignSlotDirectoryIsRefused covers hostile-user-3 M2: another
// user's <state>.runs directory in a sticky world-writable directory, with
// a max_concurrent key's slot file in it held, is refused like a planted
// link: the hook runs unguarded with a warning, never skipped (allowed)
// or blocked on the other user's say. In a slot directory others may
// write, another user's slot file is never counted as a run in flight.
func TestForeignSlotDirectoryIsRefused(t *testing.T) {
	needRoot(t)
	const cfg = "hooks:\n  - match: deny\n    on_skip: block\n    max_concurrent: 1\n"
	record := fmt.Sprintf(`{"key":"deny","pid":%d,"started":"2026-01-01T00:00:00Z"}`+"\n", os.Getpid())

	t.Run("directory", func(t *testing.T) {
		sb := newSandbox(t, cfg)
		st := stickyDir(t, sb)
		state := filepath.Join(st, "state.json")
		sb.env = append(sb.env, "GUARD_STATE="+state)
		runs := state + ".runs"
		os.Mkdir(runs, 0o777)
		os.Chmod(runs, 0o777)
		os.Chown(runs, otherUID, otherGID)
		slot := filepath.Join(runs, keyHash("deny")+"-0.slot")
		plantFile(t, slot, record)
		holdLock(t, slot)
		code, stdout, stderr := sb.guard("run", "--name", "deny", "--", "echo", "ran")
		if code != 0 || stdout != "ran\n" || !strings.Contains(stderr, runs+" belongs to uid 65534") {
			t.Errorf("guard run: exit %d, stdout %q, stderr %q; want the hook run unguarded, saying whose directory it is", code, stdout, stderr)
		}
		if _, stdout, _ := sb.guard("status"); strings.Contains(stdout, "In flight") {
			t.Errorf("status lists another user's slot as a run in flight:\n%s", stdout)
		}
	})

	t.Run("slot file", func(t *testing.T) {
		// The victim's own slot directory, which others may write.
		sb := newSandbox(t, cfg)
		os.Chmod(sb.dir, 0o755)
		os.Chmod(filepath.Dir(sb.dir), 0o755)
		os.Chmod(sb.path("guardrails.yaml"), 0o644)
		dir := sb.path("user")
		os.Mkdir(dir, 0o755)
		os.Chown(dir, victimUID, victimGID)
		state := filepath.Join(dir, "state.json")
		env := []string{"GUARD_STATE=" + state, "GUARD_CONFIG=" + sb.path("guardrails.yaml")}
		runs := state + ".runs"
		os.Mkdir(runs, 0o777)
		os.Chmod(runs, 0o777)
		os.Chown(runs, victimUID, victimGID)
		slot := filepath.Join(runs, keyHash("deny")+"-0.slot")
		plantFile(t, slot, record)
		holdLock(t, slot)
		code, stdout, stderr := sb.guardAs(victimUID, victimGID, env, "run", "--name", "deny", "--", "echo", "ran")
		if code != 0 || stdout != "ran\n" || !strings.Contains(stderr, slot+" belongs to uid 65534") {
			t.Errorf("guard run: exit %d, stdout %q, stderr %q; want the hook run, another user's slot not counted", code, stdout, stderr)
		}
		if _, stdout, _ := sb.guardAs(victimUID, victimGID, env, "status"); strings.Contains(stdout, "In flight") {
			t.Errorf("status lists another user's slot as a run in flight:\n%s", stdout)
		}
	})
}

// TestPlantedLinkOnTheWayToTheEventLogIsRefused covers hostile-user-3 M3:
// a logging.event_log is checked on the whole way to it, as the state
// path is: another user's symlinked directory in a sticky world-writable
// directory on the way is refused with the same warning, the hook runs
// unguarded, and nothing is written or made through the link.
func TestPlantedLinkOnTheWayToTheEventLogIsRefused(t *testing.T) {
	needRoot(t)
	for _, rel := range []string{"dl/ev.jsonl", "dl/sub/ev.jsonl", "dl/sub/deeper/ev.jsonl"} {
		sb := newSandbox(t, "")
		st := stickyDir(t, sb)
		real := sb.path("real")
		os.Mkdir(real, 0o755)
		link := filepath.Join(st, "dl")
		os.Symlink(real, link)
		os.Lchown(link, otherUID, otherGID)
		os.WriteFile(sb.path("guardrails.yaml"), []byte("logging:\n  event_log: "+filepath.Join(st, rel)+"\n"), 0o600)
		code, stdout, stderr := sb.guard("run", "--", "echo", "ran")
		if code != 0 || stdout != "ran\n" || !strings.Contains(stderr, "refusing to follow a symlink another user owns") || !strings.Contains(stderr, "unguarded") {
			t.Errorf("event_log %s: exit %d, stdout %q, stderr %q; want the hook run unguarded, the link refused", rel, code, stdout, stderr)
		}
		code, _, stderr = sb.guard("cooldown", "record", "web", "restart")
		if code == 0 || !strings.Contains(stderr, "refusing to follow a symlink another user owns") {
			t.Errorf("event_log %s: cooldown record: exit %d, stderr %q; want it refused", rel, code, stderr)
		}
		if entries, _ := os.ReadDir(real); len(entries) > 0 {
			t.Errorf("event_log %s: root made %d files through the link", rel, len(entries))
		}
	}
}

// TestForeignLinksInAnotherUsersDirectory covers TC's variants of
// hostile-user-3 M3 and m1 outside sticky directories: root runs a hook
// whose state is in another user's own directory (a project of theirs),
// where they may put a symlink at any of guard's names. Root follows
// their link only to a file they own: it never creates a file where their
// link points (the lock: /etc/nologin would lock every other user out),
// nor appends its events or a quarantined entry to a file of root's; a
// link to a file of theirs is followed, as it would be for them.
func TestForeignLinksInAnotherUsersDirectory(t *testing.T) {
	needRoot(t)
	for _, tc := range []struct {
		name   string // the link planted in the user's directory
		bogus  bool   // the state has a malformed entry, which guard sets aside
		create bool   // the link points at no file: guard must not create it
	}{
		{name: "state.json.lock", create: true},
		{name: "state.events.jsonl"},
		{name: "state.events.jsonl", create: true},
		{name: "state.json.quarantine", bogus: true},
	} {
		t.Run(fmt.Sprintf("%s,create=%v", tc.name, tc.create), func(t *testing.T) {
			sb := newSandbox(t, "circuit_breaker:\n  failure_threshold: 100\n")
			os.Chmod(sb.dir, 0o755)
			os.Chmod(filepath.Dir(sb.dir), 0o755)
			os.Chmod(sb.path("guardrails.yaml"), 0o644)
			// A short path, as a project's would be: warnings are cut at
			// 200 characters.
			top, err := os.MkdirTemp("", "g")
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { os.RemoveAll(top) })
			os.Chmod(top, 0o755)
			dir := filepath.Join(top, "theirs")
			if err := os.Mkdir(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			os.Chown(dir, otherUID, otherGID)
			state := filepath.Join(dir, "state.json")
			doc := `{"hooks":{}}`
			if tc.bogus {
				doc = `{"hooks":{"k":{"state":"bogus"}}}`
			}
			os.WriteFile(state, []byte(doc), 0o600)
			os.Chown(state, otherUID, otherGID)
			victim := filepath.Join(top, "roots.txt")
			if !tc.create {
				os.WriteFile(victim, []byte("root's\n"), 0o600)
			}
			link := filepath.Join(dir, tc.name)
			if err := os.Symlink(victim, link); err != nil {
				t.Fatal(err)
			}
			if err := os.Lchown(link, otherUID, otherGID); err != nil {
				t.Fatal(err)
			}
			env := []string{"GUARD_STATE=" + state, "GUARD_CONFIG=" + sb.path("guardrails.yaml")}
			code, stdout, stderr := sb.guardAs(0, 0, env, "run", "--name", "k", "--", "sh", "-c", "echo ran; exit 1")
			if code != 1 || stdout != "ran\n" {
				t.Fatalf("exit %d, stdout %q; want the hook run with its own status", code, stdout)
			}
			if want := link + " is a symlink of uid 65534"; !strings.Contains(stderr, want) || !strings.Contains(stderr, "refusing to follow another user's symlink to a file they do not own") {
				t.Errorf("stderr %q; want a warning that says %q and why it is refused", stderr, want)
			}
			got, err := os.ReadFile(victim)
			switch {
			case tc.create && err == nil:
				t.Errorf("guard created %s through another user's link", victim)
			case !tc.create && string(got) != "root's\n":
				t.Errorf("%s = %q; guard wrote to root's file through another user's link", victim, got)
			}
			// A link of theirs to a file of theirs is followed.
			mine := filepath.Join(dir, "mine.txt")
			os.WriteFile(mine, nil, 0o600)
			os.Chown(mine, otherUID, otherGID)
			os.Remove(link)
			os.Symlink(mine, link)
			os.Lchown(link, otherUID, otherGID)
			code, _, stderr = sb.guardAs(0, 0, env, "run", "--name", "k", "--", "true")
			if code != 0 || strings.Contains(stderr, "refusing") {
				t.Errorf("with a link to a file of theirs: exit %d, stderr %q; want it followed", code, stderr)
			}
		})
	}
}
