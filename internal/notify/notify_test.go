package notify

import (
	"slices"
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
