package statefile

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"guard/internal/atomicfile"
	"guard/internal/jsonx"
)

// DefaultLockTimeout is how long Lock waits when Options.LockTimeout is 0.
const DefaultLockTimeout = 2 * time.Second

// ErrLockTimeout is returned when the lock is not obtained in time.
var ErrLockTimeout = errors.New("lock not obtained in time")

// ErrStopped is returned when Options.Stop said to stop waiting for the
// lock.
var ErrStopped = errors.New("stopped while waiting for the lock")

// ErrCorrupt is matched (with errors.Is) by a *CorruptError.
var ErrCorrupt = errors.New("state file does not parse")

// A CorruptError reports a state file that does not parse.
type CorruptError struct {
	Path string
	Err  error
}

func (e *CorruptError) Error() string {
	if e.Path == "" {
		return fmt.Sprintf("state does not parse: %v", e.Err)
	}
	return fmt.Sprintf("%s does not parse: %v", e.Path, e.Err)
}

func (e *CorruptError) Unwrap() error        { return e.Err }
func (e *CorruptError) Is(target error) bool { return target == ErrCorrupt }

// A Codec is a document type that reads and writes its own bytes, for a
// speed encoding/json cannot give: a lazy decoder, say. Load and Update use
// these methods instead of encoding/json when the document has them.
type Codec interface {
	UnmarshalState(data []byte) error
	MarshalState() ([]byte, error)
}

// A SegmentCodec is a Codec that can also give its bytes as a list of
// slices, most of them slices of the bytes it was read from, which Update
// writes with writev: a large document that changed in one place need not
// be copied to be written.
type SegmentCodec interface {
	Codec
	MarshalSegments() ([][]byte, error)
}

// marshalSegments encodes doc as Update writes it.
func marshalSegments(doc any) ([][]byte, error) {
	if c, ok := doc.(SegmentCodec); ok {
		return c.MarshalSegments()
	}
	out, err := jsonx.MarshalDocument(doc)
	return [][]byte{out}, err
}

func decode(data []byte, doc any) error {
	if c, ok := doc.(Codec); ok {
		return c.UnmarshalState(data)
	}
	return json.Unmarshal(data, doc)
}

// Options tune a File.
type Options struct {
	// LockTimeout bounds how long Lock waits. If it is 0,
	// DefaultLockTimeout is used.
	LockTimeout time.Duration

	// Stop, if set, is asked while Lock waits; once it reports true, Lock
	// gives up with ErrStopped (a signal to the process, say, which must
	// not wait out LockTimeout).
	Stop func() bool

	// OnQuarantine, if set, is called after Update has moved a file that
	// does not parse to movedTo.
	OnQuarantine func(movedTo string, cause error)

	// Now returns the time used to name quarantined files. If it is nil,
	// time.Now is used.
	Now func() time.Time
}

// A File is a JSON document on disk, shared by processes through a sidecar
// lock. A File holds no open descriptors between calls; it is safe to use
// from one goroutine at a time.
type File struct {
	path  string // resolved: never a symlink
	opts  Options
	spare []byte // a buffer the next read may reuse; see Recycle

	// shared is set when the state's directory is sticky and
	// world-writable, as /tmp is, and dirOwner is then its owner: there,
	// the state and the files beside it must be ours, root's or dirOwner's
	// (see checkOwner).
	shared   bool
	dirOwner uint32
}

// Open returns the File at path. It resolves symlinks, so that the lock and
// the temp files sit beside the real file, but creates nothing: the
// directory and the lock file are created by the first Lock.
func Open(path string, opts Options) (*File, error) {
	if path == "" {
		return nil, errors.New("state file path is empty")
	}
	real, err := resolve(path)
	if err != nil {
		return nil, fmt.Errorf("cannot resolve state file path: %w", err)
	}
	if opts.LockTimeout <= 0 {
		opts.LockTimeout = DefaultLockTimeout
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	f := &File{path: real, opts: opts}
	f.dirOwner, f.shared = sharedDir(filepath.Dir(real))
	return f, nil
}

// checkOwner refuses the file at path, beside the state (the state
// itself, its lock), described by fi, when the state's directory is sticky
// and world-writable and the file belongs to another user: see
// atomicfile.CheckOwnerIn (hostile-user-3 M2, m1).
func (f *File) checkOwner(path string, fi os.FileInfo) error {
	if !f.shared {
		return nil
	}
	return atomicfile.CheckOwnerIn(path, fi, f.dirOwner)
}

// whose explains err, a failure to open the file at path beside the state,
// when the file is another user's in a sticky world-writable directory
// (the kernel says only "permission denied"); else it returns err.
func (f *File) whose(path string, err error) error {
	if !f.shared {
		return err
	}
	if fi, lerr := os.Lstat(path); lerr == nil && fi.Mode()&os.ModeSymlink == 0 {
		if ferr := f.checkOwner(path, fi); ferr != nil {
			return ferr
		}
	}
	return err
}

// Path returns the resolved path of the document.
func (f *File) Path() string { return f.path }

// LockTimeout returns how long Lock waits.
func (f *File) LockTimeout() time.Duration { return f.opts.LockTimeout }

// LockPath returns the path of the sidecar lock file.
func (f *File) LockPath() string { return f.path + ".lock" }

// Resolve returns path with every symlink in it followed (a final link
// whose target does not exist yet included), as Open resolves a state
// path: files kept beside a state (its lock, event log, slot files) sit
// beside the real file. A link that checkLink refuses, at any component,
// is an error (ErrUnsafeLink).
func Resolve(path string) (string, error) { return resolve(path) }

// resolve is atomicfile.Resolve: each link on the way, a directory's as
// much as the file's, is checked before it is followed (see checkLink).
func resolve(path string) (string, error) { return atomicfile.Resolve(path) }

// read returns the document's bytes, past a UTF-8 byte order mark, or nil
// if the file does not exist or holds only white space. It reads into the buffer Recycle handed back, if
// there is one.
func (f *File) read() ([]byte, error) {
	// O_NONBLOCK: a FIFO at the path must not hang guard in open.
	file, err := OpenFile(f.path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, f.whose(f.path, err)
	}
	defer file.Close()
	size := 0
	if fi, err := file.Stat(); err == nil {
		if !fi.Mode().IsRegular() {
			return nil, fmt.Errorf("%s is not a regular file", f.path)
		}
		// Another user's state, made first in a sticky directory, is
		// never read as ours (hostile-user-3 m1).
		if err := f.checkOwner(f.path, fi); err != nil {
			return nil, err
		}
		if fi.Size() < 1<<40 {
			size = int(fi.Size())
		}
	}
	data := f.spare[:0]
	f.spare = nil
	if cap(data) <= size {
		data = make([]byte, 0, size+512) // room to see the end in one read
	}
	for {
		n, err := file.Read(data[len(data):cap(data)])
		data = data[:len(data)+n]
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		if len(data) == cap(data) { // the file grew
			data = append(data, 0)[:len(data)]
		}
	}
	// A byte order mark an editor put there is read past (guard never
	// writes one), here where every reader of a state file comes.
	data = jsonx.TrimBOM(data)
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, nil
	}
	return data, nil
}

// Read returns the document's bytes without taking the lock, or nil if
// there is no document.
func (f *File) Read() ([]byte, error) { return f.read() }

// Recycle hands back data, which Read returned and which the caller no
// longer uses in any way, for the next read of f to reuse: a large file
// is then read into memory that is already in place.
func (f *File) Recycle(data []byte) { f.spare = data }

// Load decodes the current document into doc without taking the lock, which
// is safe because the file is only ever replaced whole. It reports whether
// the file exists. A file that does not parse gives a *CorruptError and is
// left where it is; Update is what moves it aside.
func Load[T any](f *File, doc *T) (bool, error) {
	data, err := f.read()
	if err != nil || data == nil {
		return false, err
	}
	if err := decode(data, doc); err != nil {
		return true, &CorruptError{Path: f.path, Err: err}
	}
	return true, nil
}

// Update runs fn on the current document under the lock, and replaces the
// file with the result if fn reports a change. A missing file gives fn a
// zero document. A file that does not parse is moved aside first (see
// Options.OnQuarantine) and fn gets a zero document, or what a Salvager
// kept of it (then written, whatever fn does); so is one in which fn finds
// a part that does not parse (fn returns an error matching ErrCorrupt),
// and fn runs again on such a document.
func Update[T any](f *File, fn func(doc *T) (changed bool, err error)) error {
	return UpdateThen(f, fn, nil)
}

// UpdateThen is Update, and then, if fn and the write (if any) succeeded,
// runs then while still holding the lock: for work that must be ordered
// with the update, such as logging it.
func UpdateThen[T any](f *File, fn func(doc *T) (changed bool, err error), then func()) (err error) {
	return UpdateWithin(f, f.opts.LockTimeout, fn, then)
}

// UpdateWithin is UpdateThen, waiting at most timeout for the lock instead
// of the lock timeout (see LockWithin).
func UpdateWithin[T any](f *File, timeout time.Duration, fn func(doc *T) (changed bool, err error), then func()) (err error) {
	unlock, err := f.LockWithin(timeout)
	if err != nil {
		return err
	}
	defer unlock()
	if err := failpoint("after-lock"); err != nil {
		return err
	}

	data, err := f.read()
	if err != nil {
		return fmt.Errorf("cannot read state: %w", err)
	}
	moveAside := func(cause error) error {
		to, qerr := f.quarantine()
		if qerr != nil {
			return fmt.Errorf("cannot move aside corrupt state file: %w", qerr)
		}
		if f.opts.OnQuarantine != nil {
			f.opts.OnQuarantine(to, cause)
		}
		return nil
	}
	doc := new(T)
	salvaged := false // doc is what could be read of a file moved aside: write it
	if data != nil {
		if perr := decode(data, doc); perr != nil {
			doc, salvaged, perr = salvage[T](data, perr)
			if err := moveAside(perr); err != nil {
				return err
			}
			data = nil
		}
	}
	changed, err := fn(doc)
	if errors.Is(err, ErrCorrupt) && data != nil {
		doc, salvaged, err = salvage[T](data, err)
		if err := moveAside(err); err != nil {
			return err
		}
		changed, err = fn(doc)
	}
	if err != nil {
		return err
	}
	if changed || salvaged {
		out, err := marshalSegments(doc)
		if err != nil {
			return fmt.Errorf("cannot encode state: %w", err)
		}
		r, ok := any(doc).(Relaxer)
		if err := f.write(!ok || !r.Relaxed(), out...); err != nil {
			return err
		}
	}
	if then != nil {
		then()
	}
	return nil
}

// A Salvager is a document that can read what is whole of a file that
// does not parse (see Update): a torn file then keeps what it can.
type Salvager interface {
	// Salvage makes the (zero) document what it can read of data, and
	// reports how many entries it kept, the keys of those it kept only in
	// part, the keys of those it saw and lost, and whether data ends early
	// (whatever followed is lost, unseen).
	Salvage(data []byte) (kept int, partial, lost []string, cut bool)
}

// A SalvagedError is the cause of a quarantine after which the document
// kept what it could of the file moved aside (see Salvager): Err is why
// the file did not parse.
type SalvagedError struct {
	Err     error
	Kept    int      // entries kept
	Partial []string // the keys of entries kept only in part
	Lost    []string // the keys of entries seen and lost
	Cut     bool     // the file ended early: what followed is lost too
}

func (e *SalvagedError) Error() string { return e.Err.Error() }
func (e *SalvagedError) Unwrap() error { return e.Err }

// salvage returns the document to go on with after data, which did not
// parse (cause), is moved aside: what a Salvager keeps of it, with cause
// made a *SalvagedError saying what, or a zero document. ok reports a
// document that must be written, even if nothing else changes it.
func salvage[T any](data []byte, cause error) (doc *T, ok bool, why error) {
	doc = new(T)
	s, can := any(doc).(Salvager)
	if !can {
		return doc, false, cause
	}
	kept, partial, lost, cut := s.Salvage(data)
	if kept == 0 {
		return new(T), false, cause
	}
	return doc, true, &SalvagedError{Err: cause, Kept: kept, Partial: partial, Lost: lost, Cut: cut}
}

// A Relaxer is a document that can say its latest change need not survive
// a power loss: it is written without the directory sync, and without the
// new file's data sync where the filesystem orders a replacing rename
// after the new file's data (see the package doc and renameKeepsData), so
// that after a crash of the machine the file is the old or the new one,
// whole, but the rename may be lost. The next full write makes it durable
// with everything before it.
type Relaxer interface{ Relaxed() bool }

// ReadLocked returns the document's bytes as they are, read under the lock:
// a consistent snapshot even while writers work. A missing file gives nil.
func (f *File) ReadLocked() ([]byte, error) {
	unlock, err := f.Lock()
	if err != nil {
		return nil, err
	}
	defer unlock()
	return f.read()
}

// Swap replaces the document's bytes with what fn returns for the current
// ones (nil if there is no file), under the lock, atomically. fn may do
// its own I/O, such as keeping a backup of the old bytes.
func (f *File) Swap(fn func(old []byte) ([]byte, error)) error {
	unlock, err := f.Lock()
	if err != nil {
		return err
	}
	defer unlock()
	old, err := f.read()
	if err != nil {
		return fmt.Errorf("cannot read state: %w", err)
	}
	data, err := fn(old)
	if err != nil {
		return err
	}
	return f.replace(data)
}

// quarantine moves the current file to a name that is not taken yet. The
// caller holds the lock, so no other guard races for the name.
func (f *File) quarantine() (string, error) {
	stamp := f.opts.Now().UTC().Format("20060102T150405Z")
	to := atomicfile.FreePath(f.path + ".corrupt-" + stamp)
	if err := os.Rename(f.path, to); err != nil {
		return "", err
	}
	return to, atomicfile.SyncDir(filepath.Dir(f.path))
}
