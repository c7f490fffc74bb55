package file

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"sort"

	"guard/internal/safeopen"
	"guard/internal/store"
)

// An eventCache reads logs as readEventLogs does, and keeps what it read, so that each
// Read after the first reads only what was appended since: 'guard status
// --watch' redraws every second, and reading the whole log (up to MaxFiles
// rotations of MaxSize) each time would make it a busy loop.
//
// It knows each file by its identity (device and inode, and its first
// bytes), not its name, so it follows rotation: the log renamed to <log>.1
// is a file it has read, of which only the end it has not seen is read;
// the new log is read from its start; a file that is gone (rotated away,
// removed) is forgotten with its events. A file that shrank, or whose
// first bytes changed, was replaced in place and is read again.
// Only lines ended by a newline are taken, so a line being written is read
// whole the next time. keep, if not nil, filters events as they are read,
// as for Read; what it leaves out is not kept.
//
// An eventCache is not safe for concurrent use.
type eventCache struct {
	logs  EventLogs
	keep  func(*store.Event) bool
	files []*cachedFile

	merged    []store.Event // the events of files, in time order
	malformed int
	changed   bool // merged is not up to date
	noRaw     bool // leave Event.Raw empty: no reader wants the lines
	// each, if set, hears of each event read, which is then not kept.
	each func(*store.Event)
}

// A cachedFile is a file of a log, read up to off.
type cachedFile struct {
	info      os.FileInfo
	head      []byte // its first bytes, up to headSize of those read
	off       int64  // bytes read: up to the end of the last whole line
	events    []store.Event
	malformed int
}

// headSize is how much of a file's start the eventCache keeps to tell it from a
// new file that took its inode once it was removed, as file systems do
// (tmpfs at once): a log's first line holds its time to the millisecond.
const headSize = 256

// Follow returns the logs as a store.Events whose every read after the
// first reads only what was appended since (store.Follower), keeping the
// events keep accepts.
func (ls EventLogs) Follow(keep func(*store.Event) bool) store.Events {
	return newEventCache(ls, keep)
}

// newEventCache returns an eventCache of logs that keeps the events keep
// accepts.
func newEventCache(logs EventLogs, keep func(*store.Event) bool) *eventCache {
	return &eventCache{logs: logs, keep: keep}
}

// Read returns every event of the logs that the eventCache's keep and keep (if
// not nil) accept, merged in time order as Read merges them, after reading
// what was appended to the logs since the last Read. The events may be
// shared with the eventCache and later Reads: the caller must not change them.
func (c *eventCache) Read(keep func(*store.Event) bool) (store.ReadResult, error) {
	if err := c.refresh(); err != nil {
		return store.ReadResult{}, err
	}
	if c.changed {
		c.merge()
	}
	res := store.ReadResult{Events: c.merged, Malformed: c.malformed}
	if keep != nil {
		// Copied only from the first event keep leaves out: an eventCache that
		// keeps what its reader wants is read without copying.
		for i := range res.Events {
			if keep(&res.Events[i]) {
				continue
			}
			kept := slices.Clone(res.Events[:i])
			for j := i + 1; j < len(res.Events); j++ {
				if keep(&res.Events[j]) {
					kept = append(kept, res.Events[j])
				}
			}
			res.Events = kept
			break
		}
	}
	return res, nil
}

// refresh reads what was appended to the logs' files since the last
// refresh, and forgets the files that are gone.
func (c *eventCache) refresh() error {
	var files []*cachedFile
	seen := map[string]bool{}
	for _, l := range c.logs {
		for _, path := range l.Files() {
			if seen[path] {
				continue
			}
			seen[path] = true
			f, err := c.update(path)
			if err != nil {
				return err
			}
			if f != nil {
				files = append(files, f)
			}
		}
	}
	if !slices.Equal(files, c.files) {
		c.changed = true
	}
	c.files = files
	return nil
}

// Tail returns the logs as a store.Tail: each Next reads only what was
// appended since the last, following rotation as Follow does, and keeps
// nothing of what it returned. Its events carry no Raw line.
func (ls EventLogs) Tail(keep func(*store.Event) bool) store.Tail {
	c := newEventCache(ls, keep)
	c.noRaw = true
	return &eventTail{c}
}

// An eventTail is an eventCache that hands its events over as it reads
// them instead of keeping them.
type eventTail struct{ c *eventCache }

func (t *eventTail) Next(fn func(*store.Event)) error {
	t.c.each = fn
	defer func() { t.c.each = nil }()
	return t.c.refresh()
}

// merge puts the events of every file in time order, as Read does: files
// in order, then a stable sort (needed only when they are not in order
// already, as one log appended to is).
func (c *eventCache) merge() {
	n := 0
	c.malformed = 0
	for _, f := range c.files {
		n += len(f.events)
		c.malformed += f.malformed
	}
	var merged []store.Event // nil for none, as Read has it
	if n > 0 {
		merged = make([]store.Event, 0, n)
	}
	for _, f := range c.files {
		merged = append(merged, f.events...)
	}
	before := func(i, j int) bool { return merged[i].Time.Before(merged[j].Time) }
	if !sort.SliceIsSorted(merged, before) {
		sort.SliceStable(merged, before)
	}
	c.merged, c.changed = merged, false
}

// update reads what is new in the file at path, and returns it as cached;
// nil if it is gone (rotated away since it was listed).
func (c *eventCache) update(path string) (*cachedFile, error) {
	fh, err := safeopen.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	info, err := fh.Stat()
	if err != nil {
		return nil, err
	}
	var f *cachedFile
	for _, old := range c.files {
		if os.SameFile(old.info, info) {
			f = old
			break
		}
	}
	if f != nil && (info.Size() < f.off || !f.sameHead(fh)) {
		f = nil // replaced in place, or a new file with the old one's inode
	}
	if f == nil {
		f = &cachedFile{}
	}
	f.info = info
	if info.Size() == f.off {
		return f, nil
	}
	if _, err := fh.Seek(f.off, io.SeekStart); err != nil {
		return nil, err
	}
	n, err := f.readLines(fh, c.keep, !c.noRaw, c.each)
	f.off += n
	c.changed = c.changed || n > 0
	if err != nil {
		return nil, fmt.Errorf("cannot read %s: %w", path, err)
	}
	if len(f.head) < headSize && int64(len(f.head)) < f.off {
		f.head = make([]byte, min(f.off, headSize))
		if _, err := fh.ReadAt(f.head, 0); err != nil {
			return nil, fmt.Errorf("cannot read %s: %w", path, err)
		}
	}
	return f, nil
}

// sameHead reports whether fh starts as the file f was read from did.
func (f *cachedFile) sameHead(fh *os.File) bool {
	if len(f.head) == 0 {
		return true
	}
	b := make([]byte, len(f.head))
	_, err := fh.ReadAt(b, 0)
	return err == nil && bytes.Equal(b, f.head)
}

// readLines reads the whole lines of r into f, as readFile does, and
// returns how many bytes they took; a last line without its newline is
// left for the next time.
func (f *cachedFile) readLines(r io.Reader, keep func(*store.Event) bool, raw bool, each func(*store.Event)) (int64, error) {
	var n int64
	br := bufio.NewReaderSize(r, 64<<10)
	var long []byte
	for {
		line, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			// A line longer than the buffer: gathered (the others are
			// read in place, without a copy).
			long = append(long[:0], line...)
			for errors.Is(err, bufio.ErrBufferFull) {
				line, err = br.ReadSlice('\n')
				long = append(long, line...)
			}
			line = long
		}
		if errors.Is(err, io.EOF) {
			return n, nil
		}
		if err != nil {
			return n, err
		}
		n += int64(len(line))
		trimmed := bytes.TrimSpace(line)
		if len(trimmed) == 0 {
			continue
		}
		e, err := store.ParseEvent(trimmed)
		if err != nil {
			f.malformed++
			continue
		}
		if raw {
			e.Raw = append(json.RawMessage(nil), trimmed...)
		}
		switch {
		case keep != nil && !keep(&e):
		case each != nil:
			each(&e)
		default:
			f.events = append(f.events, e)
		}
	}
}
