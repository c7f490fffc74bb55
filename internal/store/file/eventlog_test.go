package file

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"guard/breaker"
	"guard/internal/circuit"
	"guard/internal/store"
	"guard/internal/store/hookstate"
	"guard/statefile"
)

var logT0 = time.Date(2026, 2, 10, 14, 2, 0, 123e6, time.UTC)

func TestAppendAndRead(t *testing.T) {
	l := &EventLog{Path: filepath.Join(t.TempDir(), "sub", "events.jsonl"), MaxSize: 1 << 20, MaxFiles: 3}
	err := l.Append(
		store.Event{Time: logT0, Event: "run", Key: "python3 lint.py", Outcome: "failure", Exit: store.Int(1), DurationMS: store.Int64(12), Error: "exit 1: boom"},
		store.Event{Time: logT0.Add(time.Millisecond), Event: "transition", Key: "python3 lint.py", From: "closed", To: "open", Reason: "3 consecutive failures"},
	)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(l.Path)
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if len(lines) != 2 {
		t.Fatalf("log holds %d lines; want 2:\n%s", len(lines), data)
	}
	want := `{"time":"2026-02-10T14:02:00Z","ts_ms":1770732120123,"event":"run","key":"python3 lint.py","outcome":"failure","exit":1,"duration_ms":12,"error":"exit 1: boom"}`
	if lines[0] != want {
		t.Errorf("line = %s\nwant   %s", lines[0], want)
	}
	res, err := readEventLogs([]*EventLog{l}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Events) != 2 || res.Events[1].From != "closed" || !res.Events[0].Time.Equal(logT0) || *res.Events[0].Exit != 1 {
		t.Errorf("Read = %+v", res.Events)
	}
	if info, _ := os.Stat(l.Path); info.Mode().Perm() != 0o600 {
		t.Errorf("log mode = %o; want 600", info.Mode().Perm())
	}
}

func TestRotation(t *testing.T) {
	l := &EventLog{Path: filepath.Join(t.TempDir(), "events.jsonl"), MaxSize: 400, MaxFiles: 2}
	for i := range 30 {
		if err := l.Append(store.Event{Time: logT0.Add(time.Duration(i) * time.Second), Event: "run", Key: fmt.Sprint(i)}); err != nil {
			t.Fatal(err)
		}
	}
	files := l.Files()
	if len(files) != 3 || files[0] != l.Path+".2" || files[2] != l.Path {
		t.Fatalf("Files = %v; want .2, .1 and the log", files)
	}
	for _, f := range files {
		if fi, _ := os.Stat(f); fi.Size() > 400 {
			t.Errorf("%s is %d bytes; want at most 400", f, fi.Size())
		}
	}
	res, _ := readEventLogs([]*EventLog{l}, nil)
	// The oldest were rotated away; what is left is the newest, in order.
	if n := len(res.Events); n == 0 || n >= 30 {
		t.Fatalf("read %d events", n)
	}
	for i, e := range res.Events {
		if want := fmt.Sprint(30 - len(res.Events) + i); e.Key != want {
			t.Fatalf("event %d has key %s; want %s", i, e.Key, want)
		}
	}
}

func TestReadSkipsMalformedLines(t *testing.T) {
	path := filepath.Join(t.TempDir(), "events.jsonl")
	good := `{"time":"2026-02-10T14:02:00Z","ts_ms":1770732120000,"event":"run","key":"k"}`
	os.WriteFile(path, []byte(good+"\nnot json\n{\"event\":\"no time\"}\n{\"time\":\"2026-02-10T14:03:00Z\"}\n\n"+good+"\n{\"time\":\"2026-02-10T14:0"), 0o600)
	res, err := readEventLogs([]*EventLog{{Path: path}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Events) != 2 || res.Malformed != 4 {
		t.Errorf("Read = %d events, %d malformed; want 2 and 4", len(res.Events), res.Malformed)
	}
}

func TestReadMergesLogsInTimeOrder(t *testing.T) {
	dir := t.TempDir()
	a := &EventLog{Path: filepath.Join(dir, "a.jsonl")}
	b := &EventLog{Path: filepath.Join(dir, "b.jsonl")}
	a.Append(store.Event{Time: logT0, Event: "run", Key: "1"}, store.Event{Time: logT0.Add(2 * time.Second), Event: "run", Key: "3"})
	b.Append(store.Event{Time: logT0.Add(time.Second), Event: "cooldown", Key: "2"})
	res, _ := readEventLogs([]*EventLog{a, b, a}, func(e *store.Event) bool { return e.Key != "3" })
	if len(res.Events) != 2 || res.Events[0].Key != "1" || res.Events[1].Key != "2" {
		t.Errorf("Read = %+v; want 1 then 2, a read once, 3 filtered", res.Events)
	}
}

// TestRotationUnderConcurrentWriters has 8 processes append while the log
// rotates: no line may be lost, torn or written twice.
func TestRotationUnderConcurrentWriters(t *testing.T) {
	procs, each := 8, 300
	if testing.Short() {
		each = 50
	}
	path := filepath.Join(t.TempDir(), "events.jsonl")
	var wg sync.WaitGroup
	for p := range procs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cmd := exec.Command(os.Args[0], "-test.run=^TestChildAppends$")
			cmd.Env = append(os.Environ(), "EVENTLOG_CHILD="+path, "EVENTLOG_CHILD_ID="+strconv.Itoa(p), "EVENTLOG_CHILD_N="+strconv.Itoa(each))
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Errorf("child %d: %v\n%s", p, err, out)
			}
		}()
	}
	wg.Wait()

	l := &EventLog{Path: path, MaxFiles: 10000}
	if len(l.Files()) < 3 {
		t.Fatalf("the log rotated into only %d files; want many", len(l.Files()))
	}
	seen := map[string]int{}
	for _, f := range l.Files() {
		data, _ := os.ReadFile(f)
		for _, line := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
			var e store.Event
			if err := json.Unmarshal(line, &e); err != nil {
				t.Fatalf("torn line in %s: %q", filepath.Base(f), line)
			}
			seen[e.Key]++
		}
	}
	for p := range procs {
		for i := range each {
			if k := fmt.Sprintf("%d-%d", p, i); seen[k] != 1 {
				t.Fatalf("line %s appears %d times; want once", k, seen[k])
			}
		}
	}
	if len(seen) != procs*each {
		t.Errorf("%d distinct lines; want %d", len(seen), procs*each)
	}
}

// TestChildAppends is a child of TestRotationUnderConcurrentWriters.
func TestChildAppends(t *testing.T) {
	path := os.Getenv("EVENTLOG_CHILD")
	if path == "" {
		t.Skip("run by TestRotationUnderConcurrentWriters")
	}
	id := os.Getenv("EVENTLOG_CHILD_ID")
	n, _ := strconv.Atoi(os.Getenv("EVENTLOG_CHILD_N"))
	// Small files and room for all of them, so nothing is rotated away.
	l := &EventLog{Path: path, MaxSize: 4 << 10, MaxFiles: 10000}
	for i := range n {
		if err := l.Append(store.Event{Time: time.Now(), Event: "run", Key: id + "-" + strconv.Itoa(i), Error: strings.Repeat("x", 50)}); err != nil {
			t.Fatal(err)
		}
	}
}

// TestEventLogLockHeldElsewhere: a holder of the event log's lock that
// keeps it (a stopped guard, another tool) never holds up the state: an
// update only tries the log's lock while it holds the state's, writes the
// state all the same, and appends its events once the state's lock is let
// go, waiting up to the log's LockTimeout, then leaving them out with an
// error to logErr. Before, an update waited for the log's lock for ever
// with the state's lock held, and every other guard with it.
func TestEventLogLockHeldElsewhere(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "state.json")
	logPath := filepath.Join(dir, "state.events.jsonl")
	open := func(logWait time.Duration) (*Circuits, chan error) {
		errs := make(chan error, 8)
		s, err := openCircuits(path, statefile.Options{LockTimeout: 10 * time.Second}, hookstate.Retention{},
			func(string) (*EventLog, error) { return &EventLog{Path: logPath, LockTimeout: logWait}, nil },
			func(err error) { errs <- err })
		if err != nil {
			t.Fatal(err)
		}
		return s, errs
	}
	record := func(s *Circuits, key string) error {
		return s.Update(t0, func(tx store.CircuitTx) (bool, error) {
			_, err := circuit.Record(tx, key, settings, t0, breaker.Result{Outcome: breaker.Failure, Error: "exit 1"}, circuit.Run{})
			return true, err
		})
	}
	// a waits as good as for ever for the log's lock; b gives up at once.
	a, aErrs := open(time.Hour)
	b, bErrs := open(time.Nanosecond)
	if err := record(b, "first"); err != nil || len(bErrs) != 0 {
		t.Fatalf("an update with the log free: %v, %d log errors", err, len(bErrs))
	}
	held, err := os.OpenFile(logPath, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := lockFile(held); err != nil {
		t.Fatal(err)
	}
	defer held.Close()

	aDone := make(chan error, 1)
	go func() { aDone <- record(a, "a") }()
	failures := func(key string) int {
		d, err := b.document()
		if err != nil {
			t.Fatal(err)
		}
		c, _ := d.Circuit(key)
		return c.ConsecutiveFailures
	}
	for deadline := time.Now().Add(time.Minute); failures("a") != 1; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("a's update never wrote the state")
		}
	}
	// a now waits for the log's lock: the state's is free for b, which
	// writes its record and leaves its event out.
	if err := record(b, "b"); err != nil {
		t.Fatalf("an update while another waits for the log's lock: %v; want it done (the state's lock is not held meanwhile)", err)
	}
	if failures("b") != 1 {
		t.Error("b's update did not write the state")
	}
	select {
	case err := <-bErrs:
		if !errors.Is(err, errLockBusy) || !strings.Contains(err.Error(), "cannot lock event log") {
			t.Errorf("b's log error = %v; want the event log's lock not obtained", err)
		}
	default:
		t.Error("b's event was left out without an error")
	}
	select {
	case err := <-aDone:
		t.Fatalf("a's update returned (%v) while the log's lock is still held; want it waiting", err)
	default:
	}

	closeLocked(held)
	select {
	case err := <-aDone:
		if err != nil || len(aErrs) != 0 {
			t.Fatalf("a's update = %v (%d log errors); want it done and logged", err, len(aErrs))
		}
	case <-time.After(time.Minute):
		t.Fatal("a's update did not end once the log's lock was let go")
	}
	data, _ := os.ReadFile(logPath)
	if !strings.Contains(string(data), `"key":"a"`) || strings.Contains(string(data), `"key":"b"`) {
		t.Errorf("the log holds:\n%s\nwant a's event (appended once the lock was let go) and not b's (given up)", data)
	}
}

// BenchmarkAppendOneEvent is the event line of guard run's record of an
// outcome: open the log, lock it, check it is the log, write, close.
func BenchmarkAppendOneEvent(b *testing.B) {
	l := &EventLog{Path: filepath.Join(b.TempDir(), "state.events.jsonl"), MaxSize: 1 << 40, MaxFiles: 3, Owner: "", Host: "vm"}
	ev := store.Event{Time: logT0, Event: "run", Key: "uv run check.py", Outcome: "success", Exit: store.Int(0), DurationMS: store.Int64(12)}
	for b.Loop() {
		if err := l.Append(ev); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRecordAClosedRun is guard run's locked update after a closed
// call's child, on a state of 10 keys: the lock, the read, the write (the
// filesystem's, with its fsyncs) and the event line.
func BenchmarkRecordAClosedRun(b *testing.B) {
	dir := b.TempDir()
	path := filepath.Join(dir, "state.json")
	s, err := openCircuits(path, statefile.Options{}, hookstate.Retention{},
		func(string) (*EventLog, error) {
			return &EventLog{Path: filepath.Join(dir, "state.events.jsonl"), MaxSize: 1 << 40, MaxFiles: 3, Host: "vm"}, nil
		}, func(err error) { b.Fatal(err) })
	if err != nil {
		b.Fatal(err)
	}
	record := func(key string) {
		err := s.Update(t0, func(tx store.CircuitTx) (bool, error) {
			_, err := circuit.Record(tx, key, settings, t0, breaker.Result{Outcome: breaker.Success}, circuit.Run{})
			return true, err
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	for i := range 10 {
		record(fmt.Sprintf("uv run check_%d.py", i))
	}
	for b.Loop() {
		record("uv run check_5.py")
	}
}
