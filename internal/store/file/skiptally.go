// The skip tally: the skips guard run counts without the state's lock.
//
// A call whose circuit the lock-free read shows open (and nothing to change:
// no probe due, no lease to reap, no slot to give back) is skipped without
// the state's lock and without rewriting the state: its count goes to the
// tally beside the state (STATE.skips), its event to the event log. The
// next update of the state (any guard run that records an outcome, any
// command that writes the state) folds the tally into the keys' totals,
// under the state's lock, in the same write: the state records how far it
// has folded, as the tally's ID and an offset (global_stats.skip_tally), so
// a record is counted once, whether a writer dies before its write, after
// it, or between it and a rotation of the tally. A snapshot (status,
// report, the Prometheus counters, the dashboard) adds to the state's
// totals the records after that offset: the counters never go down, and
// never count a skip twice.
//
// The file: a header line, "guard skip tally ID" (ID: 16 hex digits, new
// for each file), written by whoever creates the file, then one line per
// skip: "0 KEY" or "1 KEY" (1: blocked), KEY a JSON string. Each line is
// appended with one write under the file's own lock (flock, LockFileEx),
// by a writer that checked, once it held the lock, that the file it holds
// is still the tally (and not one rotated away). A fold reads under that
// lock and holds it until the state is written; once the tally passes
// tallyRotateAt, that fold then replaces it with a new, empty one, still
// holding the lock, so no record goes to the old one after it was read.
// Records are not fsynced, as the event log's are not: a power loss may
// lose the last skips' counts, as it may the last relaxed write of the
// state (docs/guarantees.md, Durability). A line a crash cut short is
// skipped.

package file

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	"guard/internal/atomicfile"
	"guard/internal/jsonx"
	"guard/statefile"
)

// tallyHeader starts a tally's first line; its ID follows.
const tallyHeader = "guard skip tally "

// tallyRotateAt is the size past which a fold replaces the tally with an
// empty one.
const tallyRotateAt = 64 << 10

// A skipTally is the tally of a state file.
type skipTally struct {
	path  string
	owner string // the state file: a tally root creates is given its owner
}

// tallyPath is the tally beside the state at state.
func tallyPath(state string) string { return state + ".skips" }

// skipCount is what a tally holds of one key.
type skipCount struct{ skips, blocked int64 }

// add appends a skip of key to the tally, creating it if need be, waiting
// up to wait for its lock (errLockBusy: a skip is then counted under the
// state's lock, which has its own timeout).
func (t *skipTally) add(key string, blocked bool, wait time.Duration) error {
	var line bytes.Buffer
	if blocked {
		line.WriteString("1 ")
	} else {
		line.WriteString("0 ")
	}
	jsonx.AppendString(&line, key)
	line.WriteByte('\n')
	for {
		// O_NONBLOCK: a FIFO at the tally's path must not hang guard.
		// The fstat that checks the file names the one locked; a stat
		// of the path once it is locked says whether it is still the
		// tally, and its size (as the event log's append does).
		f, held, err := statefile.OpenBesideStat(t.path, os.O_WRONLY|os.O_APPEND|os.O_CREATE|syscall.O_NONBLOCK, 0o600)
		if err != nil {
			return fmt.Errorf("cannot open the skip tally: %w", err)
		}
		statefile.GiveToOwnerOf(t.path, t.owner)
		if err := lockWithin(f, wait); err != nil {
			f.Close()
			return fmt.Errorf("cannot lock the skip tally: %w", err)
		}
		now, err := os.Stat(t.path)
		if err != nil || !os.SameFile(held, now) {
			closeLocked(f) // rotated meanwhile: the new one
			continue
		}
		out := line.Bytes()
		if now.Size() == 0 {
			out = append(newTallyHeader(), out...)
		}
		_, err = f.Write(out)
		if cerr := closeLocked(f); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("cannot write the skip tally: %w", err)
		}
		return nil
	}
}

// newTallyHeader is a new tally's first line, with a new ID (random: it
// need only differ from the tally it replaces).
func newTallyHeader() []byte {
	return fmt.Appendf(nil, "%s%016x\n", tallyHeader, rand.Uint64())
}

// A tallyRead is what a fold read of the tally, holding its lock: the
// records not folded yet, and where the state's mark moves to.
type tallyRead struct {
	f      *os.File // locked; nil if there is no tally
	counts map[string]skipCount
	mark   string // the state's new global_stats.skip_tally
	size   int64
}

// readLocked reads the records of the tally that mark (the state's
// global_stats.skip_tally) does not cover, holding the tally's lock until
// close, waiting up to wait for it (errLockBusy; a fold, under the
// state's lock, only tries). No tally is none to fold.
func (t *skipTally) readLocked(mark string, wait time.Duration) (*tallyRead, error) {
	// Most folds find nothing new: no tally, or the very one the mark
	// ends with, of the size and time it had then. That is told from one
	// stat, without opening or locking it.
	fi, err := os.Stat(t.path)
	if errors.Is(err, os.ErrNotExist) {
		return &tallyRead{mark: mark}, nil
	}
	if m := parseMark(mark); err == nil && fi.Size() < tallyRotateAt && m.end == fi.Size() && m.stamp != 0 && m.stamp == fi.ModTime().UnixNano() {
		return &tallyRead{mark: mark}, nil
	}
	for {
		f, held, err := statefile.OpenBesideStat(t.path, os.O_RDWR|syscall.O_NONBLOCK, 0)
		if errors.Is(err, os.ErrNotExist) {
			return &tallyRead{mark: mark}, nil
		}
		if err != nil {
			return nil, fmt.Errorf("cannot open the skip tally: %w", err)
		}
		if err := lockWithin(f, wait); err != nil {
			f.Close()
			return nil, fmt.Errorf("cannot lock the skip tally: %w", err)
		}
		now, err := os.Stat(t.path)
		if err != nil || !os.SameFile(held, now) {
			closeLocked(f)
			continue
		}
		data, err := io.ReadAll(f)
		if err != nil {
			closeLocked(f)
			return nil, fmt.Errorf("cannot read the skip tally: %w", err)
		}
		counts, newMark := tallyRecords(data, mark)
		if m := parseMark(newMark); m.end == int64(len(data)) {
			// All of it: the time it was last written says, next time,
			// whether it still is (see above).
			newMark += ":" + strconv.FormatInt(now.ModTime().UnixNano(), 10)
		}
		return &tallyRead{f: f, counts: counts, mark: newMark, size: int64(len(data))}, nil
	}
}

// rotate replaces a tally that has grown past tallyRotateAt with a new,
// empty one. The state's mark must say all of the old one is folded: the
// caller has written it. Still holding the old one's lock, so that nothing
// is added to it once it was read.
func (r *tallyRead) rotate(t *skipTally) error {
	if r.f == nil || r.size < tallyRotateAt {
		return nil
	}
	owner, _ := os.Stat(t.owner)
	return atomicfile.WriteFile(t.path, newTallyHeader(), 0o600, owner)
}

// close releases the tally's lock.
func (r *tallyRead) close() {
	if r != nil && r.f != nil {
		closeLocked(r.f)
		r.f = nil
	}
}

// pending reads, without the lock, the records of the tally that mark does
// not cover: what a snapshot adds to the state's totals. A line being
// written is not read.
func (t *skipTally) pending(mark string) (map[string]skipCount, error) {
	f, err := statefile.OpenBeside(t.path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("cannot open the skip tally: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(f)
	if err != nil {
		return nil, fmt.Errorf("cannot read the skip tally: %w", err)
	}
	counts, _ := tallyRecords(data, mark)
	return counts, nil
}

// tallyRecords counts the records of the tally data after mark (all of
// them, if mark names another tally), and returns the mark that covers
// them all. Lines that do not parse (one a crash cut short) are skipped;
// an unfinished last line is left for later.
func tallyRecords(data []byte, mark string) (map[string]skipCount, string) {
	first, _, ok := bytes.Cut(data, []byte{'\n'})
	id, isTally := strings.CutPrefix(string(first), tallyHeader)
	if !ok || !isTally {
		return nil, mark // not a tally (yet): nothing to count
	}
	from := int64(len(first) + 1)
	if m := parseMark(mark); m.id == id && m.end >= from && m.end <= int64(len(data)) {
		from = m.end
	}
	end := int64(len(data))
	if i := bytes.LastIndexByte(data, '\n'); i >= 0 {
		end = int64(i + 1)
	}
	counts := map[string]skipCount{}
	for _, line := range bytes.Split(data[from:end], []byte{'\n'}) {
		if len(line) < 4 || line[1] != ' ' || line[0] != '0' && line[0] != '1' {
			continue
		}
		key, err := jsonx.ParseString(line[2:])
		if err != nil {
			continue
		}
		c := counts[key]
		c.skips++
		if line[0] == '1' {
			c.blocked++
		}
		counts[key] = c
	}
	return counts, id + ":" + strconv.FormatInt(end, 10)
}

// A tallyMark is the state's global_stats.skip_tally, "ID:END[:STAMP]": the
// tally (its ID) whose records before offset END the totals hold, and, if
// they hold all of it, the time it was last written then (its mtime, in
// nanoseconds).
type tallyMark struct {
	id         string
	end, stamp int64
}

// parseMark reads a mark; a malformed one is none.
func parseMark(s string) tallyMark {
	parts := strings.Split(s, ":")
	if len(parts) < 2 || len(parts) > 3 {
		return tallyMark{}
	}
	end, err := strconv.ParseInt(parts[1], 10, 64)
	if err != nil {
		return tallyMark{}
	}
	m := tallyMark{id: parts[0], end: end}
	if len(parts) == 3 {
		m.stamp, _ = strconv.ParseInt(parts[2], 10, 64)
	}
	return m
}
