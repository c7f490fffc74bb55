// Runs: the slots that limit how many runs of one key go on at once, across
// processes, and the list of runs in flight that 'guard status' shows.
//
// Each run holds an flock on a slot file in a directory beside the state
// file ("<state>.runs"). A key with a limit of N has N slot names of its
// own; a run takes any free one, or waits for one up to its queue timeout.
// A run of a key with no limit (most keys) takes the first free name of
// one pool that every such key shares ("run-0.slot", "run-1.slot", ...),
// adding one if none is free: there are never more of them than runs once
// went on at the same time, whatever the number of keys. The kernel
// releases a slot when its holder dies, however it dies, so a crash can
// never leak one.
//
// No key leaves a file of its own behind (scope: session makes a key per
// session). A limited key's slot file exists only while a run holds it:
// Release removes it, still holding its lock. A caller that opened the
// file just before it was removed finds, once it has the lock, that the
// name now leads elsewhere or nowhere, and tries again: two runs never
// hold one name. A pool file is kept for the next run of any key, its
// record blanked: creating and removing a file would cost every run about
// 0.1 ms on ext4, reusing one about a tenth of that. A file left by a
// guard that was killed is taken over by the next run that needs its
// name, and every file no run holds that is an hour old is removed by
// sweepRuns (the pool shrinks back after a burst); List skips a record
// whose holder is dead, and removes nothing: it never locks a slot, so
// that it can never make a caller think one taken.
//
// A slot file's first line is a line of JSON about the run that holds it
// (key, PIDs, start time, deadline), written without fsync: it describes
// only the present. List reads these records without locking anything, so
// that 'guard status' can never make a caller think a slot is taken, and
// it trusts a record only while the guard process it names (PID and start
// time) is alive.
//
// Slot files follow the state's rules: in a sticky world-writable
// directory, the slot directory may be neither another user's symlink nor
// another user's directory (a run of a max_concurrent key then warns and
// runs unguarded); a slot file is never a symlink (O_NOFOLLOW); and where
// someone other than us and root could have put files in the directory, a
// slot file of another user is never counted as a run in flight, nor
// listed (hostile-user-3 M2).
//
// Limits: the lock is released when guard's process ends, even if the child
// it started is still running (guard was SIGKILLed); from then on that
// child no longer counts against the limit.

package file

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"guard/internal/atomicfile"
	"guard/internal/jsonx"
	"guard/internal/safeopen"
	"guard/internal/store"
	"guard/internal/supervise"
	"guard/statefile"
)

// RunsDir returns the slot directory for the state file at statePath.
func RunsDir(statePath string) string { return statePath + ".runs" }

// statePath is the state file whose runs dir holds.
func statePath(dir string) string { return strings.TrimSuffix(dir, ".runs") }

// A slotRecord is the first line of a slot file: the run that holds it.
type slotRecord struct {
	Key  string `json:"key"`
	Host string `json:"host,omitempty"` // guard's host
	PID  int    `json:"pid"`            // guard's
	// StartTicks is guard's process start time (see supervise.StartTime),
	// so that a record left by a dead guard is not taken for a live one.
	StartTicks uint64 `json:"start_ticks,omitempty"`
	ChildPID   int    `json:"child_pid,omitempty"` // the command's, once started
	// ChildStart is the command's start time (see supervise.StartTime): a
	// record whose guard died while its command still runs keeps the slot
	// taken until the command ends (orphaned).
	ChildStart uint64    `json:"child_start,omitempty"`
	Started    time.Time `json:"started"`
	Deadline   time.Time `json:"deadline,omitzero"` // zero: no timeout
	Slot       string    `json:"-"`
}

// A slotFile is a slot held by one run.
type slotFile struct {
	f    *os.File
	path string
	run  slotRecord
	keep bool // a pool slot: blanked on release, not removed
}

// keyHash names a key's slot files. 64 bits of FNV-1a keep names short and
// apart for any number of keys a machine will see; crypto/sha256 would
// cost every guard run its package set-up for no gain.
func keyHash(key string) string {
	h := fnv.New64a()
	h.Write([]byte(key))
	return fmt.Sprintf("%016x", h.Sum64())
}

// maxUnlimited bounds the pool of slot files the runs of unlimited keys
// share: runs at once beyond it are not listed.
const maxUnlimited = 1024

// poolSlot is the name of the pool's slot i.
func poolSlot(dir string, i int) string { return filepath.Join(dir, "run-"+strconv.Itoa(i)+".slot") }

// acquire takes a slot for run.Key in dir. With limit 0 the key is
// unlimited and the run takes the first free slot, adding one if none is.
// Otherwise it takes one of limit slots, retrying until wait has passed,
// and returns store.ErrFull if none freed up.
func acquire(dir string, limit int, wait time.Duration, run slotRecord) (*slotFile, error) {
	return acquireOrStop(dir, limit, wait, run, nil)
}

// acquireOrStop is acquire, but while it waits for a slot it gives up with
// store.ErrStopped as soon as stop (if not nil) reports true: a run waiting in
// the queue that is sent SIGTERM ends at once, having run nothing.
func acquireOrStop(dir string, limit int, wait time.Duration, run slotRecord, stop func() bool) (*slotFile, error) {
	prefix := filepath.Join(dir, keyHash(run.Key))
	if limit <= 0 {
		// A pool slot that cannot be opened (another user's file, a
		// directory or a symlink at its name) is passed over, not the end
		// of the pool: every unlimited key shares it. A few in a row mean
		// the directory itself is the trouble.
		var failed error
		for i, bad := 0, 0; i < maxUnlimited && bad < 8; i++ {
			s, ok, err := try(dir, poolSlot(dir, i), run)
			var fileErr *slotFileError
			if err != nil && !errors.As(err, &fileErr) {
				return nil, err
			}
			if err != nil {
				failed = err
				bad++
				continue
			}
			if ok {
				s.keep = true
				return s, nil
			}
		}
		if failed != nil {
			return nil, failed
		}
		return nil, fmt.Errorf("%d runs are in flight already", maxUnlimited)
	}
	deadline := time.Now().Add(wait)
	nap := time.Millisecond
	first := rand.N(limit) // spread callers over the slots
	for {
		for i := range limit {
			s, ok, err := try(dir, prefix+"-"+strconv.Itoa((first+i)%limit)+".slot", run)
			if err != nil {
				return nil, err
			}
			if ok {
				return s, nil
			}
		}
		left := time.Until(deadline)
		if left <= 0 {
			return nil, store.ErrFull
		}
		if stop != nil && stop() {
			return nil, store.ErrStopped
		}
		time.Sleep(min(left, nap/2+rand.N(nap)))
		nap = min(2*nap, 50*time.Millisecond)
		if stop != nil && stop() {
			return nil, store.ErrStopped
		}
	}
}

// A slotFileError is try's failure to open or lock the one slot file it
// tried (its directory was fine): another user's file, a directory or a
// symlink at its name.
type slotFileError struct{ err error }

func (e *slotFileError) Error() string { return e.err.Error() }
func (e *slotFileError) Unwrap() error { return e.err }

// try locks the slot file at path without waiting, creating it (and dir)
// if need be. It reports false if the slot is taken.
func try(dir, path string, run slotRecord) (*slotFile, bool, error) {
	owners, err := slotDirOwners(dir)
	if err != nil {
		return nil, false, err
	}
	for {
		f, err := statefile.OpenFile(path, os.O_RDWR|os.O_CREATE|statefile.NoFollow, 0o600)
		if errors.Is(err, os.ErrNotExist) {
			if err := statefile.MkdirAll(dir, 0o700, statePath(dir)); err != nil {
				return nil, false, fmt.Errorf("cannot create slot directory: %w", err)
			}
			f, err = statefile.OpenFile(path, os.O_RDWR|os.O_CREATE|statefile.NoFollow, 0o600)
		}
		if err != nil {
			return nil, false, &slotFileError{fmt.Errorf("cannot open slot: %w", err)}
		}
		if owners.check {
			// Before its lock is tried: another user's file, flock'ed,
			// would count as a run in flight (hostile-user-3 M2).
			fi, err := f.Stat()
			if err == nil && !owners.ok(fi) {
				uid, _ := atomicfile.Owner(fi)
				err = &atomicfile.ForeignFileError{Path: path, UID: uid, In: "a slot directory others may write"}
			}
			if err != nil {
				f.Close()
				return nil, false, &slotFileError{fmt.Errorf("cannot use slot: %w", err)}
			}
		}
		if ok, err := tryLockFile(f); !ok {
			f.Close()
			if err == nil { // taken
				return nil, false, nil
			}
			return nil, false, &slotFileError{fmt.Errorf("cannot lock slot: %w", err)}
		}
		if !stillAt(f, path) {
			f.Close() // its holder released and removed it meanwhile
			continue
		}
		if orphaned(f, run.Host) {
			// Its guard was killed, but the command it ran still runs:
			// the slot is the command's until it ends (faults #2).
			f.Close()
			return nil, false, nil
		}
		statefile.GiveToOwnerOf(path, statePath(dir))
		s := &slotFile{f: f, path: path, run: run}
		s.write()
		return s, true, nil
	}
}

// slotOwners says whose slot files in a slot directory count.
type slotOwners struct {
	check bool   // someone other than us and root could have made files there
	dir   uint32 // the directory's owner, whose slot files count, as ours and root's do
}

// ok reports whether the slot file fi describes counts.
func (o slotOwners) ok(fi os.FileInfo) bool {
	uid, known := atomicfile.Owner(fi)
	return !o.check || !known || uid == 0 || int(uid) == os.Geteuid() || uid == o.dir
}

// slotDirOwners checks the slot directory dir by the state's rules (see
// statefile.CheckBeside: in a sticky world-writable directory, another
// user's symlink or directory there is refused) and says whose slot files
// in it count. A directory of ours or root's that no one else may write
// holds only files we trust, and costs no more look; one that another
// user owns (root runs for a user's state: the user's), or that others may
// write, has each slot file's owner checked.
func slotDirOwners(dir string) (slotOwners, error) {
	fi, err := statefile.CheckBeside(dir)
	if err != nil || fi == nil {
		return slotOwners{}, err // not there: made ours, 0700
	}
	if fi.Mode()&os.ModeSymlink != 0 {
		if fi, err = os.Stat(dir); err != nil {
			return slotOwners{}, nil // dangling: trying a slot says why
		}
	}
	uid, known := atomicfile.Owner(fi)
	if !known || ((uid == 0 || int(uid) == os.Geteuid()) && fi.Mode().Perm()&0o022 == 0) {
		return slotOwners{}, nil
	}
	return slotOwners{check: true, dir: uid}, nil
}

// orphaned reports whether the slot file f, whose lock its caller holds
// (so the guard its record names is gone), still names a command that
// runs: one on this host, alive, with the start time recorded for it (a
// zombie is dead; a PID reused since is another process).
func orphaned(f *os.File, host string) bool {
	var buf [512]byte
	n, _ := f.ReadAt(buf[:], 0)
	line, _, _ := bytes.Cut(buf[:n], []byte{'\n'})
	if len(bytes.TrimSpace(line)) == 0 {
		return false // free: released, or never used
	}
	var r slotRecord
	return json.Unmarshal(line, &r) == nil && r.orphaned(host)
}

// orphaned reports whether r, a record whose guard is gone, names a
// command on host that still runs.
func (r *slotRecord) orphaned(host string) bool {
	return r.ChildPID > 0 && (r.Host == "" || host == "" || r.Host == host) && supervise.Alive(r.ChildPID, r.ChildStart)
}

// stillAt reports whether the open file f is the file at path.
func stillAt(f *os.File, path string) bool {
	held, err1 := f.Stat()
	now, err2 := os.Lstat(path)
	return err1 == nil && err2 == nil && os.SameFile(held, now)
}

// write records the slot's run as the first line of its file, for List. It
// is best effort: the record is for display only.
func (s *slotFile) write() {
	var b bytes.Buffer
	w := jsonx.NewObjectWriter(&b, "", true)
	w.String("key", s.run.Key)
	if s.run.Host != "" {
		w.String("host", s.run.Host)
	}
	w.Int("pid", int64(s.run.PID))
	if s.run.StartTicks != 0 {
		w.Int("start_ticks", int64(s.run.StartTicks))
	}
	if s.run.ChildPID != 0 {
		w.Int("child_pid", int64(s.run.ChildPID))
	}
	if s.run.ChildStart != 0 {
		w.Int("child_start", int64(s.run.ChildStart))
	}
	w.String("started", s.run.Started.UTC().Format(time.RFC3339Nano))
	if !s.run.Deadline.IsZero() {
		w.String("deadline", s.run.Deadline.UTC().Format(time.RFC3339Nano))
	}
	w.Close()
	_, _ = s.f.WriteAt(append(b.Bytes(), '\n'), 0)
}

// Started records the PID of the run's child, and its start time.
func (s *slotFile) Started(childPID int) {
	s.run.ChildPID = childPID
	s.run.ChildStart, _ = supervise.StartTime(childPID)
	s.write()
}

// File returns a limited key's slot file, for its command to hold (see
// store.Held): its lock then lasts while anything the command started runs,
// also after guard is killed. A pool slot's is not handed on: it is kept
// for the next run, which a background process holding it would keep out.
func (s *slotFile) File() *os.File {
	if s.keep {
		return nil
	}
	return s.f
}

// Release frees the slot: a limited key's file is removed, a pool slot's
// record blanked (List takes an empty first line for a free slot); then
// its lock is let go.
func (s *slotFile) Release() {
	if s.keep {
		_, _ = s.f.WriteAt([]byte{'\n'}, 0)
	} else {
		_ = os.Remove(s.path)
	}
	_ = closeLocked(s.f)
}

// listRuns returns the runs in flight in dir, oldest first. alive reports
// whether a guard process (PID and start ticks) still runs; records of dead
// guards are skipped.
func listRuns(dir string, alive func(pid int, startTicks uint64) bool) ([]slotRecord, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	owners, err := slotDirOwners(dir)
	if err != nil {
		return nil, err
	}
	var runs []slotRecord
	for _, e := range entries {
		name := e.Name()
		if !strings.HasSuffix(name, ".slot") {
			continue
		}
		if owners.check {
			// Another user's file is no run in flight (hostile-user-3 M2).
			if fi, err := e.Info(); err != nil || !owners.ok(fi) {
				continue
			}
		}
		data, err := safeopen.ReadFile(filepath.Join(dir, name))
		if err != nil {
			continue
		}
		line, _, _ := bytes.Cut(data, []byte{'\n'})
		if len(bytes.TrimSpace(line)) == 0 {
			continue // free, or its holder is still writing it
		}
		var r slotRecord
		if json.Unmarshal(line, &r) != nil || !alive(r.PID, r.StartTicks) {
			continue
		}
		r.Slot = name
		runs = append(runs, r)
	}
	sort.Slice(runs, func(i, j int) bool { return runs[i].Started.Before(runs[j].Started) })
	return runs, nil
}

// Runs are the slot files in a directory, as a store.Runs.
type Runs struct {
	Dir  string
	Host string // this host, whose orphaned commands List can check
}

// Acquire takes a slot; see store.Runs.
func (s Runs) Acquire(r store.Run, limit int, wait time.Duration, stop func() bool) (store.Slot, error) {
	rec := slotRecord{
		Key: r.Key, Host: r.Holder.Host, PID: r.Holder.PID, StartTicks: r.Holder.Start,
		ChildPID: r.ChildPID, ChildStart: r.ChildStart, Started: r.Started, Deadline: r.Deadline,
	}
	if rec.ChildPID != 0 && rec.ChildStart == 0 {
		rec.ChildStart, _ = supervise.StartTime(rec.ChildPID)
	}
	slot, err := acquireOrStop(s.Dir, limit, wait, rec, stop)
	if err != nil {
		return nil, err
	}
	return slot, nil
}

// List returns the runs in flight; see store.Runs. A run whose guard is
// dead but whose command still runs on this host is listed too, marked
// Orphaned: it holds its slot until the command ends.
func (s Runs) List(alive func(store.Holder) bool) ([]store.Run, error) {
	runs, err := listRuns(s.Dir, func(pid int, start uint64) bool { return true })
	var out []store.Run
	for _, r := range runs {
		h := store.Holder{Host: r.Host, PID: r.PID, Start: r.StartTicks}
		live := alive(h)
		if live || r.orphaned(s.Host) {
			out = append(out, store.Run{Key: r.Key, Holder: h, ChildPID: r.ChildPID, ChildStart: r.ChildStart,
				Started: r.Started, Deadline: r.Deadline, Orphaned: !live})
		}
	}
	return out, err
}

// staleSlot is how old a slot file must be before sweepRuns looks at it.
const staleSlot = time.Hour

// sweepRuns removes the slot files in dir that no run holds and that are
// older than staleSlot: files left by guards that were killed, of keys that
// ran no more (a session's, say). The state's hourly sweep calls it. A
// file still held is left alone; so is a fresh one. The sweep holds a
// file's lock for the moment it takes to remove it: a run of that very key
// starting in that moment may find its slot taken.
func sweepRuns(dir string, now time.Time) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		path := filepath.Join(dir, e.Name())
		if fi, err := e.Info(); err != nil || !fi.Mode().IsRegular() || now.Sub(fi.ModTime()) < staleSlot ||
			!strings.HasSuffix(e.Name(), ".slot") {
			continue
		}
		f, err := statefile.OpenFile(path, os.O_RDWR|statefile.NoFollow, 0)
		if err != nil {
			continue
		}
		if ok, _ := tryLockFile(f); ok && stillAt(f, path) && !orphaned(f, "") {
			_ = os.Remove(path)
		}
		closeLocked(f)
	}
}
