package dashboard

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"guard/breaker"
	"guard/config"
	"guard/internal/circuit"
	"guard/internal/store"
	"guard/internal/view"
)

// A Page is the dashboard's content at one version, ready to render.
type Page struct {
	Where     string // the state, its password masked
	Generated time.Time
	Version   int64
	Summary   Summary
	Tiles     []Tile // most urgent first
	RunTimes  []RunRow
	Budgets   []BudgetRow
	Hosts     []HostRow
	Warnings  []string
	// Cooldown says whether there is a cooldown state (else the budgets
	// section says so).
	Cooldown bool
}

// A Summary counts the keys by state.
type Summary struct {
	Keys, Open, HalfOpen, Closed int
	Runs, Failures               int64 // lifetime totals
	InFlight                     int
}

// A Tile is one key's circuit.
type Tile struct {
	ID       string // "k12": stable while the page lives
	TimeID   string // "t12": its timeline's, which the 24-hour view shows again
	Key      string // as printed: control characters escaped
	Command  string // the key without its project or session
	Project  string
	Session  string
	State    string // closed, open, half_open
	Word     string // the state in words: "half-open (forced)"
	Failures int
	Rule     string // the failures against the rule that trips it
	Next     string // when it is tried again
	Reason   string // why it opened
	Opened   string
	LastErr  string
	Reset    string // the command that closes it
	InFlight []string
	Leases   []string
	Timeline Timeline
	P95      int64 // for sorting
}

// A RunRow is one key's run times over the window.
type RunRow struct {
	ID            string // "r12"
	Key           string
	Runs          int
	P50, P95, Max string
	P95MS         int64
}

// A BudgetRow is one service's budget for one action.
type BudgetRow struct {
	Service, Action string
	Used, Limit     int
	Window          string
	Next            string // when the next slot frees, in words
	Full            bool   // no action is allowed now
	next            time.Time
}

// A HostRow is what one host did and holds.
type HostRow struct {
	Host   string // "(not recorded)" for events logged before hosts were
	Opened []string
	Leases []string
	Runs   []string
}

// stamp writes t for people, in UTC.
func stamp(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.UTC().Format("2006-01-02 15:04:05Z")
}

// text is how the page shows text from outside (keys, errors): control
// characters escaped, secrets of database URLs masked.
func text(s string) string { return view.Printable(redact(s)) }

// redact masks the password of a database location.
func redact(s string) string { return config.Redact(s) }

// Page returns the Model's content.
func (m *Model) Page() Page {
	p := Page{
		Where:     text(m.src.Hooks.Where),
		Generated: m.now,
		Version:   m.version,
		Budgets:   m.budgets,
		Hosts:     m.hosts(),
		Warnings:  append([]string(nil), m.warnings...),
		Cooldown:  m.cooldown != nil,
	}
	keys := m.sortedKeys()
	for _, k := range keys {
		t := m.tile(k)
		p.Tiles = append(p.Tiles, t)
		if r, ok := m.runRow(k); ok {
			p.RunTimes = append(p.RunTimes, r)
		}
	}
	sort.SliceStable(p.RunTimes, func(i, j int) bool { return p.RunTimes[i].P95MS > p.RunTimes[j].P95MS })
	p.Summary = m.summary()
	return p
}

// sortedKeys lists the keys most urgent first, then by name.
func (m *Model) sortedKeys() []*keyModel {
	keys := make([]*keyModel, 0, len(m.keys))
	for _, k := range m.keys {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		a, b := view.Severity(keys[i].circuit.State), view.Severity(keys[j].circuit.State)
		if a != b {
			return a > b
		}
		return keys[i].key < keys[j].key
	})
	return keys
}

func (m *Model) summary() Summary {
	var s Summary
	for _, k := range m.keys {
		s.Keys++
		switch k.circuit.State {
		case breaker.Open:
			s.Open++
		case breaker.HalfOpen:
			s.HalfOpen++
		default:
			s.Closed++
		}
		s.Runs += k.circuit.Totals.Runs()
		s.Failures += k.circuit.Totals.Failures
		s.InFlight += len(k.runs)
	}
	return s
}

// tile is key k's tile.
func (m *Model) tile(k *keyModel) Tile {
	c := k.circuit
	state := c.State
	if state == "" {
		state = breaker.Closed
	}
	t := Tile{
		ID:       "k" + strconv.Itoa(k.id),
		TimeID:   "t" + strconv.Itoa(k.id),
		Key:      text(k.key),
		Command:  text(circuit.RuleKey(k.key)),
		Project:  text(circuit.KeyProject(k.key)),
		Session:  text(circuit.KeySession(k.key)),
		State:    string(state),
		Failures: c.FailureCount,
		Reset:    view.ResetCommand(k.key),
		Timeline: k.agg.timeline(m.end, m.now, state),
	}
	t.Word = strings.ReplaceAll(string(state), "_", "-")
	switch {
	case !k.known && len(k.runs) > 0:
		t.Word += " (first run)"
	case !k.known:
		t.Word += " (no state)"
	case c.Forced:
		t.Word += " (forced)"
	}
	b := m.src.Config.For(circuit.RuleKey(k.key))
	if b.Mode == "observe" {
		t.Word += " (observe)"
	}
	t.Rule = rule(c, &b, k.key, m.now)
	t.Next = next(c, m.now, m.src.Alive)
	if state != breaker.Closed {
		t.Reason = text(c.OpenReason)
		t.Opened = stamp(c.DisabledAt)
	}
	if c.LastError != "" {
		t.LastErr = text(view.LastError(c.LastError, 200))
	}
	for _, r := range k.runs {
		pid := r.Holder.PID
		if r.ChildPID != 0 {
			pid = r.ChildPID
		}
		s := fmt.Sprintf("pid %d%s since %s", pid, onHost(r.Holder.Host), stamp(r.Started))
		t.InFlight = append(t.InFlight, s)
	}
	for _, l := range c.Leases {
		alive := "alive"
		if !m.src.Alive(store.Holder{Host: l.Host, PID: l.PID, Start: l.Start}) {
			alive = "gone"
		}
		t.Leases = append(t.Leases, fmt.Sprintf("probe lease: pid %d%s (%s), until %s", l.PID, onHost(l.Host), alive, stamp(l.Expires)))
	}
	_, _, t.P95, _ = k.agg.durations()
	return t
}

func onHost(h string) string {
	if h == "" {
		return ""
	}
	return " on " + text(h)
}

// rule says how far the circuit is from its trip rule, in the rule's
// terms.
func rule(c breaker.Circuit, b *config.Breaker, key string, now time.Time) string {
	s := b.Settings(key)
	switch {
	case b.Mode == "disabled":
		return "guard is disabled for this key"
	case s.Exclude:
		return fmt.Sprintf("%d failures; excluded: never trips", c.ConsecutiveFailures)
	case c.State == breaker.HalfOpen:
		return fmt.Sprintf("%d of %d successful probes to close", c.ConsecutiveSuccesses, max(s.SuccessThreshold, 1))
	case s.FailureRate > 0 || s.SlowCallRate > 0:
		w := breaker.Window{Length: s.FailureWindow}
		calls, failed, slow := breaker.SumBuckets(w.PruneBuckets(slices.Clone(c.Calls), now))
		var parts []string
		if s.FailureRate > 0 {
			parts = append(parts, fmt.Sprintf("%d of %d calls failed in %s; trips at %s once %d calls ended", failed, calls, config.FormatDuration(s.FailureWindow), config.FormatPercent(s.FailureRate), s.MinimumCalls))
		}
		if s.SlowCallRate > 0 {
			parts = append(parts, fmt.Sprintf("%d of %d calls slow in %s; trips at %s", slow, calls, config.FormatDuration(s.FailureWindow), config.FormatPercent(s.SlowCallRate)))
		}
		return strings.Join(parts, "; ")
	case s.OfLast > 0:
		return fmt.Sprintf("%d of the last %d calls failed; trips at %d", strings.Count(c.Recent, "f"), s.OfLast, max(s.FailureThreshold, 1))
	case s.FailureWindow > 0:
		w := breaker.Window{Length: s.FailureWindow}
		return fmt.Sprintf("%d failures in the last %s; trips at %d", w.Count(c.Failures, now), config.FormatDuration(s.FailureWindow), max(s.FailureThreshold, 1))
	}
	return fmt.Sprintf("%d failures in a row; trips at %d", c.ConsecutiveFailures, max(s.FailureThreshold, 1))
}

// next says when the circuit is tried again.
func next(c breaker.Circuit, now time.Time, alive func(store.Holder) bool) string {
	switch c.State {
	case breaker.Open:
		switch {
		case c.RetryAfter.IsZero():
			return "stays open until guard reset"
		case !c.RetryAfter.After(now):
			return "the next call probes"
		}
		return "probes at " + stamp(c.RetryAfter)
	case breaker.HalfOpen:
		for _, l := range c.Leases {
			if alive(store.Holder{Host: l.Host, PID: l.PID, Start: l.Start}) {
				return fmt.Sprintf("probing now (pid %d%s)", l.PID, onHost(l.Host))
			}
		}
		return "the next call probes"
	}
	return "runs every call"
}

// runRow is key k's run times, if it ran in the window.
func (m *Model) runRow(k *keyModel) (RunRow, bool) {
	n, p50, p95, most := k.agg.durations()
	if n == 0 {
		return RunRow{}, false
	}
	return RunRow{ID: "r" + strconv.Itoa(k.id), Key: text(k.key), Runs: n, P50: ms(p50), P95: ms(p95), Max: ms(most), P95MS: p95}, true
}

// ms shows milliseconds as the status table does: 850ms, 4.2s, 3m10s.
func ms(n int64) string {
	d := time.Duration(n) * time.Millisecond
	switch {
	case d < time.Second:
		return fmt.Sprintf("%dms", n)
	case d < time.Minute:
		return fmt.Sprintf("%.1fs", d.Seconds())
	}
	return d.Round(time.Second).String()
}

func budgetRow(service string, a store.Action, v breaker.Verdict, now time.Time) BudgetRow {
	r := BudgetRow{Service: text(service), Action: a.Name, Used: v.Used, Limit: v.Limit, Window: config.FormatDuration(a.Window), Full: !v.Allowed, next: v.NextAllowed}
	switch {
	case v.Allowed:
		r.Next = fmt.Sprintf("free now (%d left)", v.Limit-v.Used)
	case v.NextAllowed.IsZero():
		r.Next = "never (the limit is 0)"
	default:
		r.Next = "full; a slot frees at " + stamp(v.NextAllowed)
	}
	return r
}

// hosts is what each host opened in the window, and the leases and slots
// each holds now.
func (m *Model) hosts() []HostRow {
	rows := map[string]*HostRow{}
	row := func(h string) *HostRow {
		if h == "" {
			h = "(not recorded)"
		}
		r := rows[h]
		if r == nil {
			r = &HostRow{Host: text(h)}
			rows[h] = r
		}
		return r
	}
	for _, k := range m.sortedKeys() {
		opened := map[string]int{}
		var last map[string]time.Time = map[string]time.Time{}
		for _, c := range k.agg.changes {
			if c.to == breaker.Open {
				opened[c.host]++
				last[c.host] = c.at
			}
		}
		for h, n := range opened {
			row(h).Opened = append(row(h).Opened, fmt.Sprintf("%s: %d× (last %s)", text(k.key), n, stamp(last[h])))
		}
		for _, l := range k.circuit.Leases {
			row(l.Host).Leases = append(row(l.Host).Leases, fmt.Sprintf("%s: probe lease, pid %d, until %s", text(k.key), l.PID, stamp(l.Expires)))
		}
		for _, r := range k.runs {
			row(r.Holder.Host).Runs = append(row(r.Holder.Host).Runs, fmt.Sprintf("%s: pid %d since %s", text(k.key), r.Holder.PID, stamp(r.Started)))
		}
	}
	out := make([]HostRow, 0, len(rows))
	for _, r := range rows {
		out = append(out, *r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Host < out[j].Host })
	return out
}

// A Delta is what changed since a version: what a live page fetches.
type Delta struct {
	Version int64
	// Full says the page must be fetched whole: the window moved, or the
	// version asked for is older than this Model.
	Full                         bool
	Tiles                        []Tile
	RunTimes                     []RunRow
	Removed                      []string // ids of tiles and rows that went
	Summary                      Summary
	Budgets                      []BudgetRow // with BudgetsChanged
	Hosts                        []HostRow   // with HostsChanged
	BudgetsChanged, HostsChanged bool
	Cooldown                     bool
	Warnings                     []string
}

// Changes returns what changed after version since.
func (m *Model) Changes(since int64) Delta {
	d := Delta{Version: m.version, Summary: m.summary(), Cooldown: m.cooldown != nil, Warnings: append([]string(nil), m.warnings...)}
	if since < m.base || since > m.version {
		d.Full = true
		return d
	}
	for _, k := range m.sortedKeys() {
		if k.at <= since {
			continue
		}
		d.Tiles = append(d.Tiles, m.tile(k))
		if r, ok := m.runRow(k); ok {
			d.RunTimes = append(d.RunTimes, r)
		} else {
			d.Removed = append(d.Removed, "r"+strconv.Itoa(k.id))
		}
	}
	for id, at := range m.removed {
		if at > since {
			d.Removed = append(d.Removed, "k"+strconv.Itoa(id), "r"+strconv.Itoa(id))
		}
	}
	if m.budgetsAt > since {
		d.Budgets, d.BudgetsChanged = m.budgets, true
	}
	if m.hostsAt > since {
		d.Hosts, d.HostsChanged = m.hosts(), true
	}
	return d
}
