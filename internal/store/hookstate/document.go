package hookstate

import (
	"bytes"
	"fmt"
	"slices"
	"sort"
	"time"

	"guard/breaker"
	"guard/internal/jsonx"
	"guard/internal/store"
)

// Version is the document version this guard writes.
const Version = 1

// A Document is the whole of hook_state.json. Its zero value is an empty
// state. Members guard does not know are kept, at every level.
//
// A Document decodes lazily: each key's entry stays the bytes it was read
// as until something asks for it, and an entry nobody touched is written
// back as those same bytes. A file guard wrote is not even split into its
// entries until something needs them all (see source): so a call costs
// little more with a thousand keys than with ten.
type Document struct {
	Version     int
	GlobalStats GlobalStats
	Extra       jsonx.Extra

	entries []*entry          // in file order, then new keys; with a source not yet listed, only those looked up
	index   map[string]*entry // by key, built once lookups add up
	lookups int
	pending []store.Event // to log with the next write; see Note

	src *source // the file, if guard wrote it
	err error   // the source is not what its checksum says; see listAll

	aside []store.Aside // entries that did not check out, set aside

	relaxed bool // see Relax
}

// Relax marks the update as one that only moved the counters of a closed,
// healthy circuit (store.CircuitTx).
func (d *Document) Relax() { d.relaxed = true }

// Relaxed reports whether the update may be written without the directory
// sync (statefile.Relaxer): it was marked so, and set nothing aside.
func (d *Document) Relaxed() bool { return d.relaxed && len(d.aside) == 0 }

// Aside returns the entries set aside so far.
func (d *Document) Aside() []store.Aside { return d.aside }

// find returns key's entry, or nil. A call looks up a key or two, and a
// linear search is cheaper than building an index over thousands of keys;
// a caller that goes through every key soon gets an index.
func (d *Document) find(key string) *entry {
	if d.src != nil && !d.src.listed {
		for _, e := range d.entries {
			if e.key == key {
				return e
			}
		}
		if d.lookups++; d.lookups >= 8 {
			d.listAll()
			return d.find(key)
		}
		e, err := d.src.search(key)
		if err != nil {
			d.err = err
		}
		if e != nil {
			d.entries = append(d.entries, e)
		}
		return e
	}
	if d.index == nil {
		if d.lookups++; d.lookups < 8 {
			for i := len(d.entries) - 1; i >= 0; i-- { // a repeated key: the last wins
				if d.entries[i].key == key {
					return d.entries[i]
				}
			}
			return nil
		}
		d.index = make(map[string]*entry, len(d.entries))
		for _, e := range d.entries {
			d.index[e.key] = e
		}
	}
	return d.index[key]
}

// An entry is one key's place in the document.
type entry struct {
	key  string
	raw  []byte // the entry as read, while it is not decoded
	hook *Hook  // the decoded entry, once asked for
	gone bool   // deleted by pruning

	// An entry of the source is data[off:end] there: a newline, the
	// indentation, the key, ": " and, from val, the value.
	inSource      bool
	off, val, end int
}

// Has reports whether key has an entry.
func (d *Document) Has(key string) bool {
	e := d.find(key)
	return e != nil && !e.gone
}

// Len returns the number of keys.
func (d *Document) Len() int {
	d.listAll()
	n := 0
	for _, e := range d.entries {
		if !e.gone {
			n++
		}
	}
	return n
}

// Hook returns the entry of key, decoding it if need be, or nil if key has
// none. An entry that does not decode or check out (see Hook.Check) is set
// aside (see SetAside) and key has none from then on.
func (d *Document) Hook(key string) (*Hook, error) {
	e := d.find(key)
	if d.err != nil {
		return nil, d.err
	}
	if e == nil || e.gone {
		return nil, nil
	}
	if e.hook == nil {
		h := &Hook{}
		err := h.UnmarshalJSON(e.raw)
		if err == nil {
			err = h.Check()
		}
		if err != nil {
			d.aside = append(d.aside, store.Aside{Key: key, Raw: bytes.Clone(e.raw), Err: err})
			d.remove(key) // so that no way of writing the document keeps it
			return nil, nil
		}
		e.hook, e.raw = h, nil
	}
	return e.hook, nil
}

// setHook gives key the entry h, adding the key if it is new.
func (d *Document) setHook(key string, h *Hook) {
	e := d.find(key)
	if e == nil {
		e = &entry{key: key}
		d.entries = append(d.entries, e)
		if d.index != nil {
			d.index[key] = e
		}
	}
	e.hook, e.raw, e.gone = h, nil, false
}

// remove deletes key's entry.
func (d *Document) remove(key string) {
	d.listAll()
	if e := d.find(key); e != nil {
		e.gone, e.hook, e.raw = true, nil, nil
	}
}

// UnmarshalState reads a document for statefile. A file guard wrote (its
// checksum matches) is taken as it is, with its entries left to be found
// when asked for; any other is checked and split into its entries in one
// pass over data.
func (d *Document) UnmarshalState(data []byte) error {
	if ok, err := d.unmarshalSealed(data); ok || err != nil {
		return err
	}
	top, hooks, err := jsonx.Members(data, "hooks")
	if err != nil {
		return err
	}
	*d = Document{entries: make([]*entry, 0, len(hooks))}
	for _, m := range top {
		if m.Key != "hooks" {
			continue
		}
		if v := m.Value; len(v) > 0 && v[0] != '{' && string(v) != "null" {
			return fmt.Errorf("hooks is not an object")
		}
		all := make([]entry, len(hooks)) // one allocation for all of them
		for i, h := range hooks {
			// An entry that is not an object is set aside when it is
			// used (see Hook), like any other that does not check out.
			all[i] = entry{key: h.Key, raw: h.Value}
			d.entries = append(d.entries, &all[i])
		}
	}
	if len(d.entries) > 1 {
		// A repeated key: the last one wins, and the others go.
		last := make(map[string]*entry, len(d.entries))
		for _, e := range d.entries {
			if prev := last[e.key]; prev != nil {
				prev.gone, prev.raw = true, nil
			}
			last[e.key] = e
		}
	}
	return d.topMembers(top)
}

// topMembers reads the top-level members other than hooks.
func (d *Document) topMembers(members []jsonx.Member) error {
	for _, m := range members {
		switch m.Key {
		case "hooks", ChecksumMember:
		case "version":
			v, err := jsonx.ParseInt(m.Value)
			if err != nil {
				return fmt.Errorf("version: %w", err)
			}
			d.Version = int(v)
		case "global_stats":
			if err := d.GlobalStats.UnmarshalJSON(m.Value); err != nil {
				return fmt.Errorf("global_stats: %w", err)
			}
		default:
			if d.Extra == nil {
				d.Extra = jsonx.Extra{}
			}
			d.Extra[m.Key] = m.Value
		}
	}
	return nil
}

// UnmarshalJSON implements json.Unmarshaler.
func (d *Document) UnmarshalJSON(b []byte) error { return d.UnmarshalState(b) }

// MarshalState writes the document for statefile; see MarshalSegments.
func (d *Document) MarshalState() ([]byte, error) {
	segs, err := d.MarshalSegments()
	if err != nil {
		return nil, err
	}
	return bytes.Join(segs, nil), nil
}

// MarshalJSON implements json.Marshaler.
func (d *Document) MarshalJSON() ([]byte, error) { return d.MarshalState() }

// MarshalSegments writes the document for statefile, sealed (see
// Seal) and laid out as source describes: indented by two spaces
// a level, global_stats after hooks, then the members guard does not know
// in name order. The entries nobody touched are slices of the bytes they
// were read from, a run of them one slice, when those bytes are guard's
// own; otherwise they are laid out afresh, their values as they were.
func (d *Document) MarshalSegments() ([][]byte, error) {
	if d.err != nil {
		return nil, d.err
	}
	var w segmentWriter
	fmt.Fprintf(&w.b, "{\n  \"version\": %d,\n  \"hooks\": {", d.Version)
	n := 0
	if d.src != nil && !d.src.listed {
		n = d.writeSpliced(&w)
	} else {
		n = d.writeListed(&w)
	}
	if n > 0 {
		w.b.WriteString("\n  ")
	}
	w.b.WriteString("},\n  \"global_stats\": ")
	writeGlobalStats(&w.b, &d.GlobalStats, "  ", false)
	names := make([]string, 0, len(d.Extra))
	for name := range d.Extra {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		w.b.WriteString(",\n  ")
		jsonx.AppendString(&w.b, name)
		w.b.WriteString(": ")
		jsonx.AppendRaw(&w.b, d.Extra[name], "  ")
	}
	w.b.WriteString(",\n")
	segs := w.segments()
	return append(segs, Seal(Checksum(segs...))), nil
}

// writeSpliced writes the members of hooks for a document whose source is
// not listed: the source's with the entries that were looked up spliced
// in, then the new keys. It returns how many members it wrote, or 1 for
// "some".
func (d *Document) writeSpliced(w *segmentWriter) int {
	data := d.src.data
	var found, added []*entry
	for _, e := range d.entries {
		if e.inSource {
			found = append(found, e)
		} else if !e.gone {
			added = append(added, e)
		}
	}
	sort.Slice(found, func(i, j int) bool { return found[i].off < found[j].off })
	pos := d.src.body
	for _, e := range found {
		if e.hook == nil {
			continue // as it was
		}
		w.external(data[pos:e.val])
		writeHook(&w.b, e.hook, "    ", false)
		pos = e.end
	}
	w.external(data[pos:d.src.end])
	n := 0
	if d.src.end > d.src.body {
		n = 1
	}
	for _, e := range added {
		d.writeMember(w, e, n)
		n++
	}
	return n
}

// writeListed writes the members of hooks from d.entries.
func (d *Document) writeListed(w *segmentWriter) int {
	n := 0
	runStart, runEnd := -1, -1 // a run of entries copied from the source
	flush := func() {
		if runStart >= 0 {
			w.external(d.src.data[runStart:runEnd])
			runStart = -1
		}
	}
	for _, e := range d.entries {
		if e.gone {
			continue
		}
		if e.inSource && e.hook == nil {
			if runStart >= 0 && e.off == runEnd+len(",") {
				runEnd = e.end
			} else {
				flush()
				if n > 0 {
					w.b.WriteByte(',')
				}
				runStart, runEnd = e.off, e.end
			}
			n++
			continue
		}
		flush()
		d.writeMember(w, e, n)
		n++
	}
	flush()
	return n
}

// writeMember writes e as the nth member of hooks.
func (d *Document) writeMember(w *segmentWriter, e *entry, n int) {
	if n > 0 {
		w.b.WriteByte(',')
	}
	w.b.WriteString("\n    ")
	jsonx.AppendString(&w.b, e.key)
	w.b.WriteString(": ")
	switch {
	case e.hook != nil:
		writeHook(&w.b, e.hook, "    ", false)
	case bytes.IndexByte(e.raw, '\n') < 0:
		w.external(e.raw)
	default:
		jsonx.AppendRaw(&w.b, e.raw, "    ")
	}
}

// A segmentWriter gathers a document as slices: bytes written to b, and
// slices of other memory, in order.
type segmentWriter struct {
	b     bytes.Buffer
	parts []segmentPart
	mark  int // b's bytes before mark are in parts
}

type segmentPart struct {
	ext      []byte // a slice of other memory, or nil for b[from:to]
	from, to int
}

func (w *segmentWriter) external(p []byte) {
	if len(p) == 0 {
		return
	}
	w.cut()
	w.parts = append(w.parts, segmentPart{ext: p})
}

func (w *segmentWriter) cut() {
	if w.b.Len() > w.mark {
		w.parts = append(w.parts, segmentPart{from: w.mark, to: w.b.Len()})
		w.mark = w.b.Len()
	}
}

// segments returns the slices; nothing more may be written.
func (w *segmentWriter) segments() [][]byte {
	w.cut()
	buf := w.b.Bytes()
	segs := make([][]byte, 0, len(w.parts)+1)
	for _, p := range w.parts {
		if p.ext != nil {
			segs = append(segs, p.ext)
		} else {
			segs = append(segs, buf[p.from:p.to])
		}
	}
	return segs
}

// GlobalStats are the Python guardrails' totals over every key.
type GlobalStats struct {
	TotalExecutions int64
	TotalFailures   int64
	HooksDisabled   int // keys now open
	LastUpdated     jsonx.Time
	LastSweep       jsonx.Time // guard's: when idle keys were last pruned
	// SkipTally is guard's: how much of the skip tally beside the file
	// (the skips guard run counted without the state's lock) the totals
	// hold already, as "ID:OFFSET": the tally's ID, and the offset its
	// unfolded records start at (and the tally's mtime, once the totals
	// hold all of it); "" for none (see the file backend's skiptally.go).
	SkipTally string
	Extra     jsonx.Extra
}

// A Hook is one key's entry. The fields up to RetryAfter are the Python
// guardrails' own, with their names and meanings, so that its CLI can read
// a file guard wrote; the rest are guard's.
// They are read and written by hand (codec.go), under the names there.
type Hook struct {
	State                string
	FailureCount         int
	ConsecutiveFailures  int
	ConsecutiveSuccesses int
	FirstFailure         jsonx.Time
	LastFailure          jsonx.Time
	LastSuccess          jsonx.Time
	LastError            *string
	DisabledAt           jsonx.Time
	RetryAfter           jsonx.Time

	ReopenCount   int              // re-opens in a row: the back-off exponent
	OpenReason    string           // why it last opened
	Forced        bool             // tripped by hand
	FailureTimes  []jsonx.Time     // failures inside failure_window
	CallBuckets   []breaker.Bucket // calls inside failure_window, counted by bucket, for the rate rules
	Calls         []Call           // as guard before 0.x kept them, one stamp a call: read, and counted into buckets
	RecentCalls   string           // the last of_last calls, oldest first: f failed, s did not
	TrialFailures int              // failed trials since it went half-open (failure_rate)
	ProbeLeases   []Lease          // probes running now
	LastRun       jsonx.Time       // last outcome recorded
	LastStart     jsonx.Time       // last call let run, under min_interval (rounded up to the millisecond)
	Disabled      *Disabled        // guard disable: who turned the key off by hand; nil: it is on
	Totals        Totals
	// RunTimes is the run-time histogram kept beside the totals (run_ms),
	// written only once a run was timed, so that an entry stays small and
	// totals stays a flat object of counts.
	RunTimes breaker.RunTimes
	Extra    jsonx.Extra
}

// Disabled is the "disabled" member of a key that guard disable turned
// off: when, by whom (user, host, pid) and why. The key is on again when
// the member is gone.
type Disabled struct {
	Since  jsonx.Time
	User   string
	Host   string
	PID    int
	Reason string
	Extra  jsonx.Extra
}

// A Call is one call of the rate rules as earlier versions stored it, a
// stamp each: its time, then "ok" or "failed", and "slow" if it was:
// "2026-11-23T06:00:00+00:00 failed slow". guard reads them into buckets
// (see CallBuckets) and no longer writes them.
type Call struct {
	At           jsonx.Time
	Failed, Slow bool
}

// A Lease is a probe lease as the file stores it.
type Lease struct {
	Host       string // the holder's host; none in state from before hosts were recorded
	PID        int
	StartTicks uint64 // the holder's start time in clock ticks since boot
	Acquired   jsonx.Time
	Expires    jsonx.Time // null: only a dead holder ends it
	Extra      jsonx.Extra
}

// Totals count every outcome a key has seen; they survive reset.
type Totals struct {
	Successes int64
	Failures  int64
	Ignored   int64
	Cancelled int64
	Abandoned int64
	Skips     int64
	Rejected  int64
	// SkipsBlocked and RejectedBlocked are written only when not 0, so
	// that an entry stays small.
	SkipsBlocked    int64
	RejectedBlocked int64
	Extra           jsonx.Extra
}

// Circuit returns the breaker's view of h.
func (h *Hook) Circuit() breaker.Circuit {
	c := breaker.Circuit{
		State:                breaker.State(h.State),
		FailureCount:         h.FailureCount,
		ConsecutiveFailures:  h.ConsecutiveFailures,
		ConsecutiveSuccesses: h.ConsecutiveSuccesses,
		FirstFailure:         h.FirstFailure.Time,
		LastFailure:          h.LastFailure.Time,
		LastSuccess:          h.LastSuccess.Time,
		DisabledAt:           h.DisabledAt.Time,
		RetryAfter:           h.RetryAfter.Time,
		Reopens:              h.ReopenCount,
		OpenReason:           h.OpenReason,
		Forced:               h.Forced,
		LastRun:              h.LastRun.Time,
		LastStart:            h.LastStart.Time,
		Totals: breaker.Totals{
			Successes: h.Totals.Successes,
			Failures:  h.Totals.Failures,
			Ignored:   h.Totals.Ignored,
			Cancelled: h.Totals.Cancelled,
			Abandoned: h.Totals.Abandoned,
			Skips:     h.Totals.Skips,
			Rejected:  h.Totals.Rejected,

			SkipsBlocked:    h.Totals.SkipsBlocked,
			RejectedBlocked: h.Totals.RejectedBlocked,
			RunTimes:        h.RunTimes,
		},
	}
	if h.LastError != nil {
		c.LastError = *h.LastError
	}
	if d := h.Disabled; d != nil {
		c.Disabled = &breaker.Disable{Since: d.Since.Time, User: d.User, Host: d.Host, PID: d.PID, Reason: d.Reason}
	}
	for _, t := range h.FailureTimes {
		c.Failures = append(c.Failures, t.Time)
	}
	c.Calls = append(c.Calls, h.CallBuckets...)
	for _, k := range h.Calls {
		// A stamp a second: breaker's next prune counts them into buckets of
		// the window's width.
		b := breaker.Bucket{Start: k.At.Time.Truncate(time.Second), Calls: 1}
		if k.Failed {
			b.Failed = 1
		}
		if k.Slow {
			b.Slow = 1
		}
		c.Calls = append(c.Calls, b)
	}
	slices.SortStableFunc(c.Calls, func(a, b breaker.Bucket) int { return a.Start.Compare(b.Start) })
	c.Recent, c.TrialFailures = h.RecentCalls, h.TrialFailures
	for _, l := range h.ProbeLeases {
		c.Leases = append(c.Leases, breaker.Lease{Host: l.Host, PID: l.PID, Start: l.StartTicks, Acquired: l.Acquired.Time, Expires: l.Expires.Time})
	}
	return c
}

// SetCircuit stores c in h, keeping the members of h that guard does not
// know: a backend that keeps each key's entry apart (store/postgres) writes
// it so.
func (h *Hook) SetCircuit(c breaker.Circuit) { h.setCircuit(c) }

// PruneAfter returns when h, the entry of key, may be pruned as idle under
// retention (see Retention): a session's key with no probe running,
// retention.Session after anything last happened to it, whatever its state;
// any other key once closed with no failures, no probe lease and not
// disabled by hand (pruning it would turn guard back on for it),
// retention.Idle after that. Zero if it may not be (a retention of 0 keeps
// every key).
func (h *Hook) PruneAfter(key string, retention Retention) time.Time {
	idle := h.lastActivity()
	if idle.IsZero() || len(h.ProbeLeases) != 0 {
		return time.Time{}
	}
	if retention.Session > 0 && store.KeySession(key) != "" {
		return idle.Add(retention.Session)
	}
	if h.Disabled != nil {
		return time.Time{}
	}
	switch breaker.State(h.State) {
	case breaker.Closed, "":
	default:
		return time.Time{}
	}
	if retention.Idle <= 0 || h.FailureCount != 0 {
		return time.Time{}
	}
	return idle.Add(retention.Idle)
}

// setCircuit stores c in h, keeping the members of h that guard does not
// know, including those of leases that are still held.
func (h *Hook) setCircuit(c breaker.Circuit) {
	h.State = string(c.State)
	if h.State == "" {
		h.State = string(breaker.Closed)
	}
	h.FailureCount = c.FailureCount
	h.ConsecutiveFailures = c.ConsecutiveFailures
	h.ConsecutiveSuccesses = c.ConsecutiveSuccesses
	h.FirstFailure = jsonx.TimeOf(c.FirstFailure)
	h.LastFailure = jsonx.TimeOf(c.LastFailure)
	h.LastSuccess = jsonx.TimeOf(c.LastSuccess)
	h.LastError = nil
	if c.LastError != "" {
		msg := c.LastError
		h.LastError = &msg
	}
	h.DisabledAt = jsonx.TimeOf(c.DisabledAt)
	h.RetryAfter = jsonx.TimeOf(ceilSecond(c.RetryAfter))
	h.ReopenCount = c.Reopens
	h.OpenReason = c.OpenReason
	h.Forced = c.Forced
	h.LastRun = jsonx.TimeOf(c.LastRun)
	// Stored to the millisecond, rounded up: a call under min_interval
	// waits at most a millisecond more, never less, however short the
	// interval (500ms is kept as 500ms, not as up to 1.5s).
	h.LastStart = jsonx.TimeOf(ceilTo(c.LastStart, time.Millisecond))
	if d := c.Disabled; d == nil {
		h.Disabled = nil
	} else {
		var extra jsonx.Extra
		if h.Disabled != nil {
			extra = h.Disabled.Extra
		}
		h.Disabled = &Disabled{Since: jsonx.TimeOf(d.Since), User: d.User, Host: d.Host, PID: d.PID, Reason: d.Reason, Extra: extra}
	}
	h.Totals = Totals{
		Successes: c.Totals.Successes,
		Failures:  c.Totals.Failures,
		Ignored:   c.Totals.Ignored,
		Cancelled: c.Totals.Cancelled,
		Abandoned: c.Totals.Abandoned,
		Skips:     c.Totals.Skips,
		Rejected:  c.Totals.Rejected,

		SkipsBlocked:    c.Totals.SkipsBlocked,
		RejectedBlocked: c.Totals.RejectedBlocked,
		Extra:           h.Totals.Extra,
	}
	h.RunTimes = c.Totals.RunTimes
	h.FailureTimes = nil
	for _, t := range c.Failures {
		h.FailureTimes = append(h.FailureTimes, jsonx.TimeOf(t))
	}
	h.Calls = nil
	h.CallBuckets = slices.Clone(c.Calls)
	h.RecentCalls, h.TrialFailures = c.Recent, c.TrialFailures
	old := h.ProbeLeases
	h.ProbeLeases = nil
	for _, l := range c.Leases {
		wl := Lease{Host: l.Host, PID: l.PID, StartTicks: l.Start, Acquired: jsonx.TimeOf(l.Acquired), Expires: jsonx.TimeOf(ceilSecond(l.Expires))}
		for _, o := range old {
			if o.Host == l.Host && o.PID == l.PID && o.StartTicks == l.Start {
				wl.Extra = o.Extra
			}
		}
		h.ProbeLeases = append(h.ProbeLeases, wl)
	}
}

// ceilSecond rounds a deadline up to the second, the precision the file
// keeps, so that storing it never makes it come early.
func ceilSecond(t time.Time) time.Time { return ceilTo(t, time.Second) }

// ceilTo rounds t up to a multiple of unit.
func ceilTo(t time.Time, unit time.Duration) time.Time {
	if r := t.Truncate(unit); !r.Equal(t) {
		return r.Add(unit)
	}
	return t
}

// lastActivity returns the latest time anything happened to h.
func (h *Hook) lastActivity() time.Time {
	var t time.Time
	for _, u := range []jsonx.Time{h.LastRun, h.LastSuccess, h.LastFailure, h.DisabledAt, h.LastStart} {
		if u.After(t) {
			t = u.Time
		}
	}
	return t
}

// Keys returns the keys in the document, sorted.
func (d *Document) Keys() []string {
	d.listAll()
	keys := make([]string, 0, len(d.entries))
	for _, e := range d.entries {
		if !e.gone {
			keys = append(keys, e.key)
		}
	}
	sort.Strings(keys)
	return keys
}

// Circuit returns the circuit of key; a key with no entry has a closed one.
func (d *Document) Circuit(key string) (breaker.Circuit, error) {
	h, err := d.Hook(key)
	if h == nil || err != nil {
		return breaker.Circuit{}, err
	}
	return h.Circuit(), nil
}

// put stores c as key's circuit, keeping the count of open circuits in
// global_stats in step.
func (d *Document) put(key string, c breaker.Circuit) {
	h, _ := d.Hook(key) // callers have decoded it already
	if h == nil {
		h = &Hook{}
	}
	wasOpen := h.State == string(breaker.Open)
	h.setCircuit(c)
	if isOpen := h.State == string(breaker.Open); isOpen != wasOpen {
		if isOpen {
			d.GlobalStats.HooksDisabled++
		} else {
			d.GlobalStats.HooksDisabled = max(d.GlobalStats.HooksDisabled-1, 0)
		}
	}
	d.setHook(key, h)
}
