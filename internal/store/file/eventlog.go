// The event log: guard's audit trail: an append-only JSON Lines file of
// everything guard decided, read back by 'guard log' and 'guard report'.
//
// Every event is one line. Appends are made by callers that hold their state
// file's lock, and the log's own flock (taken on the log file itself) makes
// each append, and any rotation, whole with respect to every other writer,
// even writers under another state file's lock that share the log. A line
// is written with a single write(2), so readers never see half of one.
//
// The log's lock is never waited on for ever: a holder that keeps it is
// stopped or stuck (a guard stopped with SIGSTOP, another tool that locked
// the file). An append waits up to LockTimeout for it, then gives up and
// its lines are left out (errLockBusy); an append under the state's lock
// only tries it, and what it could not write is appended once the state's
// lock is let go (stateFile.appendHeld), so that the state is never held
// while the log's lock is waited for.
//
// Rotation: when an append would take the log past MaxSize bytes, the log
// becomes "<log>.1", "<log>.1" becomes "<log>.2", and so on; MaxFiles
// rotated files are kept and the oldest is removed. A writer that was
// waiting for the lock while another rotated finds that the file it locked
// is no longer the log, and appends to the new one, so no line is lost or
// misplaced; Read merges every file in time order.
//
// Appends are not fsynced: the state file is the durable record, and the log
// explains it. A crash can lose the last lines, never corrupt earlier ones.
package file

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"syscall"
	"time"

	"guard/internal/atomicfile"
	"guard/internal/safeopen"
	"guard/internal/store"
	"guard/statefile"
)

// An EventLog is an event log file.
type EventLog struct {
	Path     string
	MaxSize  int64 // rotate before passing this many bytes; 0: never
	MaxFiles int   // rotated files kept
	// Owner is the state file the log belongs to: a log root creates for a
	// user's state is given the state's owner, so that the user's own guard
	// can still write it. "": no owner to follow.
	Owner string
	// Host is written into each appended event that names no host of its
	// own (store.Event.Host); "": none.
	Host string
	// LockTimeout bounds Append's wait for the log's lock (lock_timeout);
	// 0: statefile.DefaultLockTimeout.
	LockTimeout time.Duration
}

// Append writes events to the log, one line each, in a single write,
// waiting up to LockTimeout for the log's lock (then errLockBusy, and
// nothing is written).
func (l *EventLog) Append(events ...store.Event) error {
	wait := l.LockTimeout
	if wait <= 0 {
		wait = statefile.DefaultLockTimeout
	}
	return l.appendWithin(wait, events...)
}

// appendWithin is Append, waiting up to wait for the log's lock (0: it is
// tried once).
func (l *EventLog) appendWithin(wait time.Duration, events ...store.Event) error {
	if len(events) == 0 {
		return nil
	}
	var buf bytes.Buffer
	for _, e := range events {
		if e.Host == "" {
			e.Host = l.Host
		}
		line, err := e.MarshalJSON()
		if err != nil {
			return err
		}
		buf.Write(line)
		buf.WriteByte('\n')
	}
	deadline := time.Now().Add(wait)
	f, fi, err := l.openLocked(deadline)
	if err != nil {
		return err
	}
	defer closeLocked(f) // closing releases the lock
	if l.MaxSize > 0 {
		if fi.Size() > 0 && fi.Size()+int64(buf.Len()) > l.MaxSize {
			if err := l.rotate(); err != nil {
				return fmt.Errorf("cannot rotate event log: %w", err)
			}
			closeLocked(f)
			if f, _, err = l.openLocked(deadline); err != nil {
				return err
			}
			defer closeLocked(f)
		}
	}
	_, err = f.Write(buf.Bytes())
	return err
}

// openLocked opens the log for appending and takes its flock, trying
// until deadline (errLockBusy), making sure the file locked is still the
// one at Path (and not one rotated away while we waited). It returns the
// file at Path as it is once locked (its size: no other guard appends
// until the lock is let go).
//
// That is two questions to the system: the fstat OpenBesideStat checks
// the file with (a regular file; another user's in a sticky directory is
// refused), which names the file locked, and the stat of Path once it is
// locked, which says whether it is still the log, and how big.
func (l *EventLog) openLocked(deadline time.Time) (*os.File, os.FileInfo, error) {
	for {
		// O_NONBLOCK: a FIFO at the log's path must not hang guard in
		// open, or in a write once the log is open.
		f, held, err := statefile.OpenBesideStat(l.Path, os.O_WRONLY|os.O_APPEND|os.O_CREATE|syscall.O_NONBLOCK, 0o600)
		if errors.Is(err, os.ErrNotExist) {
			// Made by root, the directories are the state's owner's,
			// as the log is: else the user's own guard could not
			// write it (n5d).
			if err := statefile.MkdirAll(filepath.Dir(l.Path), 0o700, l.Owner); err != nil {
				return nil, nil, fmt.Errorf("cannot create event log directory: %w", err)
			}
			f, held, err = statefile.OpenBesideStat(l.Path, os.O_WRONLY|os.O_APPEND|os.O_CREATE|syscall.O_NONBLOCK, 0o600)
		}
		if err != nil {
			return nil, nil, fmt.Errorf("cannot open event log: %w", err)
		}
		if l.Owner != "" {
			statefile.GiveToOwnerOf(l.Path, l.Owner)
		}
		if err := lockWithin(f, time.Until(deadline)); err != nil {
			f.Close()
			return nil, nil, fmt.Errorf("cannot lock event log %s: %w", l.Path, err)
		}
		if now, err := os.Stat(l.Path); err == nil && os.SameFile(held, now) {
			return f, now, nil
		}
		closeLocked(f) // rotated meanwhile: lock the new one
	}
}

// rotate shifts the rotated files up by one and moves the log to .1. The
// caller holds the log's lock.
func (l *EventLog) rotate() error {
	keep := max(l.MaxFiles, 1)
	n := l.rotated()
	for i := n; i >= keep; i-- { // MaxFiles may have shrunk
		_ = os.Remove(l.rotatedPath(i))
	}
	for i := min(n, keep-1); i >= 1; i-- {
		if err := atomicfile.Rename(l.rotatedPath(i), l.rotatedPath(i+1)); err != nil {
			// Another user's file at the name, in a sticky directory, is
			// said to be theirs (hostile-user-3 m1).
			for _, p := range []string{l.rotatedPath(i), l.rotatedPath(i + 1)} {
				if fi, lerr := os.Lstat(p); lerr == nil {
					if ferr := atomicfile.CheckOwner(p, fi); ferr != nil {
						return ferr
					}
				}
			}
			return err
		}
	}
	// atomicfile.Rename: on Windows, the rename that a reader holding a
	// rotated file open does not refuse.
	return atomicfile.Rename(l.Path, l.rotatedPath(1))
}

func (l *EventLog) rotatedPath(i int) string { return l.Path + "." + strconv.Itoa(i) }

// rotated returns how many rotated files there are: .1 to .n exist.
func (l *EventLog) rotated() int {
	n := 0
	for exists(l.rotatedPath(n + 1)) {
		n++
	}
	return n
}

// Files returns the log's files that exist, oldest first.
func (l *EventLog) Files() []string {
	var files []string
	for i := l.rotated(); i >= 1; i-- {
		files = append(files, l.rotatedPath(i))
	}
	if exists(l.Path) {
		files = append(files, l.Path)
	}
	return files
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// EventLogs are several event logs read as one (a store.Events).
type EventLogs []*EventLog

// Append appends events to the first log, a state's own event log:
// store.Appender.
func (ls EventLogs) Append(events ...store.Event) error {
	if len(ls) == 0 {
		return errors.New("no event log to append to")
	}
	return ls[0].Append(events...)
}

// Read reads every event of the logs; see readEventLogs.
func (ls EventLogs) Read(keep func(*store.Event) bool) (store.ReadResult, error) {
	return readEventLogs(ls, keep)
}

// readEventLogs reads every event of the given logs (each with its rotated files),
// merged in time order; events of the same millisecond keep the order they
// were written in. keep, if not nil, filters events as they are read.
func readEventLogs(logs []*EventLog, keep func(*store.Event) bool) (store.ReadResult, error) {
	var res store.ReadResult
	seen := map[string]bool{}
	for _, l := range logs {
		for _, path := range l.Files() {
			if seen[path] {
				continue
			}
			seen[path] = true
			f, err := statefile.OpenBeside(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
			if err == nil {
				err = safeopen.Regular(f) // never a FIFO: see safeopen
			}
			if err != nil {
				if f != nil {
					f.Close()
				}
				return res, err
			}
			r, err := store.ReadEvents(f, keep)
			f.Close()
			res.Events = append(res.Events, r.Events...)
			res.Malformed += r.Malformed
			if err != nil {
				return res, fmt.Errorf("cannot read %s: %w", path, err)
			}
		}
	}
	sort.SliceStable(res.Events, func(i, j int) bool { return res.Events[i].Time.Before(res.Events[j].Time) })
	return res, nil
}

// Join reads other with ls when it is event logs too (store.Joiner): a
// file read twice is read once.
func (ls EventLogs) Join(other store.Events) (store.Events, bool) {
	o, ok := other.(EventLogs)
	if !ok {
		return nil, false
	}
	return append(ls, o...), true
}
