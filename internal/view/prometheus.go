package view

import (
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"guard/breaker"
)

// A promFamily is one metric family of the Prometheus text format.
type promFamily struct {
	name, help, typ string
	samples         []promSample
}

type promSample struct {
	suffix string      // of the family's name: _bucket, _sum, _count for a histogram
	labels [][2]string // name, value
	value  float64
}

func (f *promFamily) add(value float64, labels ...string) {
	s := promSample{value: value}
	for i := 0; i+1 < len(labels); i += 2 {
		s.labels = append(s.labels, [2]string{labels[i], labels[i+1]})
	}
	f.samples = append(f.samples, s)
}

// promEscaper escapes a label value: backslash, double quote and newline.
var promEscaper = strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`)

// A label value is the key or service name itself, escaped once as the
// text format asks (backslash, double quote and newline: promEscaper), so
// that a query or an alert names the key as guard run keyed it, and two
// keys never share a series (keys are valid UTF-8: circuit.ValidKey). The
// text format carries any other character as it is.

// promHelpEscaper escapes HELP text: backslash and newline.
var promHelpEscaper = strings.NewReplacer(`\`, `\\`, "\n", `\n`)

// writeProm writes families in the Prometheus text exposition format, as
// node_exporter's textfile collector reads it: HELP and TYPE before each
// family's samples, no timestamps.
func writeProm(w io.Writer, families []*promFamily) error {
	var b strings.Builder
	for _, f := range families {
		if len(f.samples) == 0 {
			continue // a family with no sample says nothing
		}
		fmt.Fprintf(&b, "# HELP %s %s\n# TYPE %s %s\n", f.name, promHelpEscaper.Replace(f.help), f.name, f.typ)
		for _, s := range f.samples {
			b.WriteString(f.name)
			b.WriteString(s.suffix)
			if len(s.labels) > 0 {
				b.WriteByte('{')
				for i, l := range s.labels {
					if i > 0 {
						b.WriteByte(',')
					}
					fmt.Fprintf(&b, `%s="%s"`, l[0], promEscaper.Replace(l[1]))
				}
				b.WriteByte('}')
			}
			b.WriteByte(' ')
			b.WriteString(strconv.FormatFloat(s.value, 'f', -1, 64))
			b.WriteByte('\n')
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// promReport builds the metrics of a report. Every counter and histogram
// comes from the totals each key keeps in the state (never from the event
// log, which rotation and pruning shorten), so none goes down.
func promReport(r Report, sts []KeyStatus, cool map[string]ServiceStatus) []*promFamily {
	state := &promFamily{name: "guard_circuit_state", typ: "gauge", help: "State of the circuit of each key guard enforces: 0 closed, 1 half-open, 2 open (forced too). Keys in observe mode, which are never skipped, are in guard_circuit_observe_state instead, and disabled keys in neither."}
	observe := &promFamily{name: "guard_circuit_observe_state", typ: "gauge", help: "State of the circuit of each key in observe mode, which runs every call: 0 closed, 1 half-open, 2 open (would skip)."}
	keyState := &promFamily{name: "guard_key_state", typ: "gauge", help: "1 for each key's state, 0 for the others: closed, open, half_open, forced_open, observe (every call runs; see guard_circuit_observe_state), disabled (mode: disabled or guard disable: not guarded)."}
	consec := &promFamily{name: "guard_consecutive_failures", typ: "gauge", help: "Failures in a row of each key."}
	retry := &promFamily{name: "guard_circuit_retry_after_seconds", typ: "gauge", help: "When each open circuit may probe again, in Unix seconds."}
	rate := &promFamily{name: "guard_failure_rate", typ: "gauge", help: "Share of the calls in the window that failed, for each key under a failure_rate rule (absent until a call ended in the window)."}
	rateLimit := &promFamily{name: "guard_failure_rate_threshold", typ: "gauge", help: "The failure_rate at which each key under such a rule trips (once minimum_calls ended in the window)."}
	slowRate := &promFamily{name: "guard_slow_call_rate", typ: "gauge", help: "Share of the calls in the window that were slow, for each key under a slow_call_rate rule."}
	slowLimit := &promFamily{name: "guard_slow_call_rate_threshold", typ: "gauge", help: "The slow_call_rate at which each key under such a rule trips."}
	inFlight := &promFamily{name: "guard_runs_in_flight", typ: "gauge", help: "Runs of each key in flight now (max_concurrent slots in use, for a limited key)."}
	maxConc := &promFamily{name: "guard_max_concurrent", typ: "gauge", help: "The max_concurrent of each limited key: slots it may use at once."}
	runs := &promFamily{name: "guard_runs_total", typ: "counter", help: "Runs of each key by outcome (success, failure, ignored, cancelled, abandoned)."}
	skips := &promFamily{name: "guard_skips_total", typ: "counter", help: "Calls of each key skipped because its circuit was open or probing, or min_interval had not passed, by verdict: blocked (on_skip: block: the action was blocked) or allowed (guard did not block it: it went ahead without the hook, or to its fallback)."}
	rejected := &promFamily{name: "guard_rejected_total", typ: "counter", help: "Calls of each key not run because max_concurrent runs were in flight, by verdict: blocked or allowed."}
	circuits := &promFamily{name: "guard_circuits", typ: "gauge", help: "Number of keys in each state: closed, open, half_open, forced_open, observe, disabled."}
	execs := &promFamily{name: "guard_executions_total", typ: "counter", help: "Runs recorded over all keys (the Python guardrails' total_executions)."}
	fails := &promFamily{name: "guard_failures_total", typ: "counter", help: "Failures recorded over all keys (the Python guardrails' total_failures)."}
	durations := &promFamily{name: "guard_run_duration_seconds", typ: "histogram", help: "How long each key's runs took, counted in the state over the key's life (so no log rotation lowers it)."}

	count := map[string]int{}
	for _, st := range sts {
		ks := st.KeyState()
		count[ks.Name]++
		severity := float64(Severity(ks.Circuit))
		switch ks.Name {
		case StateObserve:
			observe.add(severity, "key", st.Key)
		case StateDisabled:
		default:
			state.add(severity, "key", st.Key)
		}
		for _, s := range States {
			v := 0.0
			if s == ks.Name {
				v = 1
			}
			keyState.add(v, "key", st.Key, "state", s)
		}
		consec.add(float64(st.ConsecutiveFailures), "key", st.Key)
		if ks.Name != StateDisabled && ks.Circuit == breaker.Open && !st.RetryAfter.IsZero() {
			retry.add(float64(st.RetryAfter.Unix()), "key", st.Key)
		}
		if rs := st.Rule; ks.Name != StateDisabled {
			if rs.FailureRateThreshold > 0 {
				if rs.FailureRate != nil {
					rate.add(*rs.FailureRate, "key", st.Key)
				}
				rateLimit.add(rs.FailureRateThreshold, "key", st.Key)
			}
			if rs.SlowCallRateThreshold > 0 {
				if rs.SlowCallRate != nil {
					slowRate.add(*rs.SlowCallRate, "key", st.Key)
				}
				slowLimit.add(rs.SlowCallRateThreshold, "key", st.Key)
			}
		}
		inFlight.add(float64(len(st.Running)), "key", st.Key)
		if st.MaxConcurrent > 0 {
			maxConc.add(float64(st.MaxConcurrent), "key", st.Key)
		}
		t := st.Totals
		for _, o := range []struct {
			name string
			n    int64
		}{{"success", t.Successes}, {"failure", t.Failures - t.Abandoned}, {"ignored", t.Ignored}, {"cancelled", t.Cancelled}, {"abandoned", t.Abandoned}} {
			runs.add(float64(o.n), "key", st.Key, "outcome", o.name)
		}
		skips.add(float64(t.Skips-t.SkipsBlocked), "key", st.Key, "verdict", "allowed")
		skips.add(float64(t.SkipsBlocked), "key", st.Key, "verdict", "blocked")
		rejected.add(float64(t.Rejected-t.RejectedBlocked), "key", st.Key, "verdict", "allowed")
		rejected.add(float64(t.RejectedBlocked), "key", st.Key, "verdict", "blocked")
		if rt := st.runTimes; rt.Count() > 0 {
			var cum int64
			for i, le := range breaker.RunTimeBounds {
				cum += rt.Buckets[i]
				durations.add(float64(cum), "key", st.Key, "le", strconv.FormatFloat(float64(le)/1000, 'f', -1, 64))
				durations.samples[len(durations.samples)-1].suffix = "_bucket"
			}
			durations.add(float64(rt.Count()), "key", st.Key, "le", "+Inf")
			durations.samples[len(durations.samples)-1].suffix = "_bucket"
			durations.add(float64(rt.SumMS)/1000, "key", st.Key)
			durations.samples[len(durations.samples)-1].suffix = "_sum"
			durations.add(float64(rt.Count()), "key", st.Key)
			durations.samples[len(durations.samples)-1].suffix = "_count"
		}
	}
	for _, s := range States {
		circuits.add(float64(count[s]), "state", s)
	}
	execs.add(float64(r.TotalExecutions))
	fails.add(float64(r.TotalFailures))
	families := []*promFamily{state, observe, keyState, consec, retry, rate, rateLimit, slowRate, slowLimit, inFlight, maxConc, runs, skips, rejected, durations, circuits, execs, fails}

	used := &promFamily{name: "guard_cooldown_used", typ: "gauge", help: "Actions of each service inside the current budget window."}
	limit := &promFamily{name: "guard_cooldown_limit", typ: "gauge", help: "Actions allowed per budget window."}
	in := &promFamily{name: "guard_cooldown_in_cooldown", typ: "gauge", help: "1 if the budget is spent and the action is not allowed now."}
	next := &promFamily{name: "guard_cooldown_next_allowed_seconds", typ: "gauge", help: "When the action is next allowed, in Unix seconds."}
	healthy := &promFamily{name: "guard_cooldown_consecutive_healthy", typ: "gauge", help: "Healthy checks in a row of each service."}
	services := make([]string, 0, len(cool))
	for s := range cool {
		services = append(services, s)
	}
	sort.Strings(services)
	for _, s := range services {
		st := cool[s]
		healthy.add(float64(st.ConsecutiveHealthy), "service", s)
		actions := make([]string, 0, len(st.Actions))
		for a := range st.Actions {
			actions = append(actions, a)
		}
		sort.Strings(actions)
		for _, a := range actions {
			v := st.Actions[a]
			used.add(float64(v.Used), "service", s, "action", a)
			limit.add(float64(v.Limit), "service", s, "action", a)
			inc := 0.0
			if v.InCooldown {
				inc = 1
			}
			in.add(inc, "service", s, "action", a)
			if !v.NextAllowed.IsZero() {
				next.add(float64(v.NextAllowed.Unix()), "service", s, "action", a)
			}
		}
	}
	return append(families, used, limit, in, next, healthy)
}

// WritePrometheus writes the report r, with the keys' statuses, as metrics
// in the Prometheus text format, as node_exporter's textfile collector
// reads them.
func WritePrometheus(w io.Writer, r Report, sts []KeyStatus) error {
	return writeProm(w, promReport(r, sts, r.Cooldown))
}
