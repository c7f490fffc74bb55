package cli

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
func (e *env) runTries(argv []string, key string, b config.Breaker, dec breaker.Decision, started func(int)) (supervise.Result, breaker.Result, []circuit.Attempt) {
	judge := len(b.IgnoreOutput) > 0 || len(b.FailureOutput) > 0
	if b.Retries == 0 && !judge {
		res := e.supervise(argv, key, b, started)
		return res, circuit.Classify(&res, b, dec), nil
	}
	var payload []byte
	replay := true
	if b.Retries > 0 && e.stdin != nil && !supervise.IsTerminal(e.stdin) {
		payload = e.payload()
		replay = len(payload) < maxPayload
	}
	var deadline time.Time
	if b.Timeout > 0 {
		deadline = e.now().Add(b.Timeout)
	}
	var past []circuit.Attempt
	for try := 0; ; try++ {
		last := try >= b.Retries || !replay
		stdin := e.stdin
		if replay && payload != nil {
			stdin = bytes.NewReader(payload)
		}
		var stdout, stderr io.Writer = e.stdout, e.stderr
		var heldOut, heldErr *held
		if !last {
			heldOut = &held{dst: e.stdout}
			stdout = heldOut
			if !supervise.IsTerminal(e.stderr) {
				heldErr = &held{dst: e.stderr}
				stderr = heldErr
			}
		}
		var keptOut, keptErr kept
		if judge {
			stdout = io.MultiWriter(stdout, &keptOut)
			if !supervise.IsTerminal(e.stderr) {
				stderr = io.MultiWriter(stderr, &keptErr)
			}
		}
		bt := b
		if !deadline.IsZero() {
			bt.Timeout = max(deadline.Sub(e.now()), time.Millisecond)
		}
		res := e.superviseStreams(argv, key, bt, started, stdin, stdout, stderr)
		out := circuit.Output{Stdout: keptOut.Bytes(), Stderr: keptErr.Bytes()}
		if !judge || len(out.Stderr) == 0 {
			out.Stderr = res.Tail
		}
		r := circuit.ClassifyOutput(&res, b, dec, out)
		wait := retryWait(b.RetryBackoff, try)
		again := !last && circuit.Retryable(&res, r, b, out) && !heldOut.spilled() && !heldErr.spilled()
		if again && !deadline.IsZero() && e.now().Add(wait+res.Elapsed).After(deadline) {
			again = false // no time left for another try like this one
		}
		if !again {
			heldOut.pass()
			heldErr.pass()
			return res, r, past
		}
		past = append(past, circuit.Attempt{Time: e.now(), Exit: res.ExitCode, Duration: res.Elapsed, Error: r.Error, Wait: wait})
		e.notef("guard: %s failed (%s); trying again in %s (retries: %d of %d)", circuit.KeyWord(key), r.Error, wait.Round(time.Millisecond), try+1, b.Retries)
		timer := time.NewTimer(wait)
		select {
		case sig := <-e.sigs:
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
