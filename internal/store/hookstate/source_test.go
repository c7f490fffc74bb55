package hookstate

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"guard/breaker"
	"guard/internal/circuit"
	"guard/internal/store"
)

// sealedFile is what guard writes for keys, each with one success.
func sealedFile(t testing.TB, keys ...string) []byte {
	t.Helper()
	var d Document
	for _, k := range keys {
		circuit.Record(&d, k, settings, t0, breaker.Result{Outcome: breaker.Success}, circuit.Run{})
	}
	d.Tidy(t0, Retention{})
	out, err := d.MarshalState()
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// hardKeys are keys whose JSON needs escapes, or looks like layout.
var hardKeys = []string{
	`python3 lint.py`,
	`sh -c "echo \"hi\" && exit 1"`,
	"tab\there, newline\nthere",
	`ends with backslash \`,
	`{"looks": "like json"}: `,
	"é ü \u2028 \u00e9",
	"",
}

func TestGuardsOwnFileIsReadWithoutSplitting(t *testing.T) {
	data := sealedFile(t, hardKeys...)
	if !bytes.Contains(data, []byte(`"checksum": "crc32:`)) {
		t.Fatalf("no checksum in\n%s", data)
	}
	var d Document
	if err := d.UnmarshalState(data); err != nil {
		t.Fatal(err)
	}
	if d.src == nil || d.src.listed {
		t.Fatal("a sealed file was split up front")
	}
	for _, k := range hardKeys {
		h, err := d.Hook(k)
		if err != nil || h == nil || h.Totals.Successes != 1 {
			t.Errorf("Hook(%q) = %+v, %v", k, h, err)
		}
	}
	if h, err := d.Hook("not there"); h != nil || err != nil {
		t.Errorf("Hook(missing) = %+v, %v", h, err)
	}
	if d.GlobalStats.TotalExecutions != int64(len(hardKeys)) {
		t.Errorf("global_stats = %+v", d.GlobalStats)
	}
	if got := d.Keys(); len(got) != len(hardKeys) {
		t.Errorf("Keys() = %q", got)
	}
}

func TestSplicedWriteChangesOnlyTheEntryTouched(t *testing.T) {
	keys := []string{"a", "b", "c", "d"}
	data := sealedFile(t, keys...)
	var d Document
	if err := d.UnmarshalState(data); err != nil {
		t.Fatal(err)
	}
	mustRecord(t, &d, "c", settings, t0.Add(time.Second), breaker.Result{Outcome: breaker.Failure, Error: "boom"}, circuit.Run{Exit: 1})
	mustRecord(t, &d, "new key", settings, t0.Add(time.Second), breaker.Result{Outcome: breaker.Success}, circuit.Run{})
	d.Tidy(t0.Add(time.Second), Retention{})
	if d.src.listed {
		t.Fatal("a write of two keys split the whole file")
	}
	segs, err := d.MarshalSegments()
	if err != nil {
		t.Fatal(err)
	}
	out := bytes.Join(segs, nil)

	// The same document, decoded in full and written afresh.
	var full Document
	if err := full.UnmarshalState(data); err != nil {
		t.Fatal(err)
	}
	full.listAll()
	for _, k := range full.Keys() {
		full.Hook(k)
	}
	mustRecord(t, &full, "c", settings, t0.Add(time.Second), breaker.Result{Outcome: breaker.Failure, Error: "boom"}, circuit.Run{Exit: 1})
	mustRecord(t, &full, "new key", settings, t0.Add(time.Second), breaker.Result{Outcome: breaker.Success}, circuit.Run{})
	full.Tidy(t0.Add(time.Second), Retention{})
	want, _ := full.MarshalState()
	if string(out) != string(want) {
		t.Fatalf("spliced write:\n%s\nwant:\n%s", out, want)
	}
	if len(segs) > 12 {
		t.Errorf("%d segments for a change to one entry", len(segs))
	}

	var again Document
	if err := again.UnmarshalState(out); err != nil || again.src == nil {
		t.Fatalf("guard does not take its own write as sealed: %v", err)
	}
	if h, _ := again.Hook("c"); h == nil || h.LastError == nil || *h.LastError != "boom" {
		t.Errorf("c = %+v", h)
	}
}

func TestListedWriteCopiesRunsWhole(t *testing.T) {
	var keys []string
	for i := range 100 {
		keys = append(keys, fmt.Sprintf("key %d", i))
	}
	data := sealedFile(t, keys...)
	var d Document
	if err := d.UnmarshalState(data); err != nil {
		t.Fatal(err)
	}
	mustRecord(t, &d, "key 50", settings, t0, breaker.Result{Outcome: breaker.Success}, circuit.Run{})
	if d.Len() != 100 {
		t.Fatalf("Len() = %d", d.Len())
	}
	segs, err := d.MarshalSegments()
	if err != nil {
		t.Fatal(err)
	}
	if len(segs) > 12 {
		t.Errorf("%d segments; runs of untouched entries should be one each", len(segs))
	}
	var again Document
	if err := again.UnmarshalState(bytes.Join(segs, nil)); err != nil || again.src == nil || again.Len() != 100 {
		t.Fatalf("round trip: %v, %d keys", err, again.Len())
	}
	if h, _ := again.Hook("key 50"); h == nil || h.Totals.Successes != 2 {
		t.Errorf("key 50 = %+v", h)
	}
}

func TestEditedFileIsCheckedInFull(t *testing.T) {
	data := sealedFile(t, "a", "b")
	// A person changes a value: the checksum no longer matches.
	edited := bytes.Replace(data, []byte(`"successes": 1`), []byte(`"successes": 7`), 1)
	var d Document
	if err := d.UnmarshalState(edited); err != nil {
		t.Fatal(err)
	}
	if d.src != nil {
		t.Fatal("an edited file was trusted")
	}
	if h, _ := d.Hook("a"); h == nil || h.Totals.Successes != 7 {
		t.Errorf("a = %+v", h)
	}
	// A broken edit is found, though the file looks like guard's.
	broken := bytes.Replace(data, []byte(`"successes": 1`), []byte(`"successes": 1,,`), 1)
	if err := new(Document).UnmarshalState(broken); err == nil {
		t.Error("a file with a syntax error was accepted")
	}
}

func TestForeignLayoutIsLaidOutAfresh(t *testing.T) {
	// Multi-line values at odd indentation, a repeated key, an escaped key.
	in := "{\"hooks\": {\n\"a\": {\n\"state\": \"closed\",\n    \"x\": [\n1,\n    2]},\n" +
		"\"\\u0062\": {\"state\": \"open\"},\n\"a\": {\"state\": \"closed\", \"failure_count\": 2}},\n\"note\": {\n\"k\":\n1}}"
	var d Document
	if err := d.UnmarshalState([]byte(in)); err != nil {
		t.Fatal(err)
	}
	if h, _ := d.Hook("a"); h == nil || h.FailureCount != 2 {
		t.Errorf("a = %+v; want the last of the repeated key", h)
	}
	out, err := d.MarshalState()
	if err != nil {
		t.Fatal(err)
	}
	var again Document
	if err := again.UnmarshalState(out); err != nil || again.src == nil {
		t.Fatalf("not sealed after a write: %v\n%s", err, out)
	}
	if got := again.Keys(); strings.Join(got, ",") != "a,b" {
		t.Errorf("keys = %q", got)
	}
	if !bytes.Contains(out, []byte(`"b": {"state": "open"}`)) {
		t.Errorf("an untouched one-line entry was not kept as it was:\n%s", out)
	}
}

func TestForgedChecksumDoesNotFool(t *testing.T) {
	// A file whose checksum matches but whose layout is not guard's (no
	// guard writes this; someone forged it) must not panic or be written
	// back as anything but an error.
	body := "{\n  \"version\": 1,\n  \"hooks\": {\n    \"a\": {\"state\": \"closed\"},\n    \"b\"\n  },\n  \"global_stats\": {},\n"
	data := append([]byte(body), Seal(Checksum([]byte(body)))...)
	var d Document
	if err := d.UnmarshalState(data); err != nil {
		return
	}
	d.Keys()
	if _, err := d.Hook("a"); err == nil {
		if _, err := d.MarshalState(); err == nil {
			t.Error("a forged file was written back as if it were fine")
		}
	}
}

func FuzzSealedDocument(f *testing.F) {
	f.Add(string(sealedFile(f, hardKeys...)), "c", 3)
	f.Add(string(sealedFile(f)), "a", 0)
	f.Fuzz(func(t *testing.T, body string, key string, cut int) {
		// Whatever the body, once sealed, reading it must not panic; and if
		// it reads, a write must read back.
		b := []byte(body)
		if i := bytes.LastIndex(b, []byte(`  "checksum"`)); i >= 0 {
			b = b[:i]
		}
		data := append(b, Seal(Checksum(b))...)
		var d Document
		if err := d.UnmarshalState(data); err != nil {
			return
		}
		// Keys reach the state as circuit.ValidKey writes them: a key
		// that is not UTF-8 would be written back with U+FFFD, and lost.
		key = circuit.ValidKey(key)
		if _, err := d.Hook(key); err != nil {
			return
		}
		circuit.Record(&d, key, settings, t0, breaker.Result{Outcome: breaker.Success}, circuit.Run{})
		if cut%2 == 0 {
			d.Keys()
		}
		out, err := d.MarshalState()
		if err != nil {
			return
		}
		var again Document
		if err := again.UnmarshalState(out); err != nil {
			t.Fatalf("guard cannot read what it wrote: %v\n%s", err, out)
		}
		if h, err := again.Hook(key); err != nil || h == nil {
			t.Fatalf("the key written is gone: %v\n%s", err, out)
		}
	})
}

// TestSealedFileWithARepeatedKeyIsCorrupt: guard never writes a key twice,
// so a sealed file that has one twice is corrupt (and moved aside by
// statefile) once its entries are listed, rather than written back with
// both, the first shadowing the second.
func TestSealedFileWithARepeatedKeyIsCorrupt(t *testing.T) {
	one := sealedFile(t, "a", "b")
	body, ok := Unseal(one)
	if !ok {
		t.Fatal("sealedFile is not sealed")
	}
	// Name b's entry a as well.
	twice := bytes.Replace(body, []byte("\n    \"b\": "), []byte("\n    \"a\": "), 1)
	data := append(twice, Seal(Checksum(twice))...)
	var d Document
	if err := d.UnmarshalState(data); err != nil {
		t.Fatal(err)
	}
	d.Len()
	if _, err := d.MarshalState(); !errors.Is(err, store.ErrCorrupt) {
		t.Fatalf("MarshalState = %v; want a corrupt file", err)
	}
}
