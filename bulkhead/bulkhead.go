// Package bulkhead limits how many runs of one key go on at once, across
// processes, and keeps the list of runs in flight that 'guard status' shows.
//
// Each run holds an flock on a slot file in a directory beside the state
// file ("<state>.runs"). A key with a limit of N has N slot files; a run
// takes any free one, or waits for one up to its queue timeout. A key with
// no limit gets a slot file of its own, named after the process, which is
// removed when the run ends. The kernel releases a slot when its holder
// dies, however it dies, so a crash can never leak one.
//
// A slot file holds a line of JSON about the run that holds it (key, PIDs,
// start time, deadline), written without fsync: it describes only the
// present, and is emptied when the slot is released. List reads these
// records without locking anything, so that 'guard status' can never make
// a caller think a slot is taken, and it trusts a record only while the
// guard process it names (PID and start time) is alive.
//
// Limits: the lock is released when guard's process ends, even if the child
// it started is still running (guard was SIGKILLed); from then on that
// child no longer counts against the limit.
package bulkhead

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
	"syscall"
	"time"

	"guard/statefile"
)

// ErrFull is returned by Acquire when every slot stayed taken.
var ErrFull = errors.New("every concurrency slot is taken")

// Dir returns the slot directory for the state file at statePath.
func Dir(statePath string) string { return statePath + ".runs" }

// A Run describes a run in flight.
type Run struct {
	Key string `json:"key"`
	PID int    `json:"pid"` // guard's
	// StartTicks is guard's process start time (see supervise.StartTime),
	// so that a record left by a dead guard is not taken for a live one.
	StartTicks uint64    `json:"start_ticks,omitempty"`
	ChildPID   int       `json:"child_pid,omitempty"` // the command's, once started
	Started    time.Time `json:"started"`
	Deadline   time.Time `json:"deadline,omitzero"` // zero: no timeout
	Slot       string    `json:"-"`
}

// A Slot is a place held for one run.
type Slot struct {
	f    *os.File
	own  bool // a per-process slot, removed on release
	path string
	run  Run
}

// keyHash names a key's slot files. 64 bits of FNV-1a keep names short and
// apart for any number of keys a machine will see; crypto/sha256 would
// cost every guard run its package set-up for no gain.
func keyHash(key string) string {
	h := fnv.New64a()
	h.Write([]byte(key))
	return fmt.Sprintf("%016x", h.Sum64())
}

// Acquire takes a slot for run.Key in dir. With limit 0 the key is
// unlimited and the run gets a slot of its own. Otherwise it takes one of
// limit slots, retrying until wait has passed, and returns ErrFull if none
// freed up.
func Acquire(dir string, limit int, wait time.Duration, run Run) (*Slot, error) {
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, os.ErrExist) {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return nil, fmt.Errorf("cannot create slot directory: %w", err)
		}
	}
	prefix := filepath.Join(dir, keyHash(run.Key))
	if limit <= 0 {
		path := fmt.Sprintf("%s-p%d.slot", prefix, run.PID)
		s, ok, err := try(path, run)
		if err == nil && !ok {
			err = fmt.Errorf("slot %s is locked by another process", path)
		}
		if err != nil {
			return nil, err
		}
		s.own = true
		return s, nil
	}
	deadline := time.Now().Add(wait)
	nap := time.Millisecond
	first := rand.N(limit) // spread callers over the slots
	for {
		for i := range limit {
			path := fmt.Sprintf("%s-%d.slot", prefix, (first+i)%limit)
			s, ok, err := try(path, run)
			if err != nil {
				return nil, err
			}
			if ok {
				return s, nil
			}
		}
		left := time.Until(deadline)
		if left <= 0 {
			return nil, ErrFull
		}
		time.Sleep(min(left, nap/2+rand.N(nap)))
		nap = min(2*nap, 50*time.Millisecond)
	}
}

// try locks the slot file at path without waiting.
func try(path string, run Run) (*Slot, bool, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, false, fmt.Errorf("cannot open slot: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, false, nil
		}
		return nil, false, fmt.Errorf("cannot lock slot: %w", err)
	}
	s := &Slot{f: f, path: path, run: run}
	s.write()
	return s, true, nil
}

// write records the slot's run in its file, for List. It is best effort:
// the record is for display only.
func (s *Slot) write() {
	var b bytes.Buffer
	w := statefile.NewObjectWriter(&b, "", true)
	w.String("key", s.run.Key)
	w.Int("pid", int64(s.run.PID))
	if s.run.StartTicks != 0 {
		w.Int("start_ticks", int64(s.run.StartTicks))
	}
	if s.run.ChildPID != 0 {
		w.Int("child_pid", int64(s.run.ChildPID))
	}
	w.String("started", s.run.Started.UTC().Format(time.RFC3339Nano))
	if !s.run.Deadline.IsZero() {
		w.String("deadline", s.run.Deadline.UTC().Format(time.RFC3339Nano))
	}
	w.Close()
	data := append(b.Bytes(), '\n')
	_ = s.f.Truncate(0)
	_, _ = s.f.WriteAt(data, 0)
}

// Started records the PID of the run's child.
func (s *Slot) Started(childPID int) {
	s.run.ChildPID = childPID
	s.write()
}

// Release frees the slot.
func (s *Slot) Release() {
	if s.own {
		// Unlink while still locked, so nobody takes a file on its way out.
		_ = os.Remove(s.path)
	} else {
		_ = s.f.Truncate(0)
	}
	_ = s.f.Close()
}

// List returns the runs in flight in dir, oldest first. alive reports
// whether a guard process (PID and start ticks) still runs. Records of dead
// guards are skipped, and their per-process slot files removed.
func List(dir string, alive func(pid int, startTicks uint64) bool) ([]Run, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var runs []Run
	for _, e := range entries {
		name := e.Name()
		if !strings.HasSuffix(name, ".slot") {
			continue
		}
		path := filepath.Join(dir, name)
		data, err := os.ReadFile(path)
		if err != nil || len(bytes.TrimSpace(data)) == 0 {
			continue // free, or its holder is still writing it
		}
		var r Run
		if json.Unmarshal(bytes.TrimSpace(data), &r) != nil {
			continue
		}
		if !alive(r.PID, r.StartTicks) {
			if isOwnSlot(name) {
				_ = os.Remove(path)
			}
			continue
		}
		r.Slot = name
		runs = append(runs, r)
	}
	sort.Slice(runs, func(i, j int) bool { return runs[i].Started.Before(runs[j].Started) })
	return runs, nil
}

// isOwnSlot reports whether name is a per-process slot file.
func isOwnSlot(name string) bool {
	base := strings.TrimSuffix(name, ".slot")
	i := strings.LastIndex(base, "-p")
	if i < 0 {
		return false
	}
	_, err := strconv.Atoi(base[i+2:])
	return err == nil
}
