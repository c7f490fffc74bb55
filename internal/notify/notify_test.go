package notify

import (
	"slices"
	"strings"
	"testing"
	"time"
)

func TestTransitionTravelsWhole(t *testing.T) {
	in := Transition{Key: "a key with 'quotes', \"doubles\"\nand a newline", From: "closed", To: "open",
		Reason: "3 consecutive failures", Time: time.Date(2026, 11, 28, 4, 0, 0, 0, time.UTC), Until: "2026-11-28T04:05:00Z"}
	out, err := Decode(in.Encode())
	if err != nil || out != in {
		t.Fatalf("Decode(Encode(%+v)) = %+v, %v", in, out, err)
	}
	want := []string{"GUARD_KEY=" + in.Key, "GUARD_FROM=closed", "GUARD_TO=open", "GUARD_REASON=3 consecutive failures",
		"GUARD_TIME=2026-11-28T04:00:00Z", "GUARD_UNTIL=2026-11-28T04:05:00Z"}
	if got := in.Env(); !slices.Equal(got, want) {
		t.Errorf("Env() = %q; want %q", got, want)
	}
	for _, bad := range []string{"", "{", "{}", "[1]"} {
		if _, err := Decode(bad); err == nil {
			t.Errorf("Decode(%q) took it", bad)
		}
	}
}

func TestStartWithNothingStartsNothing(t *testing.T) {
	if err := Start(Helper{Path: "/nonexistent/guard"}, nil); err != nil {
		t.Errorf("Start with no transitions: %v", err)
	}
	if err := Start(Helper{Path: "/nonexistent/guard", Args: []string{"guard"}}, []Transition{{Key: "k", From: "closed", To: "open"}}); err == nil {
		t.Error("Start of a helper that does not exist reported no error")
	}
}

// TestReadAllTakesWhatArrived: the helper reads the lines Start wrote; a
// line cut short (a hand-over that ran out of time) is skipped, not the
// reason to hear of nothing.
func TestReadAllTakesWhatArrived(t *testing.T) {
	a := Transition{Key: "a\nb", From: "closed", To: "open", Time: time.Date(2026, 11, 28, 4, 0, 0, 0, time.UTC)}
	b := Transition{Key: "c", From: "open", To: "closed", Reason: "reset by hand", Time: a.Time}
	in := a.Encode() + "\n" + b.Encode() + "\n" + `{"key":"d","fr`
	ts, bad, err := ReadAll(strings.NewReader(in))
	if err != nil || bad != 1 || len(ts) != 2 || ts[0] != a || ts[1] != b {
		t.Fatalf("ReadAll = %+v, %d bad, %v; want a and b, 1 bad", ts, bad, err)
	}
}
