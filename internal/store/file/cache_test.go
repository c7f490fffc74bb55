package file

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"guard/internal/store"
)

// TestCacheReadsAsReadDoes holds a Cache to what Read finds, step by step
// through appends, rotations, a line half written, and the log removed.
func TestCacheReadsAsReadDoes(t *testing.T) {
	dir := t.TempDir()
	l := &EventLog{Path: filepath.Join(dir, "events.jsonl"), MaxSize: 600, MaxFiles: 2}
	other := &EventLog{Path: filepath.Join(dir, "cooldown.events.jsonl")}
	logs := EventLogs{l, other, l} // a log named twice is read once
	runs := func(e *store.Event) bool { return e.Event == "run" }
	c := newEventCache(logs, runs)
	n := 0
	appendN := func(log *EventLog, count int) {
		for range count {
			ev := store.Event{Time: logT0.Add(time.Duration(n) * time.Second), Event: "run", Key: fmt.Sprint(n), DurationMS: store.Int64(int64(n))}
			if n%3 == 0 {
				ev.Event = "skip"
			}
			if err := log.Append(ev); err != nil {
				t.Fatal(err)
			}
			n++
		}
	}
	check := func(step string) {
		t.Helper()
		want, err := readEventLogs(logs, runs)
		if err != nil {
			t.Fatal(err)
		}
		got, err := c.Read(nil)
		if err != nil {
			t.Fatalf("%s: %v", step, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: Cache.Read = %d events (%d malformed); Read = %d (%d)", step, len(got.Events), got.Malformed, len(want.Events), want.Malformed)
		}
		// A second filter applies on top of the Cache's own.
		some, _ := c.Read(func(e *store.Event) bool { return e.Key == "1" })
		if len(some.Events) > 1 {
			t.Fatalf("%s: Read(filter) = %v", step, some.Events)
		}
	}
	check("no log yet")
	appendN(l, 2)
	check("first lines")
	appendN(l, 1)
	appendN(other, 2)
	check("appended, and a second log")
	appendN(l, 4) // past MaxSize: rotated once
	check("rotated")
	appendN(l, 20) // rotated several times, the oldest removed
	check("rotated away")
	if len(l.Files()) != 3 {
		t.Fatalf("Files = %v; want 3", l.Files())
	}

	// A line being written is read once it is whole.
	f, err := os.OpenFile(l.Path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"time":"2026-02-10T15:00:00Z","ts_ms":1770735600000,"event":"run",`)
	got, _ := c.Read(nil)
	f.WriteString(`"key":"late"}` + "\n")
	f.Close()
	if again, _ := c.Read(nil); len(again.Events) != len(got.Events)+1 || again.Events[len(again.Events)-1].Key != "late" {
		t.Fatalf("the line finished later was not read: %d events, then %d", len(got.Events), len(again.Events))
	}
	check("a line written in two parts")
	os.WriteFile(l.Path+".tmp", []byte("not json\n"), 0o600)
	os.Rename(l.Path+".tmp", l.Path) // replaced
	check("replaced")
	os.Remove(l.Path)
	os.Remove(l.Path + ".1")
	check("removed")
}

// TestCacheReadsOnlyWhatIsNew checks that a Read after the first does not
// read again what it read: bytes already read (past the head the Cache
// checks) are changed in place, and the Cache does not see it.
func TestCacheReadsOnlyWhatIsNew(t *testing.T) {
	l := &EventLog{Path: filepath.Join(t.TempDir(), "events.jsonl")}
	for i := range 20 {
		l.Append(store.Event{Time: logT0.Add(time.Duration(i) * time.Second), Event: "run", Key: "old"})
	}
	c := newEventCache(EventLogs{l}, nil)
	if res, _ := c.Read(nil); len(res.Events) != 20 {
		t.Fatalf("first Read: %d events; want 20", len(res.Events))
	}
	data, _ := os.ReadFile(l.Path)
	for i := headSize; i < len(data); i++ {
		if data[i] != '\n' {
			data[i] = 'x'
		}
	}
	os.WriteFile(l.Path, data, 0o600) // the same file, the same size
	l.Append(store.Event{Time: logT0.Add(time.Hour), Event: "run", Key: "new"})
	res, err := c.Read(nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Events) != 21 || res.Malformed != 0 || res.Events[20].Key != "new" {
		t.Errorf("second Read: %d events, %d malformed; want the 20 read before and the new one", len(res.Events), res.Malformed)
	}
	if full, _ := readEventLogs(EventLogs{l}, nil); full.Malformed == 0 {
		t.Errorf("Read found no malformed line: the test changed nothing")
	}
}

// TestTailReturnsEachEventOnce appends, rotates and appends again: every
// event comes out of the Tail exactly once, in time order, and the host
// the log was given is written into each.
func TestTailReturnsEachEventOnce(t *testing.T) {
	l := &EventLog{Path: filepath.Join(t.TempDir(), "events.jsonl"), MaxSize: 600, MaxFiles: 5, Host: "h1"}
	tail := EventLogs{l}.Tail(nil)
	n := 0
	var got []string
	for _, batch := range []int{0, 3, 1, 10, 0, 7} {
		for range batch {
			if err := l.Append(store.Event{Time: logT0.Add(time.Duration(n) * time.Second), Event: "run", Key: fmt.Sprint(n)}); err != nil {
				t.Fatal(err)
			}
			n++
		}
		var evs []store.Event
		if err := tail.Next(func(e *store.Event) { evs = append(evs, *e) }); err != nil {
			t.Fatal(err)
		}
		if len(evs) != batch {
			t.Fatalf("after appending %d: Next = %d events", batch, len(evs))
		}
		for _, e := range evs {
			if e.Host != "h1" {
				t.Fatalf("event %s: host %q; want h1", e.Key, e.Host)
			}
			got = append(got, e.Key)
		}
	}
	if len(l.Files()) < 2 {
		t.Fatalf("the log never rotated: %v", l.Files())
	}
	for i, k := range got {
		if k != fmt.Sprint(i) {
			t.Fatalf("events out of order or repeated: %v", got)
		}
	}
}
