//go:build unix

package tests

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// These tests need root: they make files of another user, as root does
// when it runs guard for a user (sudo, a system hook) or as another user
// plants in /tmp. CI runs as root.

const otherUID, otherGID = 65534, 65534 // nobody, nogroup

func needRoot(t *testing.T) {
	t.Helper()
	if os.Geteuid() != 0 {
		skipOutsideCI(t, "needs root to make files of another user (CI runs as root)")
	}
}

func owner(t *testing.T, path string) (int, int) {
	t.Helper()
	fi, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	st := fi.Sys().(*syscall.Stat_t)
	return int(st.Uid), int(st.Gid)
}

// TestRootKeepsUsersFilesTheirs covers hostile-user findings 5 and 25:
// files guard run as root writes or creates for a user's state or
// settings belong to that user.
func TestRootKeepsUsersFilesTheirs(t *testing.T) {
	needRoot(t)
	sb := newSandbox(t, "")
	dir := sb.path("user")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	os.Chown(dir, otherUID, otherGID)
	state := filepath.Join(dir, "state.json")
	sb.env = append(sb.env, "GUARD_STATE="+state)

	// A state file root creates in the user's directory, with its lock and
	// runs directory, is the user's.
	if code, _, stderr := sb.guard("run", "--", "true"); code != 0 {
		t.Fatalf("guard run: exit %d: %s", code, stderr)
	}
	for _, p := range []string{state, state + ".lock", state + ".runs"} {
		if uid, gid := owner(t, p); uid != otherUID || gid != otherGID {
			t.Errorf("%s is owned by %d:%d; want the user's %d:%d", filepath.Base(p), uid, gid, otherUID, otherGID)
		}
	}
	slots, _ := filepath.Glob(state + ".runs/*")
	for _, p := range slots {
		if uid, _ := owner(t, p); uid != otherUID {
			t.Errorf("slot %s is owned by %d; want the user's", filepath.Base(p), uid)
		}
	}

	// settings.json keeps its owner through install, and the backup is the
	// user's too.
	settings := filepath.Join(dir, "settings.json")
	os.WriteFile(settings, []byte(`{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"./x.sh"}]}]}}`), 0o640)
	os.Chown(settings, otherUID, otherGID)
	if code, _, stderr := sb.guard("install", "--settings", settings, "--binary", "/usr/local/bin/guard"); code != 0 {
		t.Fatalf("guard install: exit %d: %s", code, stderr)
	}
	if uid, gid := owner(t, settings); uid != otherUID || gid != otherGID {
		t.Errorf("settings.json is owned by %d:%d after install; want %d:%d", uid, gid, otherUID, otherGID)
	}
	if fi, _ := os.Stat(settings); fi.Mode().Perm() != 0o640 {
		t.Errorf("settings.json mode = %v; want 0640", fi.Mode().Perm())
	}
	backups, _ := filepath.Glob(settings + ".bak-*")
	if len(backups) != 1 {
		t.Fatalf("backups = %q; want one", backups)
	}
	if uid, _ := owner(t, backups[0]); uid != otherUID {
		t.Errorf("the backup is owned by %d; want the user's", uid)
	}
}

// TestRootMakesUsersDirectoriesTheirs covers n5d: the directories guard
// run as root creates for a user's state (the state's own directory, and
// the event log's that logging.event_log names) are the user's, as the
// files in them are; root:root 0700, they would lock the user's own guard
// out of its event log ("permission denied" on every later run).
func TestRootMakesUsersDirectoriesTheirs(t *testing.T) {
	needRoot(t)
	sb := newSandbox(t, "")
	dir := sb.path("user")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	os.Chown(dir, otherUID, otherGID)

	// The event log in directories that do not exist yet, beside a state
	// the user has.
	state := filepath.Join(dir, "state.json")
	os.WriteFile(state, []byte("{}\n"), 0o600)
	os.Chown(state, otherUID, otherGID)
	events := filepath.Join(dir, "logs", "guard", "events.jsonl")
	os.WriteFile(sb.path("guardrails.yaml"), []byte("logging:\n  event_log: "+events+"\n"), 0o600)
	sb.env = append(sb.env, "GUARD_STATE="+state)
	if code, _, stderr := sb.guard("run", "--name", "k", "--", "sh", "-c", "exit 1"); code != 1 || stderr != "" {
		t.Fatalf("guard run: exit %d, stderr %q; want 1 and no warning", code, stderr)
	}
	for _, p := range []string{filepath.Join(dir, "logs"), filepath.Dir(events), events} {
		if uid, gid := owner(t, p); uid != otherUID || gid != otherGID {
			t.Errorf("%s is owned by %d:%d; want the state's owner %d:%d", p, uid, gid, otherUID, otherGID)
		}
	}

	// A state in directories that do not exist yet: they take the owner
	// of the directory they are made in, as a new state file does.
	state = filepath.Join(dir, "new", "deeper", "state.json")
	os.WriteFile(sb.path("guardrails.yaml"), nil, 0o600)
	sb.env = append(sb.env, "GUARD_STATE="+state)
	if code, _, stderr := sb.guard("run", "--name", "k", "--", "sh", "-c", "exit 1"); code != 1 || stderr != "" {
		t.Fatalf("guard run: exit %d, stderr %q; want 1 and no warning", code, stderr)
	}
	for _, p := range []string{filepath.Join(dir, "new"), filepath.Dir(state), state, state + ".lock", filepath.Join(filepath.Dir(state), "state.events.jsonl")} {
		if uid, gid := owner(t, p); uid != otherUID || gid != otherGID {
			t.Errorf("%s is owned by %d:%d; want the user's %d:%d", p, uid, gid, otherUID, otherGID)
		}
	}

	// Made in root's own directory, they stay root's.
	state = sb.path("rootdir/state.json")
	sb.env = append(sb.env, "GUARD_STATE="+state)
	if code, _, stderr := sb.guard("run", "--", "true"); code != 0 || stderr != "" {
		t.Fatalf("guard run: exit %d, stderr %q", code, stderr)
	}
	if uid, _ := owner(t, sb.path("rootdir")); uid != 0 {
		t.Errorf("rootdir is owned by %d; want root's", uid)
	}
}

// TestPlantedSymlinkIsRefused covers hostile-user finding 6: a state path
// in a sticky world-writable directory that is another user's symlink is
// not followed.
func TestPlantedSymlinkIsRefused(t *testing.T) {
	needRoot(t)
	sb := newSandbox(t, "")
	tmp := sb.path("tmp")
	if err := os.Mkdir(tmp, 0o777); err != nil {
		t.Fatal(err)
	}
	os.Chmod(tmp, 0o777|os.ModeSticky)
	victim := sb.path("victim.conf")
	os.WriteFile(victim, []byte("precious = true\n"), 0o644)
	for _, name := range []string{"state.json", "cooldown.json"} {
		link := filepath.Join(tmp, name)
		if err := os.Symlink(victim, link); err != nil {
			t.Fatal(err)
		}
		if err := os.Lchown(link, otherUID, otherGID); err != nil {
			t.Fatal(err)
		}
	}
	sb.env = append(sb.env, "GUARD_STATE="+filepath.Join(tmp, "state.json"), "GUARD_COOLDOWN_STATE="+filepath.Join(tmp, "cooldown.json"))

	code, stdout, stderr := sb.guard("run", "--", "echo", "ran")
	if code != 0 || stdout != "ran\n" || !strings.Contains(stderr, "refusing to follow a symlink another user owns") {
		t.Errorf("guard run: exit %d, stdout %q, stderr %q; want the command run unguarded with a warning", code, stdout, stderr)
	}
	code, _, stderr = sb.guard("cooldown", "record", "web", "restart")
	if code == 0 || !strings.Contains(stderr, "refusing to follow") {
		t.Errorf("cooldown record: exit %d, stderr %q; want it refused", code, stderr)
	}
	if data, _ := os.ReadFile(victim); string(data) != "precious = true\n" {
		t.Errorf("the link's target was changed: %q", data)
	}
	for _, p := range []string{victim + ".lock", victim + ".runs"} {
		if exists(p) {
			t.Errorf("%s was created beside the link's target", p)
		}
	}
	if matches, _ := filepath.Glob(victim + ".corrupt-*"); len(matches) > 0 {
		t.Errorf("the link's target was quarantined: %q", matches)
	}

	// A link of our own, or of the directory's owner, is followed as ever.
	own := filepath.Join(tmp, "mine.json")
	os.Symlink(sb.path("real.json"), own)
	sb.env = append(sb.env, "GUARD_STATE="+own)
	if code, _, stderr := sb.guard("run", "--", "true"); code != 0 || stderr != "" {
		t.Errorf("guard run through our own link: exit %d, stderr %q", code, stderr)
	}
	if !exists(sb.path("real.json")) {
		t.Error("our own link was not followed")
	}
}

// TestPlantedSymlinksBesideTheStateAreRefused covers hostile-user-2 M5:
// the files guard keeps beside a state in a sticky world-writable
// directory follow the state's rule. Another user's symlink at the event
// log, the lock, the slot directory or the quarantine file, or at a
// directory on the way to the state, is never followed: root writes
// nothing through it, and the hook still runs.
func TestPlantedSymlinksBesideTheStateAreRefused(t *testing.T) {
	needRoot(t)
	for _, tc := range []struct {
		name, link string // link: the name planted in the sticky directory
		dir        bool   // a link to a directory
		state      string // the state path, in the sticky directory
	}{
		{"event log", "state.events.jsonl", false, "state.json"},
		{"lock", "state.json.lock", false, "state.json"},
		{"slot directory", "state.json.runs", true, "state.json"},
		{"quarantine", "state.json.quarantine", false, "state.json"},
		{"directory on the way", "dirlink", true, "dirlink/state.json"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sb := newSandbox(t, "")
			tmp := sb.path("tmp")
			os.Mkdir(tmp, 0o777)
			os.Chmod(tmp, 0o777|os.ModeSticky)
			victim := sb.path("victim")
			if tc.dir {
				os.Mkdir(victim, 0o755)
			} else {
				os.WriteFile(victim, []byte("precious\n"), 0o644)
			}
			link := filepath.Join(tmp, tc.link)
			if err := os.Symlink(victim, link); err != nil {
				t.Fatal(err)
			}
			os.Lchown(link, otherUID, otherGID)
			state := filepath.Join(tmp, tc.state)
			if !strings.Contains(tc.state, "/") {
				// An entry that is set aside makes guard write the quarantine.
				os.WriteFile(state, []byte(`{"hooks":{"k":{"state":"bogus"}}}`), 0o600)
			}
			sb.env = append(sb.env, "GUARD_STATE="+state)

			code, stdout, stderr := sb.guard("run", "--name", "k", "--", "sh", "-c", "echo ran; exit 1")
			if code != 1 || stdout != "ran\n" {
				t.Errorf("guard run: exit %d, stdout %q; want the hook run with its own status", code, stdout)
			}
			// The warning says why, as guard log does (h13 M5): never the
			// kernel's "permission denied" for an O_CREAT open of the link.
			// (The slot directory is used only with max_concurrent.)
			if tc.link != "state.json.runs" && (!strings.Contains(stderr, "refusing to follow a symlink") || strings.Contains(stderr, "permission denied")) {
				t.Errorf("guard run's warning = %q; want it to say the link was refused", stderr)
			}
			if tc.dir {
				if entries, _ := os.ReadDir(victim); len(entries) > 0 {
					t.Errorf("root created %d files in the link's target directory", len(entries))
				}
			} else if data, _ := os.ReadFile(victim); string(data) != "precious\n" {
				t.Errorf("root wrote through the link: %q", data)
			}
		})
	}
}

// TestRootCreatedEventLogIsTheUsers covers hostile-user-2 m1: an event log
// root creates for a user's state is the user's, as the lock and the slot
// files are, so that the user's own guard can go on writing it.
func TestRootCreatedEventLogIsTheUsers(t *testing.T) {
	needRoot(t)
	sb := newSandbox(t, "")
	dir := sb.path("user")
	os.Mkdir(dir, 0o755)
	os.Chown(dir, otherUID, otherGID)
	state := filepath.Join(dir, "s.json")
	sb.env = append(sb.env, "GUARD_STATE="+state)
	if code, _, stderr := sb.guard("run", "--", "true"); code != 0 {
		t.Fatalf("guard run: exit %d: %s", code, stderr)
	}
	if uid, gid := owner(t, filepath.Join(dir, "s.events.jsonl")); uid != otherUID || gid != otherGID {
		t.Errorf("the event log root created is owned by %d:%d; want the user's %d:%d", uid, gid, otherUID, otherGID)
	}
}

// TestPlantedSymlinkAtAnOutputIsRefused covers h13 M5: the commands that
// write a file a user names (state export, cooldown export, report
// --output in every format, html included) follow the state's rule: root
// writes nothing through another user's symlink in a sticky
// world-writable directory, at the file or on the way to it, and says so.
// A link of our own is followed as ever.
func TestPlantedSymlinkAtAnOutputIsRefused(t *testing.T) {
	needRoot(t)
	sb := newSandbox(t, "")
	if code, _, stderr := sb.guard("run", "--name", "k", "--", "true"); code != 0 {
		t.Fatalf("guard run: exit %d: %s", code, stderr)
	}
	if code, _, stderr := sb.guard("cooldown", "record", "web", "restart"); code != 0 {
		t.Fatalf("cooldown record: exit %d: %s", code, stderr)
	}
	st := sb.path("st")
	os.Mkdir(st, 0o777)
	os.Chmod(st, 0o777|os.ModeSticky)
	victim := sb.path("shadow")
	os.WriteFile(victim, []byte("secret\n"), 0o600)
	victimDir := sb.path("etc")
	os.Mkdir(victimDir, 0o755)
	plant := func(name, target string) string {
		t.Helper()
		link := filepath.Join(st, name)
		os.Remove(link)
		if err := os.Symlink(target, link); err != nil {
			t.Fatal(err)
		}
		if err := os.Lchown(link, otherUID, otherGID); err != nil {
			t.Fatal(err)
		}
		return link
	}
	for _, args := range [][]string{
		{"state", "export", "OUT"},
		{"cooldown", "export", "OUT"},
		{"report", "--output", "OUT"},
		{"report", "--format", "json", "--output", "OUT"},
		{"report", "--format", "markdown", "--output", "OUT"},
		{"report", "--format", "prometheus", "--output", "OUT"},
		{"report", "--format", "html", "--output", "OUT"},
	} {
		for _, via := range []string{"file", "directory"} {
			out := plant("out", victim)
			if via == "directory" {
				out = filepath.Join(plant("dir", victimDir), "out")
			}
			argv := append([]string(nil), args...)
			argv[len(argv)-1] = out
			code, _, stderr := sb.guard(argv...)
			if code != 1 || !strings.Contains(stderr, "refusing to follow a symlink another user owns") {
				t.Errorf("guard %s through a planted link to a %s: exit %d, stderr %q; want it refused (exit 1)", strings.Join(args[:len(args)-1], " "), via, code, stderr)
			}
			if data, _ := os.ReadFile(victim); string(data) != "secret\n" {
				t.Fatalf("guard %s wrote through the link: %q", strings.Join(args, " "), data)
			}
			if entries, _ := os.ReadDir(victimDir); len(entries) > 0 {
				t.Fatalf("guard %s created %d files in the link's target directory", strings.Join(args, " "), len(entries))
			}
		}
	}

	// Our own link is followed, and stays a link.
	mine := filepath.Join(st, "mine.json")
	os.Symlink(sb.path("real.json"), mine)
	if code, _, stderr := sb.guard("state", "export", mine); code != 0 {
		t.Fatalf("state export through our own link: exit %d: %s", code, stderr)
	}
	if fi, err := os.Lstat(mine); err != nil || fi.Mode()&os.ModeSymlink == 0 || !exists(sb.path("real.json")) {
		t.Errorf("our own link was not followed: %v", err)
	}
}

// TestPlantedSymlinkAtSettingsIsRefused covers h21 N1: install and
// uninstall (--dry-run too) follow the rule of every file guard writes for
// the settings file they rewrite: another user's symlink in a sticky
// world-writable directory, at the file or at a directory on the way to it,
// is refused (exit 1) with the link and the reason, and nothing is read to
// be rewritten, written or backed up through it. The state that install
// moves off the Python wrapper keeps the state's rule. Our own link, and
// the directory owner's, are followed as ever, and stay links.
func TestPlantedSymlinkAtSettingsIsRefused(t *testing.T) {
	needRoot(t)
	const bare = `{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"echo hi"}]}]}}` + "\n"
	const wrapped = `{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"guard run -c 'echo hi'"}]}]}}` + "\n"
	for _, tc := range []struct {
		verb, doc string
		dryRun    bool
		dir       bool // the planted link is a directory on the way
	}{
		{"install", bare, false, false},
		{"install", bare, false, true},
		{"install", bare, true, false},
		{"uninstall", wrapped, false, false},
		{"uninstall", wrapped, false, true},
		{"uninstall", wrapped, true, true},
	} {
		name := tc.verb
		if tc.dryRun {
			name += " --dry-run"
		}
		if tc.dir {
			name += " through a directory"
		}
		t.Run(name, func(t *testing.T) {
			sb := newSandbox(t, "")
			st := sb.path("st")
			os.Mkdir(st, 0o777)
			os.Chmod(st, 0o777|os.ModeSticky)
			victimDir := sb.path("victim")
			os.Mkdir(victimDir, 0o755)
			victim := filepath.Join(victimDir, "settings.json")
			os.WriteFile(victim, []byte(tc.doc), 0o644)
			link, target, settings := filepath.Join(st, "settings.json"), victim, filepath.Join(st, "settings.json")
			if tc.dir {
				link, target, settings = filepath.Join(st, "dl"), victimDir, filepath.Join(st, "dl", "settings.json")
			}
			if err := os.Symlink(target, link); err != nil {
				t.Fatal(err)
			}
			if err := os.Lchown(link, otherUID, otherGID); err != nil {
				t.Fatal(err)
			}
			args := []string{tc.verb, "--settings", settings}
			if tc.verb == "install" {
				args = append(args, "--binary", "guard")
			}
			if tc.dryRun {
				args = append(args, "--dry-run")
			}
			code, stdout, stderr := sb.guard(args...)
			if code != 1 || !strings.Contains(stderr, link+" (owned by uid 65534): refusing to follow a symlink another user owns in a sticky world-writable directory") {
				t.Errorf("guard %s: exit %d, stderr %q; want it refused (exit 1), naming the link", strings.Join(args, " "), code, stderr)
			}
			if stdout != "" {
				t.Errorf("guard %s read through the link: stdout %q", strings.Join(args, " "), stdout)
			}
			if data, _ := os.ReadFile(victim); string(data) != tc.doc {
				t.Errorf("written through the link: %q", data)
			}
			if entries, _ := os.ReadDir(victimDir); len(entries) != 1 {
				t.Errorf("%d files beside the link's target; want only it (no backup)", len(entries))
			}
		})
	}

	t.Run("own links", func(t *testing.T) {
		sb := newSandbox(t, "")
		st := sb.path("st")
		os.Mkdir(st, 0o777)
		os.Chmod(st, 0o777|os.ModeSticky)
		real := sb.path("dotfiles.json")
		os.WriteFile(real, []byte(bare), 0o644)
		for _, owner := range []string{"ours", "the directory's"} {
			if owner == "the directory's" {
				os.Chown(st, otherUID, otherGID)
			}
			mine := filepath.Join(st, "settings.json")
			os.Remove(mine)
			os.Symlink(real, mine)
			if owner == "the directory's" {
				os.Lchown(mine, otherUID, otherGID)
			}
			for _, verb := range []string{"install", "uninstall"} {
				if code, _, stderr := sb.guard(verb, "--settings", mine); code != 0 {
					t.Fatalf("guard %s through %s link: exit %d: %s", verb, owner, code, stderr)
				}
				if fi, err := os.Lstat(mine); err != nil || fi.Mode()&os.ModeSymlink == 0 {
					t.Errorf("guard %s replaced %s link: %v", verb, owner, err)
				}
			}
			if data, _ := os.ReadFile(real); string(data) != bare {
				t.Errorf("after install and uninstall through %s link: %q; want the bytes back", owner, data)
			}
			if backups, _ := filepath.Glob(real + ".bak-*"); len(backups) == 0 {
				t.Errorf("no backup beside the link's target through %s link", owner)
			}
		}
	})

	t.Run("moved state", func(t *testing.T) {
		sb := newSandbox(t, "")
		st := sb.path("st")
		os.Mkdir(st, 0o777)
		os.Chmod(st, 0o777|os.ModeSticky)
		victim := sb.path("victim.json")
		const state = `{"hooks":{"lint":{"state":"open"}}}` + "\n"
		os.WriteFile(victim, []byte(state), 0o644)
		link := filepath.Join(st, "hook_state.json")
		os.Symlink(victim, link)
		os.Lchown(link, otherUID, otherGID)
		sb.env = append(sb.env, "GUARD_STATE="+link)
		settings := sb.path("settings.json")
		os.WriteFile(settings, []byte(`{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"python3 /opt/g/circuit_breaker_wrapper.py -- python3 lint.py"}]}]}}`), 0o644)
		for _, verb := range []string{"install", "uninstall"} {
			code, _, stderr := sb.guard(verb, "--settings", settings)
			if code != 0 || !strings.Contains(stderr, "state was not moved") || !strings.Contains(stderr, "refusing to follow a symlink another user owns") {
				t.Errorf("guard %s: exit %d, stderr %q; want the settings rewritten and the state left, saying why", verb, code, stderr)
			}
			if data, _ := os.ReadFile(victim); string(data) != state {
				t.Fatalf("guard %s wrote the state through the link: %q", verb, data)
			}
		}
		if beside, _ := filepath.Glob(victim + "?*"); len(beside) > 0 {
			t.Errorf("files made beside the link's target: %q", beside)
		}
	})
}

// Root gives a file or directory it made for a user's state to the user
// only where the user could have made it: in a directory of theirs, or a
// sticky world-writable one. A guardrails.yaml the user controls cannot
// get root to hand them an event log, or a directory, in a directory of
// root's (such as /etc): those stay root's (review of n5d).
func TestRootGivesAwayOnlyWhereTheUserCouldHaveMadeIt(t *testing.T) {
	needRoot(t)
	sb := newSandbox(t, "")
	dir := sb.path("user")
	os.Mkdir(dir, 0o755)
	os.Chown(dir, otherUID, otherGID)
	state := filepath.Join(dir, "state.json")
	os.WriteFile(state, []byte("{}\n"), 0o600)
	os.Chown(state, otherUID, otherGID)
	rootDir := sb.path("etc") // root's, as the sandbox is
	os.Mkdir(rootDir, 0o755)
	events := filepath.Join(rootDir, "made", "events.jsonl")
	os.WriteFile(sb.path("guardrails.yaml"), []byte("logging:\n  event_log: "+events+"\n"), 0o600)
	sb.env = append(sb.env, "GUARD_STATE="+state)
	if code, _, _ := sb.guard("run", "--name", "k", "--", "true"); code != 0 {
		t.Fatalf("guard run: exit %d", code)
	}
	for _, p := range []string{filepath.Dir(events), events} {
		if uid, _ := owner(t, p); uid != 0 {
			t.Errorf("%s, in root's directory, was given to %d; want root's", p, uid)
		}
	}

	// In a sticky world-writable directory of the user's, where the user
	// could have made it, the lock root creates beside the user's state is
	// theirs. (In one of root's, such as /tmp, root refuses a user's state
	// as another user's file: see foreign_test.go.)
	tmp := sb.path("tmp")
	os.Mkdir(tmp, 0o777)
	os.Chmod(tmp, 0o777|os.ModeSticky)
	os.Chown(tmp, otherUID, otherGID)
	shared := filepath.Join(tmp, "s.json")
	os.WriteFile(shared, []byte("{}\n"), 0o600)
	os.Chown(shared, otherUID, otherGID)
	os.WriteFile(sb.path("guardrails.yaml"), nil, 0o600)
	sb.env = append(sb.env, "GUARD_STATE="+shared)
	if code, _, stderr := sb.guard("run", "--", "true"); code != 0 || stderr != "" {
		t.Fatalf("guard run: exit %d: %s", code, stderr)
	}
	if uid, _ := owner(t, shared+".lock"); uid != otherUID {
		t.Errorf("the lock beside the user's state in a sticky directory is owned by %d; want the user's", uid)
	}
}
