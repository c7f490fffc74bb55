package hookstate

import (
	"strings"
	"testing"
	"time"

	"guard/breaker"
)

// The counters Prometheus reads are kept in the entry, so that they never
// go down when the event log rotates (newcomer-and-mission #15, issue 33
// #2 and #3): blocked skips and rejections, and the run-time histogram.
// They are written small (only once they count something), and an entry
// written before them reads as zero.
func TestTotalsCountersRoundTrip(t *testing.T) {
	var c breaker.Circuit
	c.Skip(true)
	c.Skip(false)
	c.Reject(true)
	for _, d := range []time.Duration{300 * time.Microsecond, 7 * time.Millisecond, 40 * time.Second, 20 * time.Minute} {
		c.Record(settings, t0, breaker.Result{Outcome: breaker.Success, Duration: d})
	}
	var h Hook
	h.SetCircuit(c)
	raw, err := h.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	// totals stays a flat object of counts; run_ms sits beside it.
	for _, want := range []string{`"skips_blocked":1,"rejected_blocked":1}`, `},"run_ms":{"sum":1240007,"buckets":[1,0,1,0,0,0,0,0,0,0,0,0,0,1,0,0,0,1]}`} {
		if !strings.Contains(string(raw), want) {
			t.Errorf("entry lacks %s:\n%s", want, raw)
		}
	}
	var back Hook
	if err := back.UnmarshalJSON(raw); err != nil {
		t.Fatal(err)
	}
	got := back.Circuit().Totals
	if got.SkipsBlocked != 1 || got.RejectedBlocked != 1 || got.Skips != 2 || got.RunTimes != c.Totals.RunTimes || got.RunTimes.Count() != 4 {
		t.Errorf("read back %+v; want %+v", got, c.Totals)
	}

	// Nothing counted: nothing written.
	h = Hook{}
	h.SetCircuit(breaker.Circuit{})
	raw, _ = h.MarshalJSON()
	for _, no := range []string{"skips_blocked", "rejected_blocked", "run_ms"} {
		if strings.Contains(string(raw), no) {
			t.Errorf("an entry that counted nothing has %s:\n%s", no, raw)
		}
	}
	// Negative counts and too many buckets do not check out.
	for _, bad := range []string{`{"totals":{"skips_blocked":-1}}`, `{"run_ms":{"sum":-5,"buckets":[1]}}`,
		`{"run_ms":{"sum":5,"buckets":[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,1]}}`} {
		var b Hook
		err := b.UnmarshalJSON([]byte(bad))
		if err == nil {
			err = b.Check()
		}
		if err == nil {
			t.Errorf("%s checks out", bad)
		}
	}
}
