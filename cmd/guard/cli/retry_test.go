package cli

import (
	"bytes"
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
