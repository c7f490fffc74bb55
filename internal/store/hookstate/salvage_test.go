package hookstate

import (
	"bytes"
	"fmt"
	"slices"
	"testing"
	"time"

	"guard/breaker"
)

// salvageFixture is a state as guard writes it: five keys, the fourth
// forced open by hand, the second open with failures.
func salvageFixture(t *testing.T) []byte {
	t.Helper()
	now := time.Date(2026, 11, 28, 2, 0, 0, 0, time.UTC)
	var d Document
	for i := range 5 {
		c := breaker.Circuit{LastSuccess: now, LastRun: now}
		switch i {
		case 1:
			c.State, c.FailureCount, c.ConsecutiveFailures = breaker.Open, 3, 3
			c.DisabledAt, c.RetryAfter, c.LastError = now, now.Add(5*time.Minute), "exit 1: boom"
		case 3:
			c.State, c.Forced, c.OpenReason, c.DisabledAt = breaker.Open, true, "tripped by hand", now
		}
		c.Totals.Successes = int64(i + 1)
		d.Put(fmt.Sprintf("good%d", i), c)
	}
	data, err := d.MarshalState()
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestSalvageKeepsWholeEntriesOfATornFile covers faults #7: a state cut
// short anywhere keeps every entry that was whole before the cut, as it
// was, and a forced circuit stays forced open as long as what of its
// entry was written says so; the keys past the cut are reported lost.
func TestSalvageKeepsWholeEntriesOfATornFile(t *testing.T) {
	data := salvageFixture(t)
	var whole Document
	if err := whole.UnmarshalState(data); err != nil {
		t.Fatal(err)
	}
	// Where each entry's value ends, and where good3's "forced" member does.
	ends := map[string]int{}
	for _, k := range whole.Keys() {
		start := bytes.Index(data, []byte("\n    \""+k+"\": {"))
		ends[k] = start + bytes.Index(data[start:], []byte("\n    }")) + len("\n    }")
	}
	forcedAt := bytes.Index(data, []byte(`"forced": true`)) + len(`"forced": true`)

	for cut := 1; cut < len(data)-1; cut++ {
		var d Document
		kept, _, _, _ := d.Salvage(data[:cut])
		n := 0
		for _, k := range whole.Keys() {
			got, err := d.Circuit(k)
			if err != nil {
				t.Fatalf("cut at %d: Circuit(%q): %v", cut, k, err)
			}
			if ends[k] <= cut {
				n++
				want, _ := whole.Circuit(k)
				if got.State != want.State || got.Forced != want.Forced || got.Totals.Successes != want.Totals.Successes || got.RetryAfter != want.RetryAfter {
					t.Fatalf("cut at %d: %s = %+v; want it whole, as it was: %+v", cut, k, got, want)
				}
			}
		}
		if kept < n {
			t.Fatalf("cut at %d: kept %d entries; %d were whole", cut, kept, n)
		}
		if g3, _ := d.Circuit("good3"); cut >= forcedAt && (!g3.Forced || g3.State != breaker.Open) {
			t.Fatalf("cut at %d, past good3's forced member: good3 = %+v; want it forced open", cut, g3)
		}
		if _, err := d.MarshalState(); err != nil {
			t.Fatalf("cut at %d: the salvaged document does not write: %v", cut, err)
		}
	}
}

// TestSalvageReadsPastABrokenPart covers faults #7: a state broken in the
// middle (garbage over part of one entry) keeps the entries before and
// after it, the broken one in part if what remains of it checks out, and
// names what it lost.
func TestSalvageReadsPastABrokenPart(t *testing.T) {
	data := salvageFixture(t)
	at := bytes.Index(data, []byte(`"good2": {`))
	at += bytes.Index(data[at:], []byte(`"consecutive_failures"`))
	broken := append(append(slices.Clone(data[:at]), "@@ not json ##\n"...), data[at+40:]...)
	var d Document
	kept, partial, lost, cut := d.Salvage(broken)
	if kept != 5 || !slices.Equal(partial, []string{"good2"}) || len(lost) != 0 || cut {
		t.Errorf("Salvage = %d, partial %q, lost %q, cut %v; want all 5 kept, good2 in part", kept, partial, lost, cut)
	}
	for _, k := range []string{"good0", "good1", "good3", "good4"} {
		if !d.Has(k) {
			t.Errorf("%s was not kept", k)
		}
	}
	if g3, _ := d.Circuit("good3"); !g3.Forced {
		t.Errorf("good3 = %+v; want it forced open", g3)
	}

	// Garbage over a key's opening: that key is lost, the others kept.
	at = bytes.Index(data, []byte(`"good1": {`))
	broken = append(append(slices.Clone(data[:at]), "}}}}"...), data[at+12:]...)
	d = Document{}
	kept, _, lost, _ = d.Salvage(broken)
	if kept != 4 || d.Has("good1") {
		t.Errorf("Salvage with good1's opening broken = %d kept, lost %q, good1 kept %v; want the 4 others", kept, lost, d.Has("good1"))
	}

	// Nothing of guard's layout: nothing kept.
	for _, junk := range []string{"garbage", `{"hooks": [1, 2]}`, "", `{"version": 1, "hooks": {`} {
		d = Document{}
		if kept, _, _, _ := d.Salvage([]byte(junk)); kept != 0 {
			t.Errorf("Salvage(%q) kept %d", junk, kept)
		}
	}
}

// TestPeekOfATornFileIsNoClosedCircuit covers faults #7: the lock-free
// read of a file that does not parse, for a key it cannot find, is an
// error (the update moves the file aside and decides), never a closed
// circuit that would run a forced-open hook.
func TestPeekOfATornFileIsNoClosedCircuit(t *testing.T) {
	data := salvageFixture(t)
	at := bytes.Index(data, []byte(`"good3": {`))
	torn := bytes.ReplaceAll(data[:at+30], []byte(`"checksum"`), nil)
	if _, err := PeekData(torn, "good3"); err == nil {
		t.Error("PeekData of a torn file for a key past the tear: no error")
	}
	if c, err := PeekData(torn, "good0"); err != nil || c.Totals.Successes != 1 {
		t.Errorf("PeekData of a torn file for a whole key = %+v, %v; want it read", c, err)
	}
}

// FuzzSalvage: whatever a file holds, Salvage returns, keeps no more
// entries than it reports, and what it keeps writes as a document that
// parses.
func FuzzSalvage(f *testing.F) {
	data := salvageFixture(&testing.T{})
	f.Add(data)
	f.Add(data[:len(data)/2])
	f.Add([]byte(`{"hooks": {"a": {"state": "open", "forced": tr`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var d Document
		kept, _, _, _ := d.Salvage(data)
		if kept > d.Len() {
			t.Fatalf("Salvage kept %d entries; the document has %d", kept, d.Len())
		}
		out, err := d.MarshalState()
		if err != nil {
			t.Fatalf("the salvaged document does not write: %v", err)
		}
		var again Document
		if err := again.UnmarshalState(out); err != nil {
			t.Fatalf("the salvaged document does not parse: %v\n%s", err, out)
		}
	})
}

// TestSalvageKeepsATornOpenEntryOpen covers faults #7: a circuit tripped
// by hand whose entry was cut before its forced member (but after its
// retry_after of null, which only such a trip writes) stays open until it
// is reset, never due for a probe; one cut before its retry_after is due
// for a probe, as the state says nothing of its cooldown.
func TestSalvageKeepsATornOpenEntryOpen(t *testing.T) {
	var d Document
	if kept, _, _, _ := d.Salvage([]byte(`{"hooks": {"k": {"state": "open", "failure_count": 0, "disabled_at": "2026-11-28T02:00:00Z", "retry_after": null, "open_re`)); kept != 1 {
		t.Fatalf("Salvage kept %d", kept)
	}
	if c, _ := d.Circuit("k"); c.State != breaker.Open || !c.Forced {
		t.Errorf("k = %+v; want it kept open until reset", c)
	}
	d = Document{}
	d.Salvage([]byte(`{"hooks": {"k": {"state": "open", "failure_count": 3, "consecutive_fail`))
	if c, _ := d.Circuit("k"); c.State != breaker.Open || c.Forced {
		t.Errorf("k = %+v; want it open, due for a probe", c)
	}
	// One that said until when keeps that.
	d = Document{}
	d.Salvage([]byte(`{"hooks": {"k": {"state": "open", "retry_after": "2099-01-01T00:00:00Z", "last_err`))
	if c, _ := d.Circuit("k"); c.Forced || c.RetryAfter.Year() != 2099 {
		t.Errorf("k = %+v; want it open until 2099, not forced", c)
	}
}
