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

// labelValue is what a key or a service name becomes as a label value:
// itself, with each backslash doubled and each character that is not
// printable escaped as in text output (\x1b, \n, \u202e, and \xce for a
// byte that is not UTF-8), so that no raw control or format character
// reaches a terminal or a dashboard, and two keys never share a series
// (which would make node_exporter refuse the whole file). circuit.Unescape
// reads the key back.
func labelValue(s string) string {
	return Printable(strings.ReplaceAll(s, `\`, `\\`))
}

// promHelpEscaper escapes HELP text: backslash and newline.
var promHelpEscaper = strings.NewReplacer(`\`, `\\`, "\n", `\n`)

// writeProm writes families in the Prometheus text exposition format, as
// node_exporter's textfile collector reads it: HELP and TYPE before each
// family's samples, no timestamps.
func writeProm(w io.Writer, families []*promFamily) error {
	var b strings.Builder
	for _, f := range families {
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
					fmt.Fprintf(&b, `%s="%s"`, l[0], promEscaper.Replace(labelValue(l[1])))
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

// promReport builds the metrics of a report.
func promReport(r Report, sts []KeyStatus, cool map[string]ServiceStatus) []*promFamily {
	state := &promFamily{name: "guard_circuit_state", typ: "gauge", help: "State of each key's circuit: 0 closed, 1 half-open, 2 open. Keys in observe mode, which are never skipped, are in guard_circuit_observe_state instead; keys disabled by hand (guard disable) are left out."}
	observe := &promFamily{name: "guard_circuit_observe_state", typ: "gauge", help: "State of the circuit of each key in observe mode, which runs every call: 0 closed, 1 half-open, 2 open (would skip)."}
	consec := &promFamily{name: "guard_consecutive_failures", typ: "gauge", help: "Failures in a row of each key."}
	retry := &promFamily{name: "guard_circuit_retry_after_seconds", typ: "gauge", help: "When each open circuit may probe again, in Unix seconds."}
	runs := &promFamily{name: "guard_runs_total", typ: "counter", help: "Runs of each key by outcome (success, failure, ignored, cancelled, abandoned)."}
	skips := &promFamily{name: "guard_skips_total", typ: "counter", help: "Calls of each key skipped because its circuit was open or probing, by verdict: blocked (on_skip: block: the action was blocked) or allowed (it went ahead without the hook)."}
	rejected := &promFamily{name: "guard_rejected_total", typ: "counter", help: "Calls of each key not run because max_concurrent runs were in flight, by verdict: blocked or allowed."}
	circuits := &promFamily{name: "guard_circuits", typ: "gauge", help: "Number of keys in each circuit state; observe: keys in observe mode whose circuit is not closed (they are never skipped); disabled: keys disabled by hand (guard disable), whose every call runs."}
	execs := &promFamily{name: "guard_executions_total", typ: "counter", help: "Runs recorded over all keys (the Python guardrails' total_executions)."}
	fails := &promFamily{name: "guard_failures_total", typ: "counter", help: "Failures recorded over all keys (the Python guardrails' total_failures)."}

	count := map[string]int{}
	for _, st := range sts {
		severity := float64(Severity(breaker.State(st.State)))
		switch {
		case st.Mode == string(breaker.Disabled):
			// Disabled by hand: every call runs, whatever the state underneath.
			count[string(breaker.Disabled)]++
		case st.Mode == "observe":
			observe.add(severity, "key", st.Key)
			if severity > 0 {
				count["observe"]++
			} else {
				count[string(breaker.Closed)]++
			}
		default:
			state.add(severity, "key", st.Key)
			count[st.State]++
		}
		consec.add(float64(st.ConsecutiveFailures), "key", st.Key)
		if st.State == string(breaker.Open) && !st.RetryAfter.IsZero() {
			retry.add(float64(st.RetryAfter.Unix()), "key", st.Key)
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
	}
	circuits.add(float64(count[string(breaker.Closed)]), "state", "closed")
	durations := &promFamily{name: "guard_run_duration_seconds", typ: "histogram", help: "How long each key's runs took, over the runs in the event log."}
	for _, st := range sts {
		d := st.DurationMS
		if d == nil || d.Count == 0 {
			continue
		}
		for i, n := range d.bucketCounts() {
			durations.add(float64(n), "key", st.Key, "le", strconv.FormatFloat(HistogramBuckets[i], 'f', -1, 64))
			durations.samples[len(durations.samples)-1].suffix = "_bucket"
		}
		durations.add(float64(d.Count), "key", st.Key, "le", "+Inf")
		durations.samples[len(durations.samples)-1].suffix = "_bucket"
		durations.add(float64(d.sum)/1000, "key", st.Key)
		durations.samples[len(durations.samples)-1].suffix = "_sum"
		durations.add(float64(d.Count), "key", st.Key)
		durations.samples[len(durations.samples)-1].suffix = "_count"
	}
	circuits.add(float64(count[string(breaker.HalfOpen)]), "state", "half_open")
	circuits.add(float64(count[string(breaker.Open)]), "state", "open")
	circuits.add(float64(count["observe"]), "state", "observe")
	circuits.add(float64(count[string(breaker.Disabled)]), "state", "disabled")
	execs.add(float64(r.TotalExecutions))
	fails.add(float64(r.TotalFailures))
	families := []*promFamily{state, observe, consec, retry, runs, skips, rejected, durations, circuits, execs, fails}

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
