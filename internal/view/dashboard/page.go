package dashboard

import (
	"fmt"
	"sort"
	"strconv"
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

// A Summary counts the keys by state (the states every output shows:
// view.States), what was not run in the last 24 hours, and the budgets that
// are full.
type Summary struct {
	Keys, Open, HalfOpen, Forced, Observe, Disabled, Closed int
	// ObserveOpen counts the keys in observe mode whose circuit is not
	// closed: they would skip.
	ObserveOpen    int
	Runs, Failures int64 // lifetime totals
	InFlight       int
	// The calls of the last 24 hours: run, failed, and not run with their
	// action allowed (Skipped) or blocked (Blocked).
	Runs24, Failed24, Skipped24, Blocked24 int
	BudgetsFull                            int
	// Alert is how the summary is coloured: "red" while a circuit is open
	// (forced too), "amber" while one is half-open or would skip in
	// observe mode, else "".
	Alert string
}

// A Tile is one key's circuit.
type Tile struct {
	ID      string // "k12": stable while the page lives
	Key     string // as printed: control characters escaped
	Command string // the key without its project or session
	Project string
	Session string
	// State is the key's state (view.States), Circuit its circuit's, Word
	// the state in words as every output has it: "open (forced)".
	State, Circuit, Word string
	Rank                 int // view.KeyState.Rank, for sorting
	// Compact is a tile with nothing to tell but that all is well: closed
	// (or disabled) with no failure counted, no error, no run in flight
	// and no call skipped in its span.
	Compact  bool
	Failures int    // what its rule counts now
	Rule     string // the failures against the rule that trips it
	Next     string // when it is tried again
	NextAt   *Moment
	Reason   string // why it opened
	Opened   *Moment
	Disabled string // who disabled it and why, or that the config does
	LastErr  string
	Slots    string // "2 of 2 in use", "1 running"
	Full     bool   // every max_concurrent slot is in use
	Reset    string // the command that closes it
	InFlight []string
	Leases   []string
	Spark    Spark
	P95      int64 // for sorting
}

// A Moment is a time shown relative to the page's time ("4 min ago", "in 1
// min"), with the time itself beside it; a live page keeps the relative
// part up to date.
type Moment struct {
	At       time.Time
	Relative string
	Stamp    string
	Future   bool
}

func moment(t, now time.Time) *Moment {
	if t.IsZero() {
		return nil
	}
	m := &Moment{At: t, Stamp: stamp(t), Future: t.After(now)}
	if m.Future {
		m.Relative = view.In(t, now)
	} else {
		m.Relative = view.Ago(t, now)
	}
	return m
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

// keyText is a key as every text output shows it (view.KeyText): as it is,
// or, if it has something to escape, a backslash or white space at an end,
// as the shell word that names it, so that two keys never look alike (a
// newline and the text \n).
func keyText(s string) string { return view.KeyText(redact(s)) }

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
	// The compact tiles last, together (sortedKeys ranked by state).
	sort.SliceStable(p.Tiles, func(i, j int) bool { return p.Tiles[i].Rank < p.Tiles[j].Rank })
	sort.SliceStable(p.RunTimes, func(i, j int) bool { return p.RunTimes[i].P95MS > p.RunTimes[j].P95MS })
	p.Summary = m.summary()
	return p
}

// keyState is key k's state in the model, as every output has it.
func (m *Model) keyState(k *keyModel) view.KeyState {
	b := m.src.Config.For(circuit.RuleKey(k.key))
	return view.StateOf(k.circuit, b.Mode, b.Enabled)
}

// sortedKeys lists the keys most urgent first, then by name.
func (m *Model) sortedKeys() []*keyModel {
	keys := make([]*keyModel, 0, len(m.keys))
	for _, k := range m.keys {
		keys = append(keys, k)
	}
	rank := make(map[*keyModel]int, len(keys))
	for _, k := range keys {
		rank[k] = m.keyState(k).Rank()
	}
	sort.Slice(keys, func(i, j int) bool {
		if a, b := rank[keys[i]], rank[keys[j]]; a != b {
			return a < b
		}
		return keys[i].key < keys[j].key
	})
	return keys
}

func (m *Model) summary() Summary {
	var s Summary
	aggs := make([]*keyAgg, 0, len(m.keys))
	for _, k := range m.keys {
		s.Keys++
		ks := m.keyState(k)
		switch ks.Name {
		case view.StateOpen:
			s.Open++
		case view.StateHalfOpen:
			s.HalfOpen++
		case view.StateForced:
			s.Forced++
		case view.StateObserve:
			s.Observe++
			if ks.Circuit != breaker.Closed {
				s.ObserveOpen++
			}
		case view.StateDisabled:
			s.Disabled++
		default:
			s.Closed++
		}
		s.Runs += k.circuit.Totals.Runs()
		s.Failures += k.circuit.Totals.Failures
		s.InFlight += len(k.runs)
		aggs = append(aggs, &k.agg)
	}
	c := recent(aggs, m.now)
	s.Runs24, s.Failed24, s.Skipped24, s.Blocked24 = c.calls, c.fails, c.skips, c.blocked
	for _, b := range m.budgets {
		if b.Full {
			s.BudgetsFull++
		}
	}
	switch {
	case s.Open+s.Forced > 0:
		s.Alert = "red"
	case s.HalfOpen+s.ObserveOpen > 0 || s.BudgetsFull > 0:
		s.Alert = "amber"
	}
	return s
}

// tile is key k's tile.
func (m *Model) tile(k *keyModel) Tile {
	c := k.circuit
	b := m.src.Config.For(circuit.RuleKey(k.key))
	ks := view.StateOf(c, b.Mode, b.Enabled)
	standing := view.StandingOf(c, &b, k.key, m.now)
	t := Tile{
		ID:       "k" + strconv.Itoa(k.id),
		Key:      keyText(k.key),
		Command:  keyText(circuit.RuleKey(k.key)),
		Project:  text(circuit.KeyProject(k.key)),
		Session:  text(circuit.KeySession(k.key)),
		State:    ks.Name,
		Circuit:  string(ks.Circuit),
		Word:     ks.Word(),
		Rank:     ks.Rank(),
		Failures: standing.Failures,
		Rule:     standing.Text(),
		Reset:    view.ResetCommand(k.key),
		Spark:    k.agg.spark(m.now, ks.Circuit),
	}
	switch {
	case !k.known && len(k.runs) > 0:
		t.Word += " (first run)"
	case !k.known:
		t.Word += " (no state)"
	}
	t.Next, t.NextAt = next(c, ks, m.now, m.src.Alive)
	if ks.Name == view.StateDisabled {
		t.Disabled = "mode: disabled in the config: every call runs unguarded, nothing is counted"
		if d := c.Disabled; d != nil {
			who := text(d.User)
			if d.Host != "" {
				who += "@" + text(d.Host)
			}
			t.Disabled = "guard disable by " + who + " " + view.Ago(d.Since, m.now)
			if d.Reason != "" {
				t.Disabled += ": " + text(d.Reason)
			}
		}
	} else if ks.Circuit != breaker.Closed {
		t.Reason = text(c.OpenReason)
		t.Opened = moment(c.DisabledAt, m.now)
	}
	if c.LastError != "" && ks.Name != view.StateDisabled {
		t.LastErr = text(view.LastError(c.LastError, 200))
	}
	for _, r := range k.runs {
		pid := r.Holder.PID
		if r.ChildPID != 0 {
			pid = r.ChildPID
		}
		s := fmt.Sprintf("pid %d%s since %s (%s)", pid, onHost(r.Holder.Host), stamp(r.Started), view.Ago(r.Started, m.now))
		t.InFlight = append(t.InFlight, s)
	}
	switch {
	case b.MaxConcurrent > 0:
		t.Slots = fmt.Sprintf("%d of %d in use", len(k.runs), b.MaxConcurrent)
		t.Full = len(k.runs) >= b.MaxConcurrent
	case len(k.runs) > 0:
		t.Slots = fmt.Sprintf("%d running", len(k.runs))
	}
	for _, l := range c.Leases {
		alive := "alive"
		if !m.src.Alive(store.Holder{Host: l.Host, PID: l.PID, Start: l.Start}) {
			alive = "gone"
		}
		t.Leases = append(t.Leases, fmt.Sprintf("probe lease: pid %d%s (%s), until %s", l.PID, onHost(l.Host), alive, stamp(l.Expires)))
	}
	quiet := t.Spark.Skipped+t.Spark.Blocked == 0 && len(k.runs) == 0 && t.LastErr == ""
	t.Compact = quiet && (ks.Name == view.StateDisabled || ks.Circuit == breaker.Closed && standing.Failures == 0 && k.known)
	if t.Compact {
		t.Rank += 10 // after every tile with something to tell
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

// next says when the circuit is tried again, and when that is.
func next(c breaker.Circuit, ks view.KeyState, now time.Time, alive func(store.Holder) bool) (string, *Moment) {
	switch ks.Name {
	case view.StateDisabled:
		return "every call runs", nil
	case view.StateObserve:
		if ks.Circuit == breaker.Closed {
			return "every call runs (observe mode)", nil
		}
		n, at := next(c, view.KeyState{Name: view.StateOpen, Circuit: ks.Circuit}, now, alive)
		return "every call runs (observe mode); the circuit: " + n, at
	}
	switch c.State {
	case breaker.Open:
		switch {
		case c.RetryAfter.IsZero():
			return "stays open until guard reset", nil
		case !c.RetryAfter.After(now):
			return "the next call probes", nil
		}
		return "probes", moment(c.RetryAfter, now)
	case breaker.HalfOpen:
		for _, l := range c.Leases {
			if alive(store.Holder{Host: l.Host, PID: l.PID, Start: l.Start}) {
				return fmt.Sprintf("probing now (pid %d%s)", l.PID, onHost(l.Host)), nil
			}
		}
		return "the next call probes", nil
	}
	return "runs every call", nil
}

// runRow is key k's run times, if it ran in the window.
func (m *Model) runRow(k *keyModel) (RunRow, bool) {
	n, p50, p95, most := k.agg.durations()
	if n == 0 {
		return RunRow{}, false
	}
	return RunRow{ID: "r" + strconv.Itoa(k.id), Key: keyText(k.key), Runs: n, P50: ms(p50), P95: ms(p95), Max: ms(most), P95MS: p95}, true
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
		r.Next = "full; a slot frees " + view.In(v.NextAllowed, now) + " (" + stamp(v.NextAllowed) + ")"
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
			row(h).Opened = append(row(h).Opened, fmt.Sprintf("%s: %d× (last %s)", keyText(k.key), n, stamp(last[h])))
		}
		for _, l := range k.circuit.Leases {
			row(l.Host).Leases = append(row(l.Host).Leases, fmt.Sprintf("%s: probe lease, pid %d, until %s", keyText(k.key), l.PID, stamp(l.Expires)))
		}
		for _, r := range k.runs {
			row(r.Holder.Host).Runs = append(row(r.Holder.Host).Runs, fmt.Sprintf("%s: pid %d since %s", keyText(k.key), r.Holder.PID, stamp(r.Started)))
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
