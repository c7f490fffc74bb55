package guardrun

import (
	"bytes"
	"io"
	"math/rand/v2"
	"sync"
	"syscall"
	"time"

	"guard/breaker"
	"guard/config"
	"guard/internal/circuit"
	"guard/internal/supervise"
)

// maxHeld is how much of one try's stdout, and of its stderr, guard holds
// back while it may still try again: a try that writes more has it passed
// on, and is the last.
const maxHeld = 1 << 20

// runTries runs argv as guard run's call, under b's retries and output
// rules, and returns the last try's result, the breaker's result for it,
// and the tries before it, which failed and were tried again.
//
// With neither, it is one run, exactly as it always was. With output rules
// (ignore_output, failure_output), what the run prints is also kept (the
// start and end of each stream; stderr only where it is not a terminal,
// which the command then keeps). With retries, a run that failed on its
// own account (circuit.Retryable) is tried again, after retry_backoff
// doubled for each try, with jitter, while the call's time allows (the
// timeout, cut to --hook-timeout, covers all the tries and the waits: a
// try is made only if as long as the last one took is left after the
// wait). Every try but the last possible one has its stdout, and its
// stderr where that is not a terminal, held back (up to maxHeld each), so
// that the caller sees the output of the try that counts only, and a
// failed try's partial JSON never reaches Claude Code. Each try gets the
// call's stdin: guard keeps it (up to maxPayload; a terminal is shared,
// not kept) and gives it again; a stdin longer than that, which cannot be
// given again, allows one try only. A signal during a wait ends the call:
// the last try's outcome counts, and guard exits 128+n.
func (e *Env) runTries(argv []string, key string, b config.Breaker, dec breaker.Decision, started func(int)) (supervise.Result, breaker.Result, []circuit.Attempt) {
	judge := len(b.IgnoreOutput) > 0 || len(b.FailureOutput) > 0
	if b.Retries == 0 && !judge {
		res := e.supervise(argv, key, b, started)
		return res, circuit.Classify(&res, b, dec), nil
	}
	var in *replay
	if b.Retries > 0 && e.Stdin != nil && !supervise.IsTerminal(e.Stdin) {
		in = e.replayStdin()
	}
	var deadline time.Time
	if b.Timeout > 0 {
		deadline = e.Now().Add(b.Timeout)
	}
	var past []circuit.Attempt
	for try := 0; ; try++ {
		last := try >= b.Retries || (try > 0 && !in.whole())
		stdin := e.Stdin
		if in != nil {
			stdin = in.reader(try == 0)
		}
		var stdout, stderr io.Writer = e.Stdout, e.Stderr
		var heldOut, heldErr *held
		if !last {
			heldOut = &held{dst: e.Stdout}
			stdout = heldOut
			if !supervise.IsTerminal(e.Stderr) {
				heldErr = &held{dst: e.Stderr}
				stderr = heldErr
			}
		}
		var keptOut, keptErr kept
		if judge {
			stdout = io.MultiWriter(stdout, &keptOut)
			if !supervise.IsTerminal(e.Stderr) {
				stderr = io.MultiWriter(stderr, &keptErr)
			}
		}
		bt := b
		if !deadline.IsZero() {
			bt.Timeout = max(deadline.Sub(e.Now()), time.Millisecond)
		}
		res := e.superviseStreams(argv, key, bt, started, stdin, stdout, stderr)
		out := circuit.Output{Stdout: keptOut.Bytes(), Stderr: keptErr.Bytes()}
		if !judge || len(out.Stderr) == 0 {
			out.Stderr = res.Tail
		}
		r := circuit.ClassifyOutput(&res, b, dec, out)
		wait := retryWait(b.RetryBackoff, try)
		again := !last && circuit.Retryable(&res, r, b, out) && !heldOut.spilled() && !heldErr.spilled()
		if again && !deadline.IsZero() && e.Now().Add(wait+res.Elapsed).After(deadline) {
			again = false // no time left for another try like this one
		}
		if again && in != nil && !in.wholeWithin(wait) {
			// stdin has not ended (a pipe that stays open) or was longer
			// than guard keeps: it cannot be given again.
			again = false
		}
		if !again {
			heldOut.pass()
			heldErr.pass()
			return res, r, past
		}
		past = append(past, circuit.Attempt{Time: e.Now(), Exit: res.ExitCode, Duration: res.Elapsed, Error: r.Error, Wait: wait})
		e.notef("guard: %s failed (%s); trying again in %s (retries: %d of %d)", circuit.KeyWord(key), r.Error, wait.Round(time.Millisecond), try+1, b.Retries)
		timer := time.NewTimer(wait)
		select {
		case sig := <-e.Sigs:
			// The caller cancels the call while it waits: the try that
			// failed is its outcome, and guard ends as a signal ends it.
			timer.Stop()
			heldOut.pass()
			heldErr.pass()
			past = past[:len(past)-1]
			res.ExitCode = 128 + int(sig.(syscall.Signal))
			return res, r, past
		case <-timer.C:
		}
		heldOut.drop()
		heldErr.drop()
	}
}

// replayStdin keeps the call's stdin for the tries of retries (see
// replay): the payload, if guard has read it already (a session's key),
// else what stdin gives, as it comes.
func (e *Env) replayStdin() *replay {
	if e.payloadRead {
		in := &replay{buf: e.payloadBuf, end: len(e.payloadBuf) < maxPayload, src: e.Stdin, more: make(chan struct{}), done: make(chan struct{})}
		if in.end {
			in.src = nil
		} else {
			// Cut at maxPayload: the rest is in e.Stdin, after the payload.
			in.buf, in.over, in.src = nil, true, e.Stdin
		}
		close(in.done)
		return in
	}
	return newReplay(e.Stdin)
}

// A replay keeps what a call's stdin gives, up to maxPayload, as it comes,
// so that each try of retries reads it from the start. The first try does
// not wait for stdin's end: a pipe that stays open (ssh's, a parent that
// never closes it) would keep it from ever starting. A later try is made
// only if stdin ended within maxPayload: what is longer, or has not ended,
// cannot be given again.
type replay struct {
	src  io.Reader // stdin; read by fill only, until it ends or buf is full
	mu   sync.Mutex
	buf  []byte
	end  bool          // src ended (EOF, or an error) within maxPayload
	over bool          // buf is full: the rest of src is the first try's alone
	more chan struct{} // closed, and replaced, when buf grows or the reading stops
	done chan struct{} // closed when the reading stops (end or over)
}

func newReplay(src io.Reader) *replay {
	in := &replay{src: src, more: make(chan struct{}), done: make(chan struct{})}
	go in.fill()
	return in
}

// fill reads src into buf until it ends or buf holds maxPayload.
func (in *replay) fill() {
	chunk := make([]byte, 64<<10)
	for {
		in.mu.Lock()
		room := maxPayload - len(in.buf)
		in.mu.Unlock()
		if room <= 0 {
			in.stop(false)
			return
		}
		n, err := in.src.Read(chunk[:min(len(chunk), room)])
		in.mu.Lock()
		in.buf = append(in.buf, chunk[:n]...)
		close(in.more)
		in.more = make(chan struct{})
		in.mu.Unlock()
		if err != nil {
			in.stop(true)
			return
		}
	}
}

func (in *replay) stop(end bool) {
	in.mu.Lock()
	in.end, in.over = end, !end
	close(in.more)
	in.more = make(chan struct{})
	in.mu.Unlock()
	close(in.done)
}

// whole reports whether stdin ended within maxPayload, so that a try can
// have all of it. A nil replay (no stdin to keep) is whole.
func (in *replay) whole() bool {
	if in == nil {
		return true
	}
	select {
	case <-in.done:
	default:
		return false
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	return in.end
}

// wholeWithin is whole, waiting up to d for stdin to end.
func (in *replay) wholeWithin(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-in.done:
	case <-t.C:
	}
	return in.whole()
}

// reader reads what stdin gave from the start, waiting for more while it
// comes; the first try's reads on past maxPayload, from stdin itself.
func (in *replay) reader(first bool) io.Reader { return &replayReader{in: in, first: first} }

type replayReader struct {
	in    *replay
	pos   int
	first bool
}

func (r *replayReader) Read(p []byte) (int, error) {
	for {
		r.in.mu.Lock()
		buf, end, over, more := r.in.buf, r.in.end, r.in.over, r.in.more
		r.in.mu.Unlock()
		switch {
		case r.pos < len(buf):
			n := copy(p, buf[r.pos:])
			r.pos += n
			return n, nil
		case end:
			return 0, io.EOF
		case over && r.first && r.in.src != nil:
			return r.in.src.Read(p)
		case over:
			return 0, io.EOF
		}
		<-more
	}
}

// retryWait is the wait before retry n+1: backoff doubled n times, capped
// at an hour, then between half of that and all of it ("equal jitter"), so
// that callers that failed together do not all try again at once.
func retryWait(backoff time.Duration, n int) time.Duration {
	d := backoff
	for i := 0; i < n && d < time.Hour; i++ {
		d *= 2
	}
	d = min(d, time.Hour)
	if d <= 1 {
		return d
	}
	half := d / 2
	return half + rand.N(d-half+1)
}

// A held is a writer that holds what a try writes until guard knows
// whether the try is the one that counts: pass writes it on (and what
// comes later), drop drops it (and what comes later). A try that writes
// more than maxHeld has it all passed on at once, and has spilled: it
// cannot be taken back, so the try is the last. A nil held holds nothing.
type held struct {
	mu      sync.Mutex
	dst     io.Writer
	buf     bytes.Buffer
	state   int // holding, passing or dropping
	spilt   bool
	lastErr error
}

const (
	holding = iota
	passing
	dropping
)

func (h *held) Write(p []byte) (int, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	switch h.state {
	case passing:
		return h.dst.Write(p)
	case dropping:
		return len(p), nil
	}
	if h.buf.Len()+len(p) <= maxHeld {
		return h.buf.Write(p)
	}
	h.spilt, h.state = true, passing
	if err := h.flush(); err != nil {
		return 0, err
	}
	return h.dst.Write(p)
}

// flush writes what is held on; h.mu is held.
func (h *held) flush() error {
	if h.buf.Len() == 0 {
		return nil
	}
	_, err := h.dst.Write(h.buf.Bytes())
	h.buf.Reset()
	return err
}

func (h *held) pass() {
	if h == nil {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.state == holding {
		h.state = passing
		h.lastErr = h.flush()
	}
}

func (h *held) drop() {
	if h == nil {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.state = dropping
	h.buf = bytes.Buffer{}
}

func (h *held) spilled() bool {
	if h == nil {
		return false
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.spilt
}

// keepEach is how much of the start, and of the end, of a stream guard
// keeps for ignore_output and failure_output.
const keepEach = 8 << 10

// A kept is a writer that keeps the first and the last keepEach bytes of
// what is written to it.
type kept struct {
	mu         sync.Mutex
	head, tail []byte
	cut        bool // bytes between head and tail were let go
}

func (k *kept) Write(p []byte) (int, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	n := len(p)
	if room := keepEach - len(k.head); room > 0 {
		take := min(room, len(p))
		k.head = append(k.head, p[:take]...)
		p = p[take:]
	}
	k.tail = append(k.tail, p...)
	if over := len(k.tail) - keepEach; over > 0 {
		k.tail = append(k.tail[:0], k.tail[over:]...)
		k.cut = true
	}
	return n, nil
}

// Bytes returns what was kept: the start, then the end (after a line
// break if bytes between them were let go, so that no line is made of two).
func (k *kept) Bytes() []byte {
	k.mu.Lock()
	defer k.mu.Unlock()
	out := append([]byte{}, k.head...)
	if k.cut {
		out = append(out, '\n')
	}
	return append(out, k.tail...)
}
