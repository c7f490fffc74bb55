package eventlog

import (
	"time"

	"guard/internal/jsonx"
)

// The events guard logs, each with what it means. Event.Event is one of
// these.
const (
	Run            = "run"             // a command ran: outcome, exit, duration_ms, error, probe
	Skip           = "skip"            // a call was skipped: the circuit was open (reason, until)
	Transition     = "transition"      // a circuit changed state: from, to, reason, until
	Reaped         = "reaped"          // a dead or expired probe lease was removed: pid, reason
	Rejected       = "rejected"        // a call found every max_concurrent slot taken: reason
	Reset          = "reset"           // guard reset closed a circuit: from, to
	Trip           = "trip"            // guard trip forced a circuit open: reason, until
	Probe          = "probe"           // guard probe let an open circuit probe now: from, to
	Quarantine     = "quarantine"      // a state file, or one key's entry, was set aside: file, error
	Import         = "import"          // guard state import replaced the state: file, reason (the backup)
	Cooldown       = "cooldown"        // a budget was checked: action, outcome (allowed, refused), used, limit, until
	CooldownRecord = "cooldown_record" // an action was recorded against its budget: action, outcome, error
	CooldownHealth = "cooldown_health" // a healthy or unhealthy check of a service: outcome, reason
	Mark           = "mark"            // guard cooldown mark set last_NAME: reason
)

// Observed is the outcome of a skip in observe mode: the call would have
// been skipped, and ran.
const Observed = "observed"

// Names lists every event, in the order of the constants above.
var Names = []string{Run, Skip, Transition, Reaped, Rejected, Reset, Trip, Probe, Quarantine, Import, Cooldown, CooldownRecord, CooldownHealth, Mark}

// Stamp writes t as an event's "until": RFC 3339 UTC, rounded up to the
// second, so that a retry time is never shown before it has come.
func Stamp(t time.Time) string {
	if r := t.Truncate(time.Second); !r.Equal(t) {
		t = r.Add(time.Second)
	}
	return t.UTC().Format(jsonx.TimeLayout)
}
