package store

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"guard/internal/jsonx"
)

// An Event is one entry of the audit trail: what guard decided, for whom,
// and why. Every backend keeps the same events (a JSON line each in the file
// backend's log). Fields that do not apply are left out.
type Event struct {
	Time  time.Time `json:"-"` // written as "time" (RFC 3339 UTC, seconds) and "ts_ms"
	Event string    `json:"event"`

	Key     string `json:"key,omitempty"`    // the circuit's key, or the cooldown's service
	Action  string `json:"action,omitempty"` // cooldown action
	Outcome string `json:"outcome,omitempty"`

	Exit       *int   `json:"exit,omitempty"`
	DurationMS *int64 `json:"duration_ms,omitempty"`
	Error      string `json:"error,omitempty"`
	Probe      bool   `json:"probe,omitempty"`

	From   string `json:"from,omitempty"`
	To     string `json:"to,omitempty"`
	Reason string `json:"reason,omitempty"`
	// Verdict says, for a call guard did not run (a skip, a rejection),
	// whether the action it guarded was blocked (on_skip: block) or
	// allowed; for a fallback run in its place, what the call did in the
	// end (blocked: the fallback exited 2). "" in events logged before
	// verdicts were recorded, and in observe mode's skips, which ran.
	Verdict string `json:"verdict,omitempty"`
	State   string `json:"state,omitempty"`
	Until   string `json:"until,omitempty"` // RFC 3339: retry_after, next allowed time

	Used  *int `json:"used,omitempty"`
	Limit *int `json:"limit,omitempty"`

	PID  int    `json:"pid,omitempty"`
	File string `json:"file,omitempty"`
	// Host is the host of the guard that logged the event (GUARD_HOST, or
	// the host name): in a state shared by hosts, who tripped what. ""
	// in events logged before hosts were recorded.
	Host string `json:"host,omitempty"`
	// User is who gave a command by hand (guard disable, enable): the user
	// name, or "uid N".
	User string `json:"user,omitempty"`

	// Raw is the line as read, for 'guard log --json'; empty on write.
	Raw json.RawMessage `json:"-"`
}

// Int returns a pointer to n, for the optional numeric fields.
func Int(n int) *int { return &n }

// Int64 returns a pointer to n.
func Int64(n int64) *int64 { return &n }

// MarshalJSON writes the event on one line, its time first. It is written
// by hand because every guard run logs: encoding/json would set up its
// reflection for Event in every process.
func (e Event) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	w := jsonx.NewObjectWriter(&b, "", true)
	w.String("time", e.Time.UTC().Format("2006-01-02T15:04:05Z"))
	w.Int("ts_ms", e.Time.UnixMilli())
	w.String("event", e.Event)
	for _, f := range []struct{ name, v string }{{"key", e.Key}, {"action", e.Action}, {"outcome", e.Outcome}} {
		if f.v != "" {
			w.String(f.name, f.v)
		}
	}
	if e.Exit != nil {
		w.Int("exit", int64(*e.Exit))
	}
	if e.DurationMS != nil {
		w.Int("duration_ms", *e.DurationMS)
	}
	if e.Error != "" {
		w.String("error", e.Error)
	}
	if e.Probe {
		w.Bool("probe", true)
	}
	for _, f := range []struct{ name, v string }{{"from", e.From}, {"to", e.To}, {"reason", e.Reason}, {"verdict", e.Verdict}, {"state", e.State}, {"until", e.Until}} {
		if f.v != "" {
			w.String(f.name, f.v)
		}
	}
	if e.Used != nil {
		w.Int("used", int64(*e.Used))
	}
	if e.Limit != nil {
		w.Int("limit", int64(*e.Limit))
	}
	if e.PID != 0 {
		w.Int("pid", int64(e.PID))
	}
	if e.File != "" {
		w.String("file", e.File)
	}
	if e.Host != "" {
		w.String("host", e.Host)
	}
	if e.User != "" {
		w.String("user", e.User)
	}
	w.Close()
	return b.Bytes(), nil
}

// UnmarshalJSON reads an event, taking its time from ts_ms, or from time.
func (e *Event) UnmarshalJSON(b []byte) error {
	type plain Event
	var w struct {
		Time string `json:"time"`
		TSMS int64  `json:"ts_ms"`
		plain
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*e = Event(w.plain)
	switch {
	case w.TSMS != 0:
		e.Time = time.UnixMilli(w.TSMS).UTC()
	case w.Time != "":
		t, err := time.Parse(time.RFC3339Nano, w.Time)
		if err != nil {
			return fmt.Errorf("time: %v", err)
		}
		e.Time = t
	default:
		return errors.New("event has no time")
	}
	if e.Event == "" {
		return errors.New("event has no name")
	}
	return nil
}

// ReadResult is what Read found.
type ReadResult struct {
	Events    []Event // in time order
	Malformed int     // lines that were not events, skipped
}

// The events guard logs, each with what it means. Event.Event is one of
// these.
const (
	EventRun            = "run"             // a command ran: outcome, exit, duration_ms, error, probe
	EventSkip           = "skip"            // a call was skipped: the circuit was open (reason, verdict, until)
	EventTransition     = "transition"      // a circuit changed state: from, to, reason, until
	EventReaped         = "reaped"          // a dead or expired probe lease was removed: pid, reason
	EventRejected       = "rejected"        // a call found every max_concurrent slot taken: reason, verdict
	EventReset          = "reset"           // guard reset closed a circuit: from, to
	EventTrip           = "trip"            // guard trip forced a circuit open: reason, until
	EventProbe          = "probe"           // guard probe let an open circuit probe now: from, to
	EventDisable        = "disable"         // guard disable turned a key off: from (the state underneath), to (disabled), reason, user, pid
	EventEnable         = "enable"          // guard enable turned it back on: from (disabled), to, reason, user, pid
	EventRetry          = "retry"           // a run failed and was tried again (retries): outcome, exit, duration_ms, error, reason (attempt n of m)
	EventFallback       = "fallback"        // a call guard skipped ran its fallback instead: reason (why skipped), outcome, exit, duration_ms, error, verdict (the fallback's own 2 blocked the action)
	EventNotify         = "notify"          // on_state_change ran for a transition: from, to, reason, outcome (success, failure), exit, duration_ms, error
	EventQuarantine     = "quarantine"      // a state file, or one key's entry, was set aside: file, error
	EventImport         = "import"          // guard state import replaced the state: file, reason (the backup)
	EventCooldown       = "cooldown"        // a budget was checked: action, outcome (allowed, refused), used, limit, until
	EventCooldownRecord = "cooldown_record" // an action was recorded against its budget: action, outcome, error
	EventCooldownHealth = "cooldown_health" // a healthy or unhealthy check of a service: outcome, reason
	EventMark           = "mark"            // guard cooldown mark set last_NAME: reason
)

// OutcomeObserved is the outcome of a skip in observe mode: the call would have
// been skipped, and ran.
const OutcomeObserved = "observed"

// The verdicts of a call guard did not run (Event.Verdict): its action was
// blocked (on_skip: block: guard exited 2, Claude Code's block) or allowed
// (guard exited open_exit_code, and the agent carried on).
const (
	VerdictBlocked = "blocked"
	VerdictAllowed = "allowed"
)

// VerdictOf is the verdict of a call not run whose action was blocked or
// not.
func VerdictOf(blocked bool) string {
	if blocked {
		return VerdictBlocked
	}
	return VerdictAllowed
}

// SkipFailureMode is the reason of a skip that guard decided on its own
// failure (it could not read or lock the state) under failure_mode: closed;
// the event's error says what failed. The circuit's own reasons are
// breaker.SkipReason's.
const SkipFailureMode = "failure_mode_closed"

// EventNames lists every event, in the order of the constants above.
var EventNames = []string{EventRun, EventSkip, EventTransition, EventReaped, EventRejected, EventReset, EventTrip, EventProbe, EventDisable, EventEnable, EventRetry, EventFallback, EventNotify, EventQuarantine, EventImport, EventCooldown, EventCooldownRecord, EventCooldownHealth, EventMark}

// Stamp writes t as an event's "until": RFC 3339 UTC, rounded up to the
// second, so that a retry time is never shown before it has come.
func Stamp(t time.Time) string {
	if r := t.Truncate(time.Second); !r.Equal(t) {
		t = r.Add(time.Second)
	}
	return t.UTC().Format(jsonx.TimeLayout)
}

// ReadEvents reads the events of one stream of JSON Lines (an event log
// file, a database's rows as lines) that keep accepts, in the order they
// come; a line that is not an event is counted as malformed and skipped.
func ReadEvents(r io.Reader, keep func(*Event) bool) (ReadResult, error) {
	var res ReadResult
	n, err := readFile(r, keep, &res.Events)
	res.Malformed = n
	return res, err
}

// readFile appends the events in r to out and returns how many lines were
// malformed.
func readFile(r io.Reader, keep func(*Event) bool, out *[]Event) (int, error) {
	malformed := 0
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		line, err := br.ReadBytes('\n')
		if len(line) > 0 {
			trimmed := bytes.TrimSpace(line)
			if len(trimmed) > 0 {
				if e, err := ParseEvent(trimmed); err != nil {
					malformed++
				} else {
					e.Raw = append(json.RawMessage(nil), trimmed...)
					if keep == nil || keep(&e) {
						*out = append(*out, e)
					}
				}
			}
		}
		if errors.Is(err, io.EOF) {
			return malformed, nil
		}
		if err != nil {
			return malformed, err
		}
	}
}
