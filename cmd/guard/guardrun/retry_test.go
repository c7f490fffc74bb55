package guardrun

import (
	"bytes"
	"io"
	"strings"
	"testing"
	"time"
)

func TestHeldPassesOrDrops(t *testing.T) {
	var dst bytes.Buffer
	h := &held{dst: &dst}
	h.Write([]byte("partial {"))
	if dst.Len() != 0 {
		t.Fatalf("held wrote %q before it knew", dst.String())
	}
	h.drop()
	h.Write([]byte("late"))
	if dst.Len() != 0 || h.spilled() {
		t.Fatalf("a dropped try wrote %q", dst.String())
	}
	h = &held{dst: &dst}
	h.Write([]byte("{}"))
	h.pass()
	h.Write([]byte("\n"))
	if dst.String() != "{}\n" {
		t.Errorf("passed: %q", dst.String())
	}
	dst.Reset()
	h = &held{dst: &dst}
	big := strings.Repeat("x", maxHeld)
	h.Write([]byte("a"))
	h.Write([]byte(big))
	if !h.spilled() || dst.Len() != maxHeld+1 {
		t.Errorf("more than maxHeld: spilled %v, wrote %d", h.spilled(), dst.Len())
	}
	var nilHeld *held
	nilHeld.pass()
	nilHeld.drop()
	if nilHeld.spilled() {
		t.Error("a nil held spilled")
	}
}

func TestKeptKeepsStartAndEnd(t *testing.T) {
	var k kept
	k.Write([]byte("START\n"))
	for range 10000 {
		k.Write([]byte("middle line\n"))
	}
	k.Write([]byte("END\n"))
	got := k.Bytes()
	if !bytes.HasPrefix(got, []byte("START\n")) || !bytes.HasSuffix(got, []byte("END\n")) || len(got) > 2*keepEach+1 {
		t.Errorf("kept %d bytes, %q ... %q", len(got), got[:10], got[len(got)-10:])
	}
	var small kept
	small.Write([]byte("all of it"))
	if string(small.Bytes()) != "all of it" {
		t.Errorf("small: %q", small.Bytes())
	}
}

func TestRetryWaitDoublesWithJitter(t *testing.T) {
	for n, want := range []time.Duration{time.Second, 2 * time.Second, 4 * time.Second} {
		for range 100 {
			if got := retryWait(time.Second, n); got < want/2 || got > want {
				t.Fatalf("retryWait(1s, %d) = %s; want within [%s, %s]", n, got, want/2, want)
			}
		}
	}
	if got := retryWait(time.Hour, 40); got > time.Hour {
		t.Errorf("retryWait(1h, 40) = %s; want at most an hour", got)
	}
	if got := retryWait(0, 3); got != 0 {
		t.Errorf("retryWait(0, 3) = %s", got)
	}
}

// TestReplayDoesNotWaitForStdinsEnd: the first try reads what stdin gives
// while it stays open; stdin is whole (for another try) only once it ended.
func TestReplayDoesNotWaitForStdinsEnd(t *testing.T) {
	pr, pw := io.Pipe()
	in := newReplay(pr)
	go pw.Write([]byte("hello\n"))
	first := in.reader(true)
	got := make([]byte, 6)
	if _, err := io.ReadFull(first, got); err != nil || string(got) != "hello\n" {
		t.Fatalf("the first try read %q, %v", got, err)
	}
	if in.wholeWithin(10 * time.Millisecond) {
		t.Fatal("stdin still open, yet whole")
	}
	pw.Write([]byte("world\n"))
	pw.Close()
	if !in.wholeWithin(time.Minute) {
		t.Fatal("stdin ended, yet not whole")
	}
	again, err := io.ReadAll(in.reader(false))
	if err != nil || string(again) != "hello\nworld\n" {
		t.Errorf("the next try read %q, %v", again, err)
	}
	rest, _ := io.ReadAll(first)
	if string(rest) != "world\n" {
		t.Errorf("the first try's rest: %q", rest)
	}
}

// TestReplayOverTheLimit: a stdin longer than maxPayload is the first
// try's, whole, and cannot be given again.
func TestReplayOverTheLimit(t *testing.T) {
	big := bytes.Repeat([]byte("x"), maxPayload+1000)
	in := newReplay(bytes.NewReader(big))
	got, err := io.ReadAll(in.reader(true))
	if err != nil || len(got) != len(big) {
		t.Fatalf("the first try read %d bytes, %v; want %d", len(got), err, len(big))
	}
	if in.wholeWithin(time.Minute) {
		t.Error("more than maxPayload, yet whole")
	}
}
