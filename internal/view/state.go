package view

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"guard/breaker"
	"guard/config"
	"guard/internal/circuit"
)

// The states of a key: what guard does with its calls now. They are the
// one model every output shows (status, report in every format,
// Prometheus, /api/status, doctor and the dashboard), so that no two
// disagree on a key. They are spelt so in JSON and Prometheus; Word spells
// them for people.
const (
	StateClosed   = "closed"    // every call runs and counts
	StateOpen     = "open"      // calls are skipped until the circuit probes
	StateHalfOpen = "half_open" // probes run; other calls are skipped
	StateForced   = "forced_open"
	// StateObserve is a key in observe mode: its circuit decides and
	// records as usual, and every call runs anyway (KeyState.Circuit is
	// the state it is in, and would skip by).
	StateObserve = "observe"
	// StateDisabled is a key guard does not guard: mode: disabled (or
	// enabled: false) runs every call unguarded and records nothing. A
	// circuit kept in the state from before is not in force, and is never
	// shown as open.
	StateDisabled = "disabled"
)

// States lists the states, in the order outputs count them.
var States = []string{StateClosed, StateOpen, StateHalfOpen, StateForced, StateObserve, StateDisabled}

// A KeyState is a key's state in the model, and the state of its circuit
// as the state file has it.
type KeyState struct {
	Name    string        // one of States
	Circuit breaker.State // closed, open or half_open
}

// StateOf is the state of a key whose circuit is c, under the mode its
// config gives it ("enforce", "observe" or "disabled"; "" is enforce) and
// enabled (circuit_breaker.enabled). A circuit disabled by hand (guard
// disable: c.Disabled) is a disabled key too.
func StateOf(c breaker.Circuit, mode string, enabled bool) KeyState {
	s := KeyState{Circuit: c.State}
	if s.Circuit == "" {
		s.Circuit = breaker.Closed
	}
	switch {
	case !enabled || mode == "disabled" || c.Disabled != nil:
		s.Name = StateDisabled
	case mode == "observe":
		s.Name = StateObserve
	case s.Circuit == breaker.Open && c.Forced:
		s.Name = StateForced
	case s.Circuit == breaker.Open:
		s.Name = StateOpen
	case s.Circuit == breaker.HalfOpen:
		s.Name = StateHalfOpen
	default:
		s.Name = StateClosed
	}
	return s
}

// circuitWord spells a circuit's state for people: half-open, not half_open.
func circuitWord(s breaker.State) string {
	if s == "" {
		return string(breaker.Closed)
	}
	return strings.ReplaceAll(string(s), "_", "-")
}

// Word spells s for people, in every text output: closed, open,
// half-open, open (forced), observe (open), disabled.
func (s KeyState) Word() string {
	switch s.Name {
	case StateForced:
		return "open (forced)"
	case StateObserve:
		return "observe (" + circuitWord(s.Circuit) + ")"
	case StateHalfOpen:
		return "half-open"
	case "":
		return circuitWord(s.Circuit)
	}
	return s.Name
}

// StateWord spells the state name for people, as counts use it: closed,
// open, half-open, open (forced), observe, disabled.
func StateWord(name string) string {
	switch name {
	case StateObserve:
		return StateObserve
	case StateForced:
		return "open (forced)"
	}
	return KeyState{Name: name}.Word()
}

// Skipping reports whether guard skips some of the key's calls now: an
// open, forced open or half-open circuit in force.
func (s KeyState) Skipping() bool {
	switch s.Name {
	case StateOpen, StateForced, StateHalfOpen:
		return true
	}
	return false
}

// Rank orders states by how much they need attention, most first: open,
// half-open, forced open (someone chose it), observe with a circuit not
// closed (it would skip), then closed, then disabled.
func (s KeyState) Rank() int {
	switch s.Name {
	case StateOpen:
		return 0
	case StateHalfOpen:
		return 1
	case StateForced:
		return 2
	case StateObserve:
		if s.Circuit != breaker.Closed {
			return 3
		}
	case StateDisabled:
		return 5
	}
	return 4
}

// A Standing is where a key stands against the rule that trips its
// circuit (or, half-open, the probes that close it): the FAILURES of
// guard status, the "failures" of a dashboard tile and the rule's own
// numbers in JSON and Prometheus. It counts what the rule counts:
// failures in a row, in the window, among the last N calls, or the share
// of the calls in the window that failed.
type Standing struct {
	// Rule is consecutive, window, of_last, failure_rate, probes (a
	// half-open circuit), excluded or disabled.
	Rule      string `json:"rule"`
	Failures  int    `json:"failures"`            // what the rule counts now
	Threshold int    `json:"threshold,omitempty"` // where it trips (probes: successes to close)
	Calls     int    `json:"calls,omitempty"`     // the calls a window or of_last rule counts
	Window    string `json:"window,omitempty"`    // a window rule's
	// FailureRate is the share of Calls that failed (failure_rate rule:
	// null until a call ended in the window), against
	// FailureRateThreshold, once MinimumCalls ended.
	FailureRate          *float64 `json:"failure_rate,omitempty"`
	FailureRateThreshold float64  `json:"failure_rate_threshold,omitempty"`
	MinimumCalls         int      `json:"minimum_calls,omitempty"`
	// SlowCallRate is the share of Calls that were slow, against
	// SlowCallRateThreshold (slow_call_rate rule).
	SlowCallRate          *float64 `json:"slow_call_rate,omitempty"`
	SlowCallRateThreshold float64  `json:"slow_call_rate_threshold,omitempty"`
}

// StandingOf says where circuit c stands under b's rules for key at now.
func StandingOf(c breaker.Circuit, b *config.Breaker, key string, now time.Time) Standing {
	s := b.Settings(key)
	st := Standing{Threshold: max(s.FailureThreshold, 1)}
	switch {
	case !b.Enabled || b.Mode == "disabled" || c.Disabled != nil:
		return Standing{Rule: "disabled"}
	case s.Exclude:
		return Standing{Rule: "excluded", Failures: c.ConsecutiveFailures}
	case c.State == breaker.HalfOpen:
		return Standing{Rule: "probes", Failures: c.ConsecutiveSuccesses, Threshold: max(s.SuccessThreshold, 1)}
	}
	if s.FailureRate > 0 || s.SlowCallRate > 0 {
		calls, failed, slow := breaker.SumBuckets(breaker.Window{Length: s.FailureWindow}.PruneBuckets(slices.Clone(c.Calls), now))
		st.Rule, st.Failures, st.Calls, st.Threshold = "failure_rate", failed, calls, 0
		st.Window, st.MinimumCalls = config.FormatDuration(s.FailureWindow), max(s.MinimumCalls, 1)
		share := func(n int) *float64 {
			if calls == 0 {
				return nil
			}
			f := float64(n) / float64(calls)
			return &f
		}
		if s.FailureRate > 0 {
			st.FailureRate, st.FailureRateThreshold = share(failed), s.FailureRate
		} else {
			st.Rule = "slow_call_rate"
		}
		if s.SlowCallRate > 0 {
			st.SlowCallRate, st.SlowCallRateThreshold = share(slow), s.SlowCallRate
		}
		return st
	}
	switch {
	case s.OfLast > 0:
		st.Rule, st.Failures, st.Calls = "of_last", strings.Count(c.Recent, "f"), s.OfLast
	case s.FailureWindow > 0:
		st.Rule, st.Failures = "window", breaker.Window{Length: s.FailureWindow}.Count(c.Failures, now)
		st.Window = config.FormatDuration(s.FailureWindow)
	default:
		st.Rule, st.Failures = "consecutive", c.ConsecutiveFailures
	}
	return st
}

// Brief is the Standing in a few characters, for the status table's
// FAILURES column: 2/3 (in a row), 2/3 in 10m, 2/3 of last 5, 40%/50% of
// 10 calls in 10m, probes 1/2.
func (s Standing) Brief() string {
	switch s.Rule {
	case "disabled", "":
		return "-"
	case "excluded":
		return fmt.Sprintf("%d (excluded)", s.Failures)
	case "probes":
		return fmt.Sprintf("probes %d/%d", s.Failures, s.Threshold)
	case "window":
		return fmt.Sprintf("%d/%d in %s", s.Failures, s.Threshold, s.Window)
	case "of_last":
		return fmt.Sprintf("%d/%d of last %d", s.Failures, s.Threshold, s.Calls)
	case "failure_rate", "slow_call_rate":
		rate, limit := s.FailureRate, s.FailureRateThreshold
		if s.Rule == "slow_call_rate" {
			rate, limit = s.SlowCallRate, s.SlowCallRateThreshold
		}
		shown := "-"
		if rate != nil {
			shown = percent(*rate)
		}
		return fmt.Sprintf("%s/%s of %d in %s", shown, percent(limit), s.Calls, s.Window)
	}
	if s.Threshold == 0 { // no rule known (no config applied)
		return fmt.Sprint(s.Failures)
	}
	return fmt.Sprintf("%d/%d", s.Failures, s.Threshold)
}

// Text is the Standing in words, as a dashboard tile and the report say
// it: "2 failures in a row; trips at 3".
func (s Standing) Text() string {
	switch s.Rule {
	case "disabled":
		return "guard is disabled for this key: every call runs unguarded, nothing is counted"
	case "excluded":
		return fmt.Sprintf("%s in a row; excluded: never trips", breaker.Count(s.Failures, "failure"))
	case "probes":
		return fmt.Sprintf("%d of %s to close", s.Failures, breaker.Count(s.Threshold, "successful probe"))
	case "window":
		return fmt.Sprintf("%s in the last %s; trips at %d", breaker.Count(s.Failures, "failure"), s.Window, s.Threshold)
	case "of_last":
		return fmt.Sprintf("%d of the last %s failed; trips at %d", s.Failures, breaker.Count(s.Calls, "call"), s.Threshold)
	case "failure_rate", "slow_call_rate":
		var parts []string
		if s.Rule == "failure_rate" {
			parts = append(parts, fmt.Sprintf("%d of %s failed in %s%s; trips at %s once %s ended",
				s.Failures, breaker.Count(s.Calls, "call"), s.Window, rateIn(s.FailureRate), config.FormatPercent(s.FailureRateThreshold), breaker.Count(s.MinimumCalls, "call")))
		}
		if s.SlowCallRateThreshold > 0 {
			slow := 0
			if s.SlowCallRate != nil {
				slow = int(*s.SlowCallRate*float64(s.Calls) + 0.5)
			}
			parts = append(parts, fmt.Sprintf("%d of %s slow in %s%s; trips at %s", slow, breaker.Count(s.Calls, "call"), s.Window, rateIn(s.SlowCallRate), config.FormatPercent(s.SlowCallRateThreshold)))
		}
		return strings.Join(parts, "; ")
	}
	return fmt.Sprintf("%s in a row; trips at %d", breaker.Count(s.Failures, "failure"), s.Threshold)
}

func rateIn(r *float64) string {
	if r == nil {
		return ""
	}
	return " (" + percent(*r) + ")"
}

// percent writes a share as a whole percentage, or to a tenth below 10%:
// 0.4 as 40%, 0.05 as 5%, 0.0125 as 1.3%.
func percent(f float64) string {
	p := f * 100
	if p != 0 && p < 10 && p != float64(int(p)) {
		return fmt.Sprintf("%.1f%%", p)
	}
	return fmt.Sprintf("%.0f%%", p)
}

// ApplyConfig gives each status what cfg says of its key: its state in
// the model (mode: observe or disabled), where it stands against its rule
// at now, and its max_concurrent.
func ApplyConfig(sts []KeyStatus, cfg *config.Config, now time.Time) {
	for i := range sts {
		st := &sts[i]
		b := cfg.For(circuit.RuleKey(st.Key))
		switch {
		case !b.Enabled || b.Mode == "disabled" || st.Disabled != nil:
			st.Mode = "disabled"
		case b.Mode == "observe":
			st.Mode = "observe"
		default:
			st.Mode = ""
		}
		st.MaxConcurrent = b.MaxConcurrent
		st.setState()
		st.Rule = StandingOf(st.circuit, &b, st.Key, now)
	}
	SortStatuses(sts)
}
