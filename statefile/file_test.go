package statefile

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"guard/internal/atomicfile"
	"guard/internal/jsonx"
)

type counter struct {
	N     int         `json:"n"`
	Extra jsonx.Extra `json:"-"`
}

func (c *counter) UnmarshalJSON(b []byte) error {
	type plain counter
	return jsonx.UnmarshalObject(b, (*plain)(c), &c.Extra)
}

func (c counter) MarshalJSON() ([]byte, error) {
	type plain counter
	return jsonx.MarshalObject(plain(c), c.Extra)
}

func increment(c *counter) (bool, error) {
	c.N++
	return true, nil
}

func open(t *testing.T, path string) *File {
	t.Helper()
	f, err := Open(path, Options{LockTimeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func readCounter(t *testing.T, path string) counter {
	t.Helper()
	var c counter
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &c); err != nil {
		t.Fatalf("state file does not parse: %v\n%s", err, data)
	}
	return c
}

func mode(t *testing.T, path string) os.FileMode {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Mode().Perm()
}

func TestUpdateCreatesFileAndLock(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "dir", "state.json")
	f := open(t, path)
	if err := Update(f, increment); err != nil {
		t.Fatal(err)
	}
	if c := readCounter(t, path); c.N != 1 {
		t.Errorf("n = %d; want 1", c.N)
	}
	if m := mode(t, path); m != 0o600 {
		t.Errorf("state mode = %o; want 600", m)
	}
	if m := mode(t, path+".lock"); m != 0o600 {
		t.Errorf("lock mode = %o; want 600", m)
	}
	if m := mode(t, filepath.Dir(path)); m != 0o700 {
		t.Errorf("dir mode = %o; want 700", m)
	}
	data, _ := os.ReadFile(path)
	if want := "{\n  \"n\": 1\n}\n"; string(data) != want {
		t.Errorf("file = %q; want %q", data, want)
	}
}

func TestUpdateKeepsModeAndLock(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.json")
	if err := os.WriteFile(path, []byte(`{"n": 5}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	f := open(t, path)
	for range 2 {
		if err := Update(f, increment); err != nil {
			t.Fatal(err)
		}
	}
	if c := readCounter(t, path); c.N != 7 {
		t.Errorf("n = %d; want 7", c.N)
	}
	if m := mode(t, path); m != 0o644 {
		t.Errorf("mode = %o; want 644 kept", m)
	}
	if _, err := os.Stat(path + ".lock"); err != nil {
		t.Errorf("lock file gone after unlock: %v", err)
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 2 {
		t.Errorf("directory holds %d entries; want state and lock only: %v", len(entries), entries)
	}
}

func TestUpdateWithoutChangeDoesNotWrite(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.json")
	f := open(t, path)
	err := Update(f, func(c *counter) (bool, error) { return false, nil })
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Stat = %v; want no file written", err)
	}
}

func TestUpdateErrorDoesNotWrite(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.json")
	os.WriteFile(path, []byte(`{"n":1}`), 0o600)
	f := open(t, path)
	boom := errors.New("boom")
	err := Update(f, func(c *counter) (bool, error) { c.N = 99; return true, boom })
	if !errors.Is(err, boom) {
		t.Fatalf("Update = %v; want boom", err)
	}
	if c := readCounter(t, path); c.N != 1 {
		t.Errorf("n = %d; want 1 untouched", c.N)
	}
}

func TestSymlinkedPathIsResolved(t *testing.T) {
	realDir, linkDir := t.TempDir(), t.TempDir()
	real := filepath.Join(realDir, "state.json")
	link := filepath.Join(linkDir, "state.json")
	if err := os.Symlink(real, link); err != nil { // dangling until the first write
		t.Fatal(err)
	}
	f := open(t, link)
	if f.Path() != real {
		t.Errorf("Path = %s; want %s", f.Path(), real)
	}
	for range 2 {
		if err := Update(f, increment); err != nil {
			t.Fatal(err)
		}
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("link was replaced: %v %v", fi, err)
	}
	if c := readCounter(t, real); c.N != 2 {
		t.Errorf("n = %d; want 2", c.N)
	}
	if _, err := os.Stat(real + ".lock"); err != nil {
		t.Errorf("lock not beside the real file: %v", err)
	}
	if _, err := os.Lstat(link + ".lock"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("lock beside the link: %v", err)
	}
}

func TestCorruptFileIsQuarantined(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "state.json")
	garbage := []byte("{\"n\": 3, truncated")
	os.WriteFile(path, garbage, 0o600)

	now := time.Date(2026, 2, 10, 23, 35, 42, 0, time.UTC)
	var moved []string
	f, err := Open(path, Options{
		Now:          func() time.Time { return now },
		OnQuarantine: func(to string, cause error) { moved = append(moved, to) },
	})
	if err != nil {
		t.Fatal(err)
	}

	var c counter
	if _, err := Load(f, &c); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("Load = %v; want ErrCorrupt", err)
	}
	if err := Update(f, increment); err != nil {
		t.Fatal(err)
	}
	want := path + ".corrupt-20260210T233542Z"
	if len(moved) != 1 || moved[0] != want {
		t.Fatalf("quarantined to %v; want %s", moved, want)
	}
	if got, _ := os.ReadFile(want); string(got) != string(garbage) {
		t.Errorf("quarantined bytes = %q; want the original", got)
	}
	if c := readCounter(t, path); c.N != 1 {
		t.Errorf("n = %d; want a fresh start at 1", c.N)
	}

	// A second corruption in the same second gets its own name.
	os.WriteFile(path, []byte("[]"), 0o600)
	if err := Update(f, increment); err != nil {
		t.Fatal(err)
	}
	if len(moved) != 2 || moved[1] != want+"-2" {
		t.Errorf("second quarantine to %v; want %s-2", moved, want)
	}
	if got, _ := os.ReadFile(want); string(got) != string(garbage) {
		t.Error("first quarantined file was overwritten")
	}
}

func TestEmptyFileIsEmptyState(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.json")
	os.WriteFile(path, []byte(" \n"), 0o600)
	f := open(t, path)
	var c counter
	if ok, err := Load(f, &c); ok || err != nil {
		t.Errorf("Load = %v, %v; want false, nil", ok, err)
	}
	if err := Update(f, increment); err != nil {
		t.Fatal(err)
	}
	matches, _ := filepath.Glob(path + ".corrupt-*")
	if len(matches) != 0 {
		t.Errorf("empty file was quarantined: %v", matches)
	}
}

// A file that starts with a UTF-8 byte order mark (n5c) is read past it by
// every reader: Read, Load, ReadLocked, Swap and Update, which writes the
// document back without one and moves nothing aside. A file of a mark
// alone is no document.
func TestByteOrderMarkIsReadPast(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.json")
	os.WriteFile(path, []byte("\xef\xbb\xbf{\"n\": 41, \"kept\": true}\n"), 0o600)
	f := open(t, path)
	for name, read := range map[string]func() ([]byte, error){"Read": f.Read, "ReadLocked": f.ReadLocked} {
		if data, err := read(); err != nil || !strings.HasPrefix(string(data), "{") {
			t.Errorf("%s = %q, %v; want the document without the mark", name, data, err)
		}
	}
	var c counter
	if ok, err := Load(f, &c); !ok || err != nil || c.N != 41 {
		t.Errorf("Load = %v, %v, n %d; want true, nil, 41", ok, err, c.N)
	}
	if err := f.Swap(func(old []byte) ([]byte, error) {
		if !strings.HasPrefix(string(old), "{") {
			t.Errorf("Swap gave %q; want the document without the mark", old)
		}
		return old, nil
	}); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(path, []byte("\xef\xbb\xbf{\"n\": 41, \"kept\": true}\n"), 0o600)
	if err := Update(f, increment); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	if strings.HasPrefix(string(data), "\xef\xbb\xbf") {
		t.Errorf("Update wrote a byte order mark: %q", data)
	}
	if c := readCounter(t, path); c.N != 42 || !strings.Contains(string(data), `"kept": true`) {
		t.Errorf("after Update: %s; want n 42 and the member kept", data)
	}
	if matches, _ := filepath.Glob(path + ".corrupt-*"); len(matches) != 0 {
		t.Errorf("a file with a byte order mark was moved aside: %v", matches)
	}
	os.WriteFile(path, []byte("\xef\xbb\xbf\n"), 0o600)
	if ok, err := Load(f, &c); ok || err != nil {
		t.Errorf("Load of a mark alone = %v, %v; want false, nil", ok, err)
	}
}

func TestLockTimesOut(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.json")
	holder := open(t, path)
	unlock, err := holder.Lock()
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()

	f, _ := Open(path, Options{LockTimeout: 50 * time.Millisecond})
	err = Update(f, increment)
	if !errors.Is(err, ErrLockTimeout) {
		t.Fatalf("Update while locked = %v; want ErrLockTimeout", err)
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Error("state written without the lock")
	}
}

func TestFailedReplaceLeavesNoTempFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "state.json")
	if err := os.Mkdir(path, 0o700); err != nil { // rename over a directory fails
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(path, "x"), nil, 0o600)
	f := open(t, path)
	if err := f.replace([]byte("{}")); err == nil {
		t.Fatal("replace over a non-empty directory succeeded")
	}
	tmps, _ := filepath.Glob(filepath.Join(dir, ".state.json.tmp*"))
	if len(tmps) != 0 {
		t.Errorf("temp files left behind: %v", tmps)
	}
}

func TestTempFileOfADeadWriterIsReplaced(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "state.json")
	// A writer killed before its rename left its temp file.
	os.WriteFile(filepath.Join(dir, ".state.json.tmp"), []byte(`{"n": 99, "half`), 0o644)
	f := open(t, path)
	if err := Update(f, increment); err != nil {
		t.Fatal(err)
	}
	if c := readCounter(t, path); c.N != 1 {
		t.Errorf("n = %d; want 1", c.N)
	}
	if mode(t, path) != 0o600 {
		t.Errorf("mode %v; want 0600, not the leftover's", mode(t, path))
	}
	tmps, _ := filepath.Glob(filepath.Join(dir, ".state.json.tmp*"))
	if len(tmps) != 0 {
		t.Errorf("temp files left behind: %v", tmps)
	}
}

func TestUnknownFieldsSurvive(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.json")
	in := `{"n": 1, "zeta": {"deep": [1, 2.50, "x"]}, "alpha": null, "tool": "python"}`
	os.WriteFile(path, []byte(in), 0o600)
	f := open(t, path)
	if err := Update(f, increment); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	var got map[string]json.RawMessage
	json.Unmarshal(data, &got)
	for name, want := range map[string]string{"n": "2", "alpha": "null", "tool": `"python"`} {
		if string(got[name]) != want {
			t.Errorf("%s = %s; want %s", name, got[name], want)
		}
	}
	if !strings.Contains(string(got["zeta"]), "2.50") {
		t.Errorf("zeta = %s; want the number kept as written", got["zeta"])
	}
}

// TestManyProcessesLoseNoUpdate runs 16 processes that each increment one
// counter 200 times.
func TestManyProcessesLoseNoUpdate(t *testing.T) {
	procs, each := 16, 200
	if testing.Short() {
		each = 20
	}
	path := filepath.Join(t.TempDir(), "state.json")
	var wg sync.WaitGroup
	errs := make(chan error, procs)
	for range procs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cmd := exec.Command(os.Args[0], "-test.run=^TestChildIncrements$")
			cmd.Env = append(os.Environ(), "STATEFILE_CHILD_PATH="+path, "STATEFILE_CHILD_N="+strconv.Itoa(each))
			if out, err := cmd.CombinedOutput(); err != nil {
				errs <- fmt.Errorf("child: %v\n%s", err, out)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if c := readCounter(t, path); c.N != procs*each {
		t.Errorf("n = %d; want %d", c.N, procs*each)
	}
}

// TestChildIncrements is the child of TestManyProcessesLoseNoUpdate.
func TestChildIncrements(t *testing.T) {
	path := os.Getenv("STATEFILE_CHILD_PATH")
	if path == "" {
		t.Skip("run by TestManyProcessesLoseNoUpdate")
	}
	n, _ := strconv.Atoi(os.Getenv("STATEFILE_CHILD_N"))
	f, err := Open(path, Options{LockTimeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	for range n {
		var err error
		if os.Getenv("STATEFILE_CHILD_RELAXED") != "" {
			err = Update(f, incrementRelaxed)
		} else {
			err = Update(f, increment)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

// relaxedCounter is a counter whose updates are relaxed (see Relaxer).
type relaxedCounter struct{ counter }

func (*relaxedCounter) Relaxed() bool { return true }

func incrementRelaxed(c *relaxedCounter) (bool, error) { return increment(&c.counter) }

// A relaxed update skips the directory's fsync, and only that: the file's
// data is synced before the rename, so a crash of the machine leaves the
// old or the new file, never an empty one. Any other update syncs both.
// countSyncs counts the fsyncs of files and directories from now on, with
// renameKeepsData as keeps says.
func countSyncs(t *testing.T, keeps bool) (files, dirs *int) {
	files, dirs = new(int), new(int)
	syncDir = func(dir string) error { *dirs++; return nil }
	syncFile = func(f *os.File) error { *files++; return nil }
	savedKeeps, savedBarrier := renameKeepsData, barrierSync
	renameKeepsData = func(string, string) bool { return keeps }
	if barrierSync != nil {
		barrierSync = syncFile
	}
	t.Cleanup(func() {
		syncDir, syncFile = atomicfile.SyncDir, (*os.File).Sync
		renameKeepsData, barrierSync = savedKeeps, savedBarrier
	})
	return files, dirs
}

func TestRelaxedUpdateSkipsOnlyTheDirectorySync(t *testing.T) {
	fileSyncs, dirSyncs := countSyncs(t, false)
	path := filepath.Join(t.TempDir(), "state.json")
	f := open(t, path)
	if err := Update(f, increment); err != nil || *fileSyncs != 1 || *dirSyncs != 1 {
		t.Fatalf("a durable update: %v, %d file and %d directory syncs; want 1 and 1", err, *fileSyncs, *dirSyncs)
	}
	if err := Update(f, incrementRelaxed); err != nil || *fileSyncs != 2 || *dirSyncs != 1 {
		t.Fatalf("a relaxed update: %v, %d file and %d directory syncs; want 2 and 1", err, *fileSyncs, *dirSyncs)
	}
	if c := readCounter(t, path); c.N != 2 {
		t.Errorf("n = %d; want 2", c.N)
	}
}

// Where the filesystem orders a replacing rename after the new file's data
// (ext4's defaults), a relaxed update skips both fsyncs; a state change
// still makes both.
func TestRelaxedUpdateSkipsBothSyncsWhereRenameKeepsData(t *testing.T) {
	fileSyncs, dirSyncs := countSyncs(t, true)
	path := filepath.Join(t.TempDir(), "state.json")
	f := open(t, path)
	if err := Update(f, incrementRelaxed); err != nil || *fileSyncs != 0 || *dirSyncs != 0 {
		t.Fatalf("a relaxed update: %v, %d file and %d directory syncs; want none", err, *fileSyncs, *dirSyncs)
	}
	if err := Update(f, increment); err != nil || *fileSyncs != 1 || *dirSyncs != 1 {
		t.Fatalf("a durable update: %v, %d file and %d directory syncs; want 1 and 1", err, *fileSyncs, *dirSyncs)
	}
	if c := readCounter(t, path); c.N != 2 {
		t.Errorf("n = %d; want 2", c.N)
	}
}

func BenchmarkUpdate(b *testing.B) {
	f, _ := Open(filepath.Join(b.TempDir(), "state.json"), Options{})
	for b.Loop() {
		if err := Update(f, increment); err != nil {
			b.Fatal(err)
		}
	}
}
