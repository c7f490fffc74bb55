package hookstate

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"guard/breaker"
	"guard/internal/jsonx"
)

// The types of the state file read and write their JSON by hand, with
// statefile's small reader and writer: encoding/json would rebuild its
// reflection machinery for them in every guard process. Members are
// written in a fixed order, the Python guardrails' fields first; members
// guard does not know are kept and written after, in name order.

// writeHook writes h as an object whose first line is at indent.
func writeHook(b *bytes.Buffer, h *Hook, indent string, compact bool) {
	w := jsonx.NewObjectWriter(b, indent, compact)
	state := h.State
	if state == "" {
		state = "closed"
	}
	w.String("state", state)
	w.Int("failure_count", int64(h.FailureCount))
	w.Int("consecutive_failures", int64(h.ConsecutiveFailures))
	w.Int("consecutive_successes", int64(h.ConsecutiveSuccesses))
	w.OffsetTime("first_failure", h.FirstFailure.Time)
	w.OffsetTime("last_failure", h.LastFailure.Time)
	w.OffsetTime("last_success", h.LastSuccess.Time)
	if h.LastError == nil {
		w.Raw("last_error", []byte("null"))
	} else {
		w.String("last_error", *h.LastError)
	}
	w.OffsetTime("disabled_at", h.DisabledAt.Time)
	w.OffsetTime("retry_after", h.RetryAfter.Time)
	if h.ReopenCount != 0 {
		w.Int("reopen_count", int64(h.ReopenCount))
	}
	if h.OpenReason != "" {
		w.String("open_reason", h.OpenReason)
	}
	if h.Forced {
		w.Bool("forced", true)
	}
	if len(h.FailureTimes) > 0 {
		w.Array("failure_times", len(h.FailureTimes), func(i int, _ string) {
			jsonx.AppendOffsetTime(b, h.FailureTimes[i].Time)
		})
	}
	if len(h.CallBuckets) > 0 {
		w.Raw("call_buckets", appendBuckets(nil, h.CallBuckets))
	}
	if len(h.Calls) > 0 {
		w.Array("calls", len(h.Calls), func(i int, _ string) {
			jsonx.AppendString(b, h.Calls[i].String())
		})
	}
	if h.RecentCalls != "" {
		w.String("recent_calls", h.RecentCalls)
	}
	if h.TrialFailures != 0 {
		w.Int("trial_failures", int64(h.TrialFailures))
	}
	if len(h.ProbeLeases) > 0 {
		w.Array("probe_leases", len(h.ProbeLeases), func(i int, indent string) {
			writeLease(b, &h.ProbeLeases[i], indent, compact)
		})
	}
	if !h.LastRun.IsZero() {
		w.OffsetTime("last_run", h.LastRun.Time)
	}
	if !h.LastStart.IsZero() {
		w.OffsetTimeMilli("last_start", h.LastStart.Time)
	}
	if d := h.Disabled; d != nil {
		o := w.Object("disabled")
		o.OffsetTime("since", d.Since.Time)
		if d.User != "" {
			o.String("user", d.User)
		}
		if d.Host != "" {
			o.String("host", d.Host)
		}
		if d.PID != 0 {
			o.Int("pid", int64(d.PID))
		}
		if d.Reason != "" {
			o.String("reason", d.Reason)
		}
		o.Extra(d.Extra)
		o.Close()
	}
	t := w.Object("totals")
	t.Int("successes", h.Totals.Successes)
	t.Int("failures", h.Totals.Failures)
	t.Int("ignored", h.Totals.Ignored)
	t.Int("cancelled", h.Totals.Cancelled)
	t.Int("abandoned", h.Totals.Abandoned)
	t.Int("skips", h.Totals.Skips)
	t.Int("rejected", h.Totals.Rejected)
	writeTotalsExtra(t, &h.Totals)
	t.Extra(h.Totals.Extra)
	t.Close()
	writeRunTimes(w, &h.RunTimes)
	w.Extra(h.Extra)
	w.Close()
}

func writeLease(b *bytes.Buffer, l *Lease, indent string, compact bool) {
	w := jsonx.NewObjectWriter(b, indent, compact)
	if l.Host != "" {
		w.String("host", l.Host)
	}
	w.Int("pid", int64(l.PID))
	if l.StartTicks != 0 {
		w.Int("start_ticks", int64(l.StartTicks))
	}
	w.OffsetTime("acquired", l.Acquired.Time)
	w.OffsetTime("expires", l.Expires.Time)
	w.Extra(l.Extra)
	w.Close()
}

func writeGlobalStats(b *bytes.Buffer, g *GlobalStats, indent string, compact bool) {
	w := jsonx.NewObjectWriter(b, indent, compact)
	w.Int("total_executions", g.TotalExecutions)
	w.Int("total_failures", g.TotalFailures)
	w.Int("hooks_disabled", int64(g.HooksDisabled))
	w.OffsetTime("last_updated", g.LastUpdated.Time)
	if !g.LastSweep.IsZero() {
		w.OffsetTime("last_sweep", g.LastSweep.Time)
	}
	if g.SkipTally != "" {
		w.String("skip_tally", g.SkipTally)
	}
	w.Extra(g.Extra)
	w.Close()
}

// member decoders: each parses one member's value into a field.

func intField(dst *int) func([]byte) error {
	return func(raw []byte) error {
		n, err := jsonx.ParseInt(raw)
		*dst = int(n)
		return err
	}
}

func int64Field(dst *int64) func([]byte) error {
	return func(raw []byte) error {
		n, err := jsonx.ParseInt(raw)
		*dst = n
		return err
	}
}

func timeField(dst *jsonx.Time) func([]byte) error {
	return func(raw []byte) error {
		t, err := jsonx.ParseTimeValue(raw)
		dst.Time = t
		return err
	}
}

func stringField(dst *string) func([]byte) error {
	return func(raw []byte) error {
		s, err := jsonx.ParseStringOrNull(raw)
		*dst = s
		return err
	}
}

// decodeObject decodes the JSON object raw: each member named in fields is
// parsed by its function, and the others go to extra. A repeated member:
// the last one wins.
func decodeObject(raw []byte, fields map[string]func([]byte) error, extra *jsonx.Extra) error {
	ms, err := jsonx.ObjectValue(raw)
	if err != nil {
		return err
	}
	*extra = nil
	for _, m := range ms {
		parse, ok := fields[m.Key]
		if !ok {
			if *extra == nil {
				*extra = jsonx.Extra{}
			}
			(*extra)[m.Key] = m.Value
			continue
		}
		if err := parse(m.Value); err != nil {
			return fmt.Errorf("%s: %w", m.Key, err)
		}
	}
	return nil
}

// UnmarshalJSON implements json.Unmarshaler.
func (h *Hook) UnmarshalJSON(raw []byte) error {
	*h = Hook{}
	var lastError string
	hasError := false
	err := decodeObject(raw, map[string]func([]byte) error{
		"state":                 stringField(&h.State),
		"failure_count":         intField(&h.FailureCount),
		"consecutive_failures":  intField(&h.ConsecutiveFailures),
		"consecutive_successes": intField(&h.ConsecutiveSuccesses),
		"first_failure":         timeField(&h.FirstFailure),
		"last_failure":          timeField(&h.LastFailure),
		"last_success":          timeField(&h.LastSuccess),
		"last_error": func(raw []byte) error {
			hasError = string(raw) != "null"
			var err error
			lastError, err = jsonx.ParseStringOrNull(raw)
			return err
		},
		"disabled_at":  timeField(&h.DisabledAt),
		"retry_after":  timeField(&h.RetryAfter),
		"reopen_count": intField(&h.ReopenCount),
		"open_reason":  stringField(&h.OpenReason),
		"forced": func(raw []byte) error {
			var err error
			h.Forced, err = jsonx.ParseBool(raw)
			return err
		},
		"failure_times": func(raw []byte) error {
			items, err := jsonx.Elements(raw)
			h.FailureTimes = nil
			for _, it := range items {
				t, err := jsonx.ParseTimeValue(it)
				if err != nil {
					return err
				}
				h.FailureTimes = append(h.FailureTimes, jsonx.TimeOf(t))
			}
			return err
		},
		"calls": func(raw []byte) error {
			items, err := jsonx.Elements(raw)
			h.Calls = nil
			for _, it := range items {
				s, err := jsonx.ParseStringOrNull(it)
				if err != nil {
					return err
				}
				k, err := parseCall(s)
				if err != nil {
					return err
				}
				h.Calls = append(h.Calls, k)
			}
			return err
		},
		"call_buckets": func(raw []byte) error {
			var err error
			h.CallBuckets, err = parseBuckets(raw)
			return err
		},
		"recent_calls": func(raw []byte) error {
			s, err := jsonx.ParseStringOrNull(raw)
			if err == nil && strings.Trim(s, "fs") != "" {
				err = fmt.Errorf("recent_calls %q is not f and s letters", s)
			}
			h.RecentCalls = s
			return err
		},
		"trial_failures": intField(&h.TrialFailures),
		"probe_leases": func(raw []byte) error {
			items, err := jsonx.Elements(raw)
			h.ProbeLeases = nil
			for _, it := range items {
				var l Lease
				if err := l.UnmarshalJSON(it); err != nil {
					return err
				}
				h.ProbeLeases = append(h.ProbeLeases, l)
			}
			return err
		},
		"last_run":   timeField(&h.LastRun),
		"last_start": timeField(&h.LastStart),
		"disabled": func(raw []byte) error {
			h.Disabled = nil
			switch string(raw) {
			case "null", "false":
				return nil
			case "true": // written by hand
				h.Disabled = &Disabled{Since: jsonx.TimeOf(time.Unix(0, 0).UTC())}
				return nil
			}
			d := &Disabled{}
			err := decodeObject(raw, map[string]func([]byte) error{
				"since":  timeField(&d.Since),
				"user":   stringField(&d.User),
				"host":   stringField(&d.Host),
				"pid":    intField(&d.PID),
				"reason": stringField(&d.Reason),
			}, &d.Extra)
			if err == nil && d.Since.IsZero() {
				// A key is disabled from a time: one written without it (by
				// hand, say) is disabled from the start of time.
				d.Since = jsonx.TimeOf(time.Unix(0, 0).UTC())
			}
			h.Disabled = d
			return err
		},
		"totals": func(raw []byte) error { return h.Totals.UnmarshalJSON(raw) },
		"run_ms": func(raw []byte) error { return parseRunTimes(raw, &h.RunTimes) },
	}, &h.Extra)
	if hasError {
		h.LastError = &lastError
	}
	return err
}

// Check reports what in h guard would never write: a state other than
// closed, open or half_open (exactly so spelt), or a negative count. Such
// an entry is not half used; it is set aside whole.
func (h *Hook) Check() error {
	switch breaker.State(h.State) {
	case "", breaker.Closed, breaker.Open, breaker.HalfOpen:
	default:
		return fmt.Errorf("state %q is not closed, open or half_open", h.State)
	}
	for _, c := range []struct {
		name string
		n    int
	}{{"failure_count", h.FailureCount}, {"consecutive_failures", h.ConsecutiveFailures},
		{"consecutive_successes", h.ConsecutiveSuccesses}, {"reopen_count", h.ReopenCount}, {"trial_failures", h.TrialFailures}} {
		if c.n < 0 {
			return fmt.Errorf("%s is negative (%d)", c.name, c.n)
		}
	}
	t := h.Totals
	if t.Successes < 0 || t.Failures < 0 || t.Ignored < 0 || t.Cancelled < 0 || t.Abandoned < 0 || t.Skips < 0 || t.Rejected < 0 ||
		t.SkipsBlocked < 0 || t.RejectedBlocked < 0 || h.RunTimes.SumMS < 0 || slices.ContainsFunc(h.RunTimes.Buckets[:], func(n int64) bool { return n < 0 }) {
		return errors.New("totals has a negative count")
	}
	for _, l := range h.ProbeLeases {
		if l.PID <= 0 {
			return fmt.Errorf("a probe lease has pid %d", l.PID)
		}
	}
	for _, b := range h.CallBuckets {
		if b.Calls < 0 || b.Failed < 0 || b.Slow < 0 || b.Failed > b.Calls || b.Slow > b.Calls {
			return fmt.Errorf("call_buckets has a bucket of %d calls, %d failed, %d slow", b.Calls, b.Failed, b.Slow)
		}
	}
	return nil
}

// appendBuckets writes the rate rules' buckets on one line, small: the time
// of the first, then each as [seconds after it, calls, failed, slow]:
// {"from":"2026-11-23T06:00:00Z","counts":[[0,12,3,0],[10,5,0,0]]}. Sixty
// of them take about a kilobyte.
func appendBuckets(b []byte, bs []breaker.Bucket) []byte {
	from := bs[0].Start
	b = append(b, `{"from":"`...)
	b = from.UTC().AppendFormat(b, jsonx.TimeLayout)
	b = append(b, `","counts":[`...)
	for i, k := range bs {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '[')
		b = strconv.AppendInt(b, int64(k.Start.Sub(from)/time.Second), 10)
		for _, n := range []int{k.Calls, k.Failed, k.Slow} {
			b = append(b, ',')
			b = strconv.AppendInt(b, int64(n), 10)
		}
		b = append(b, ']')
	}
	return append(b, "]}"...)
}

// parseBuckets reads what appendBuckets writes.
func parseBuckets(raw []byte) ([]breaker.Bucket, error) {
	members, err := jsonx.ObjectValue(raw)
	if err != nil {
		return nil, err
	}
	var from time.Time
	var counts []byte
	for _, m := range members {
		switch m.Key {
		case "from":
			if from, err = jsonx.ParseTimeValue(m.Value); err != nil {
				return nil, fmt.Errorf("call_buckets.from: %v", err)
			}
		case "counts":
			counts = m.Value
		}
	}
	items, err := jsonx.Elements(counts)
	if err != nil {
		return nil, fmt.Errorf("call_buckets.counts: %v", err)
	}
	var bs []breaker.Bucket
	for _, it := range items {
		nums, err := jsonx.Elements(it)
		if err != nil || len(nums) != 4 {
			return nil, fmt.Errorf("call_buckets.counts: %s is not [seconds, calls, failed, slow]", it)
		}
		var v [4]int64
		for i, n := range nums {
			if v[i], err = jsonx.ParseInt(n); err != nil {
				return nil, fmt.Errorf("call_buckets.counts: %v", err)
			}
		}
		bs = append(bs, breaker.Bucket{Start: from.Add(time.Duration(v[0]) * time.Second), Calls: int(v[1]), Failed: int(v[2]), Slow: int(v[3])})
	}
	return bs, nil
}

// MarshalJSON implements json.Marshaler.
func (h Hook) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	writeHook(&b, &h, "", true)
	return b.Bytes(), nil
}

// UnmarshalJSON implements json.Unmarshaler.
func (l *Lease) UnmarshalJSON(raw []byte) error {
	*l = Lease{}
	var ticks int64
	err := decodeObject(raw, map[string]func([]byte) error{
		"host":        stringField(&l.Host),
		"pid":         intField(&l.PID),
		"start_ticks": int64Field(&ticks),
		"acquired":    timeField(&l.Acquired),
		"expires":     timeField(&l.Expires),
	}, &l.Extra)
	l.StartTicks = uint64(ticks)
	return err
}

// MarshalJSON implements json.Marshaler.
func (l Lease) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	writeLease(&b, &l, "", true)
	return b.Bytes(), nil
}

// UnmarshalJSON implements json.Unmarshaler.
func (t *Totals) UnmarshalJSON(raw []byte) error {
	*t = Totals{}
	if string(raw) == "null" {
		return nil
	}
	return decodeObject(raw, map[string]func([]byte) error{
		"successes": int64Field(&t.Successes),
		"failures":  int64Field(&t.Failures),
		"ignored":   int64Field(&t.Ignored),
		"cancelled": int64Field(&t.Cancelled),
		"abandoned": int64Field(&t.Abandoned),
		"skips":     int64Field(&t.Skips),
		"rejected":  int64Field(&t.Rejected),

		"skips_blocked":    int64Field(&t.SkipsBlocked),
		"rejected_blocked": int64Field(&t.RejectedBlocked),
	}, &t.Extra)
}

// MarshalJSON implements json.Marshaler.
func (t Totals) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	w := jsonx.NewObjectWriter(&b, "", true)
	w.Int("successes", t.Successes)
	w.Int("failures", t.Failures)
	w.Int("ignored", t.Ignored)
	w.Int("cancelled", t.Cancelled)
	w.Int("abandoned", t.Abandoned)
	w.Int("skips", t.Skips)
	w.Int("rejected", t.Rejected)
	writeTotalsExtra(w, &t)
	w.Extra(t.Extra)
	w.Close()
	return b.Bytes(), nil
}

// writeTotalsExtra writes the members of totals that an entry has only
// once they count something: the blocked skips and rejections.
func writeTotalsExtra(w *jsonx.ObjectWriter, t *Totals) {
	if t.SkipsBlocked != 0 {
		w.Int("skips_blocked", t.SkipsBlocked)
	}
	if t.RejectedBlocked != 0 {
		w.Int("rejected_blocked", t.RejectedBlocked)
	}
}

// writeRunTimes writes an entry's run-time histogram once it counts a run,
// as "run_ms": {"sum": MS, "buckets": [N, ...]}, each bucket's count by
// breaker.RunTimeBounds, the last for the runs over the last bound, with
// the zeros at the end left out.
func writeRunTimes(w *jsonx.ObjectWriter, t *breaker.RunTimes) {
	if t.Count() == 0 {
		return
	}
	n := len(t.Buckets)
	for n > 0 && t.Buckets[n-1] == 0 {
		n--
	}
	b := []byte(`{"sum":`)
	b = strconv.AppendInt(b, t.SumMS, 10)
	b = append(b, `,"buckets":[`...)
	for i, v := range t.Buckets[:n] {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, v, 10)
	}
	w.Raw("run_ms", append(b, "]}"...))
}

// parseRunTimes reads what writeRunTimes writes as run_ms.
func parseRunTimes(raw []byte, t *breaker.RunTimes) error {
	*t = breaker.RunTimes{}
	if string(raw) == "null" {
		return nil
	}
	members, err := jsonx.ObjectValue(raw)
	if err != nil {
		return err
	}
	for _, m := range members {
		switch m.Key {
		case "sum":
			if t.SumMS, err = jsonx.ParseInt(m.Value); err != nil {
				return fmt.Errorf("sum: %w", err)
			}
		case "buckets":
			items, err := jsonx.Elements(m.Value)
			if err != nil {
				return fmt.Errorf("buckets: %w", err)
			}
			if len(items) > len(t.Buckets) {
				return fmt.Errorf("buckets: %d of them, more than the %d there are", len(items), len(t.Buckets))
			}
			for i, it := range items {
				if t.Buckets[i], err = jsonx.ParseInt(it); err != nil {
					return fmt.Errorf("buckets: %w", err)
				}
			}
		}
	}
	return nil
}

// UnmarshalJSON implements json.Unmarshaler.
func (g *GlobalStats) UnmarshalJSON(raw []byte) error {
	*g = GlobalStats{}
	if string(raw) == "null" {
		return nil
	}
	return decodeObject(raw, map[string]func([]byte) error{
		"total_executions": int64Field(&g.TotalExecutions),
		"total_failures":   int64Field(&g.TotalFailures),
		"hooks_disabled":   intField(&g.HooksDisabled),
		"last_updated":     timeField(&g.LastUpdated),
		"last_sweep":       timeField(&g.LastSweep),
		"skip_tally":       stringField(&g.SkipTally),
	}, &g.Extra)
}

// MarshalJSON implements json.Marshaler.
func (g GlobalStats) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	writeGlobalStats(&b, &g, "", true)
	return b.Bytes(), nil
}

// String writes a call as the file stores it.
func (k Call) String() string {
	var b bytes.Buffer
	jsonx.AppendOffsetTime(&b, k.At.Time)
	out := strings.Trim(b.String(), `"`) + " ok"
	if k.Failed {
		out = strings.TrimSuffix(out, " ok") + " failed"
	}
	if k.Slow {
		out += " slow"
	}
	return out
}

// parseCall reads a call as String writes it.
func parseCall(s string) (Call, error) {
	f := strings.Fields(s)
	if len(f) < 2 || len(f) > 3 {
		return Call{}, fmt.Errorf("call %q is not \"TIME ok|failed [slow]\"", s)
	}
	t, err := jsonx.ParseTime(f[0])
	if err != nil {
		return Call{}, err
	}
	k := Call{At: jsonx.TimeOf(t)}
	switch f[1] {
	case "ok":
	case "failed":
		k.Failed = true
	default:
		return Call{}, fmt.Errorf("call %q is not \"TIME ok|failed [slow]\"", s)
	}
	if len(f) == 3 {
		if f[2] != "slow" {
			return Call{}, fmt.Errorf("call %q is not \"TIME ok|failed [slow]\"", s)
		}
		k.Slow = true
	}
	return k, nil
}
