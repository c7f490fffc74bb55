package view

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"guard/breaker"
	"guard/internal/jsonx"
	"guard/internal/store"
)

var (
	metricName = regexp.MustCompile(`^[a-zA-Z_:][a-zA-Z0-9_:]*$`)
	labelName  = regexp.MustCompile(`^[a-zA-Z_][a-zA-Z0-9_]*$`)
	metricType = map[string]bool{"counter": true, "gauge": true, "histogram": true, "summary": true, "untyped": true}
)

// checkExposition checks text against the rules of the Prometheus text
// exposition format that node_exporter's textfile collector enforces, and
// returns the label values it read, unescaped.
func checkExposition(text string) (map[string][]map[string]string, error) {
	if !strings.HasSuffix(text, "\n") {
		return nil, errors.New("output does not end in a newline")
	}
	typ := map[string]string{}
	help := map[string]bool{}
	done := map[string]bool{} // families whose samples have ended
	current := ""
	series := map[string]bool{}
	samples := map[string][]map[string]string{}
	for n, line := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
		where := fmt.Sprintf("line %d %q", n+1, line)
		if strings.HasPrefix(line, "#") {
			f := strings.SplitN(line, " ", 4)
			if len(f) < 4 || (f[1] != "HELP" && f[1] != "TYPE") {
				return nil, fmt.Errorf("%s: malformed comment", where)
			}
			name := f[2]
			if !metricName.MatchString(name) {
				return nil, fmt.Errorf("%s: bad metric name", where)
			}
			if done[name] || (current == name && f[1] == "TYPE") {
				return nil, fmt.Errorf("%s: %s after the family's samples", where, f[1])
			}
			if f[1] == "TYPE" {
				if typ[name] != "" || !metricType[f[3]] {
					return nil, fmt.Errorf("%s: second or unknown TYPE", where)
				}
				typ[name] = f[3]
			} else {
				if help[name] {
					return nil, fmt.Errorf("%s: second HELP", where)
				}
				help[name] = true
			}
			continue
		}
		name, labels, rest, err := parseSample(where, line)
		if err != nil {
			return nil, err
		}
		if typ[name] == "" {
			return nil, fmt.Errorf("%s: sample before its TYPE", where)
		}
		if name != current {
			if current != "" {
				done[current] = true
			}
			if done[name] {
				return nil, fmt.Errorf("%s: the samples of %s are not together", where, name)
			}
			current = name
		}
		if typ[name] == "counter" && !strings.HasSuffix(name, "_total") {
			return nil, fmt.Errorf("%s: counter without _total", where)
		}
		if _, err := strconv.ParseFloat(rest, 64); err != nil {
			return nil, fmt.Errorf("%s: value %q: %v", where, rest, err)
		}
		id := name + fmt.Sprint(labels)
		if series[id] {
			return nil, fmt.Errorf("%s: duplicate series", where)
		}
		series[id] = true
		samples[name] = append(samples[name], labels)
	}
	return samples, nil
}

// parseSample splits a sample line into its name, labels and value.
func parseSample(where, line string) (string, map[string]string, string, error) {
	i := strings.IndexAny(line, "{ ")
	if i < 0 {
		return "", nil, "", fmt.Errorf("%s: no value", where)
	}
	name := line[:i]
	if !metricName.MatchString(name) {
		return "", nil, "", fmt.Errorf("%s: bad metric name", where)
	}
	labels := map[string]string{}
	s := line[i:]
	if s[0] == '{' {
		s = s[1:]
		for {
			if strings.HasPrefix(s, "}") {
				s = s[1:]
				break
			}
			eq := strings.Index(s, `="`)
			if eq < 0 || !labelName.MatchString(s[:eq]) || strings.HasPrefix(s, "__") {
				return "", nil, "", fmt.Errorf("%s: bad label name in %q", where, s)
			}
			lname := s[:eq]
			s = s[eq+2:]
			var v strings.Builder
			for {
				if s == "" {
					return "", nil, "", fmt.Errorf("%s: unterminated label value", where)
				}
				c := s[0]
				s = s[1:]
				if c == '"' {
					break
				}
				if c == '\\' {
					if s == "" {
						return "", nil, "", fmt.Errorf("%s: dangling backslash", where)
					}
					switch s[0] {
					case '\\':
						v.WriteByte('\\')
					case '"':
						v.WriteByte('"')
					case 'n':
						v.WriteByte('\n')
					default:
						return "", nil, "", fmt.Errorf("%s: bad escape \\%c", where, s[0])
					}
					s = s[1:]
					continue
				}
				v.WriteByte(c)
			}
			if _, dup := labels[lname]; dup {
				return "", nil, "", fmt.Errorf("%s: label %s twice", where, lname)
			}
			labels[lname] = v.String()
			if strings.HasPrefix(s, ",") {
				s = s[1:]
			}
		}
	}
	if !strings.HasPrefix(s, " ") {
		return "", nil, "", fmt.Errorf("%s: no space before the value", where)
	}
	return name, labels, strings.TrimPrefix(s, " "), nil
}

func TestPrometheusExposition(t *testing.T) {
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	keys := []string{
		`python3 lint.py`,
		`echo "a \"quoted\" key" \ with backslashes`,
		"two\nlines",
		`sh -c 'x' {braces} = , "`,
		"evil\x1b[31mRED\a",
		`evil\x1b[31mRED\a`, // the text that the one before is shown as
		"ls \u202efdp.exe\u200b",
		`a\xceb`, // not UTF-8, as guard keys it
	}
	var sts []KeyStatus
	for i, k := range keys {
		c := breaker.Circuit{State: []breaker.State{"open", "closed", "half_open", "closed"}[i%4], ConsecutiveFailures: i,
			RetryAfter: now.Add(time.Minute), Totals: breaker.Totals{Successes: 5, Failures: 3, Abandoned: 1, Skips: 2}}
		sts = append(sts, testStatus(k, c, ""))
	}
	r := Report{ActiveHooks: 2, DisabledHooks: 1, HalfOpenHooks: 1, TotalExecutions: 40, TotalFailures: 12}
	cool := map[string]ServiceStatus{
		"nginx": {ConsecutiveHealthy: 1, Actions: map[string]Verdict{
			"restart":  {Used: 2, Limit: 2, InCooldown: true, NextAllowed: jsonx.TimeOf(now.Add(time.Hour))},
			"redeploy": {Used: 0, Limit: 1},
		}},
	}
	var buf bytes.Buffer
	if err := writeProm(&buf, promReport(r, sts, cool)); err != nil {
		t.Fatal(err)
	}
	samples, err := checkExposition(buf.String())
	if err != nil {
		t.Fatalf("%v\n%s", err, buf.String())
	}

	// Every key's label is the key itself, escaped once (issue 33 #3: it
	// was the escaped display form escaped again), in a series of its own.
	got := map[string]bool{}
	for _, l := range samples["guard_circuit_state"] {
		got[l["key"]] = true
	}
	for _, k := range keys {
		if !got[k] {
			t.Errorf("key %q lost in escaping", k)
		}
	}
	for _, want := range []string{
		"guard_circuit_state{key=\"python3 lint.py\"} 2\n",
		"guard_runs_total{key=\"python3 lint.py\",outcome=\"failure\"} 2\n",
		"guard_runs_total{key=\"python3 lint.py\",outcome=\"abandoned\"} 1\n",
		"guard_skips_total{key=\"python3 lint.py\",verdict=\"allowed\"} 2\n",
		"guard_skips_total{key=\"python3 lint.py\",verdict=\"blocked\"} 0\n",
		"guard_cooldown_used{service=\"nginx\",action=\"restart\"} 2\n",
		"guard_cooldown_in_cooldown{service=\"nginx\",action=\"restart\"} 1\n",
		"guard_circuit_retry_after_seconds{key=\"python3 lint.py\"} 1795262460\n",
		"guard_executions_total 40\n",
		"# TYPE guard_runs_total counter\n",
	} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("output lacks %q", want)
		}
	}
}

func TestExpositionCheckerCatchesMistakes(t *testing.T) {
	for _, bad := range []string{
		"m 1\n",                             // no TYPE
		"# TYPE m gauge\nm{k=\"a\\x\"} 1\n", // bad escape
		"# TYPE m gauge\nm{k=\"a\"} 1\nm{k=\"a\"} 2\n",    // duplicate series
		"# TYPE a gauge\n# TYPE b gauge\na 1\nb 1\na 2\n", // a family split in two
		"# TYPE c counter\nc 1\n",                         // counter without _total
		"# TYPE m gauge\nm one\n",                         // not a number
	} {
		if _, err := checkExposition(bad); err == nil {
			t.Errorf("checker accepted %q", bad)
		}
	}
}

// TestPrometheusObserveMode: a key in observe mode, which is never
// skipped, is not in guard_circuit_state (an alert on 2 must not fire for
// it) nor counted as open, but in guard_circuit_observe_state.
func TestPrometheusObserveMode(t *testing.T) {
	sts := []KeyStatus{
		testStatus("enforced", breaker.Circuit{State: breaker.Open}, ""),
		testStatus("obs", breaker.Circuit{State: breaker.Open}, "observe"),
		testStatus("obs-closed", breaker.Circuit{State: breaker.Closed}, "observe"),
		testStatus("off", breaker.Circuit{State: breaker.Open, ConsecutiveFailures: 3}, "disabled"),
	}
	var buf bytes.Buffer
	if err := WritePrometheus(&buf, Report{ActiveHooks: 1, DisabledHooks: 2}, sts); err != nil {
		t.Fatal(err)
	}
	if _, err := checkExposition(buf.String()); err != nil {
		t.Fatalf("%v\n%s", err, buf.String())
	}
	out := buf.String()
	for _, want := range []string{
		"guard_circuit_state{key=\"enforced\"} 2\n",
		"guard_circuit_observe_state{key=\"obs\"} 2\n",
		"guard_circuit_observe_state{key=\"obs-closed\"} 0\n",
		"guard_circuits{state=\"open\"} 1\n",
		"guard_circuits{state=\"closed\"} 0\n",
		"guard_circuits{state=\"observe\"} 2\n",
		"guard_circuits{state=\"disabled\"} 1\n",
		"guard_key_state{key=\"off\",state=\"disabled\"} 1\n",
		"guard_key_state{key=\"off\",state=\"open\"} 0\n",
		"guard_key_state{key=\"obs\",state=\"observe\"} 1\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q", want)
		}
	}
	if strings.Contains(out, "guard_circuit_state{key=\"obs") {
		t.Errorf("an observe-mode key is in guard_circuit_state:\n%s", out)
	}
	// A disabled key is never shown as open (newcomer-and-mission #2): not in
	// the alerting series, nor with a retry time.
	if strings.Contains(out, "_state{key=\"off\"}") || strings.Contains(out, "retry_after_seconds{key=\"off\"}") {
		t.Errorf("a disabled key is in guard_circuit_state:\n%s", out)
	}
}

// testStatus is the status of key with circuit c under mode, as
// ApplyConfig would give it.
func testStatus(key string, c breaker.Circuit, mode string) KeyStatus {
	st := statusOf(key, c, nil, time.Unix(0, 0), func(store.Holder) bool { return true })
	st.Mode, st.known = mode, true
	st.setState()
	return st
}
