package cooldownstate

import (
	"encoding/json"
	"fmt"
	"time"

	"guard/breaker"
	"guard/internal/jsonx"
	"guard/internal/store"
)

// service returns the entry of name, creating it (with an empty array for
// every action) on first use: services register implicitly.
func (d *Document) service(name string, actions []store.Action) (*Service, error) {
	if d.Services == nil {
		d.Services = map[string]*Service{}
	}
	s := d.Services[name]
	if s == nil {
		s = &Service{}
		// A new service gets the plain-timestamp arrays the others keep.
		for _, a := range actions {
			if m := d.mirror(s, a); m != "" {
				if err := s.setRecords(m, nil); err != nil {
					return nil, err
				}
			}
		}
		d.Services[name] = s
	}
	for _, a := range actions {
		if _, ok := s.Extra[a.Field]; !ok {
			if err := s.setRecords(a.Field, nil); err != nil {
				return nil, err
			}
		}
	}
	return s, nil
}

// appendMirror adds t to the plain-timestamp array guard writes a's records
// on s to as well, if there is one (see mirror).
func (d *Document) appendMirror(s *Service, a store.Action, t time.Time) error {
	m := d.mirror(s, a)
	if m == "" {
		return nil
	}
	rs, err := s.records(m)
	if err != nil {
		return err
	}
	return s.setRecords(m, append(rs, Record{Timestamp: jsonx.TimeOf(t), plain: true}))
}

// Check returns the verdict of a's budget for service at now. An unknown
// service has used nothing.
func (d *Document) Check(service string, a store.Action, now time.Time) (breaker.Verdict, error) {
	return d.checkN(service, a, 1, now)
}

func (d *Document) checkN(service string, a store.Action, n int, now time.Time) (breaker.Verdict, error) {
	budget := breaker.Budget{Limit: a.Limit, Window: a.Window}
	s := d.Services[service]
	if s == nil {
		return budget.CheckN(nil, now, n), nil
	}
	ts, err := s.times(a, now)
	if err != nil {
		return breaker.Verdict{}, fmt.Errorf("services.%s.%w", service, err)
	}
	return budget.CheckN(ts, now, n), nil
}

// Decide is Check, and notes the decision for the event log: "allowed" or
// "refused", with the budget used and the next allowed time.
func (d *Document) Decide(service string, a store.Action, now time.Time) (breaker.Verdict, error) {
	return d.DecideN(service, a, 1, now)
}

// DecideN is Decide for n actions at once; the event's reason says "n at
// once" when n is more than one.
func (d *Document) DecideN(service string, a store.Action, n int, now time.Time) (breaker.Verdict, error) {
	v, err := d.checkN(service, a, n, now)
	if err == nil {
		d.noteVerdict(service, a, n, now, v)
	}
	return v, err
}

func (d *Document) noteVerdict(service string, a store.Action, n int, now time.Time, v breaker.Verdict) {
	e := store.Event{Time: now, Event: store.EventCooldown, Key: service, Action: a.Name, Outcome: "allowed",
		Used: store.Int(v.Used), Limit: store.Int(v.Limit)}
	if n > 1 {
		e.Reason = fmt.Sprintf("%d at once", n)
	}
	if !v.Allowed {
		e.Outcome = "refused"
		if !v.NextAllowed.IsZero() {
			e.Until = v.NextAllowed.UTC().Format(jsonx.TimeLayout)
		}
	}
	d.Note(e)
}

func (d *Document) noteRecord(service string, a store.Action, now time.Time, success bool, errMsg string) {
	e := store.Event{Time: now, Event: store.EventCooldownRecord, Key: service, Action: a.Name, Outcome: "success"}
	if !success {
		e.Outcome, e.Error = "failure", errMsg
	}
	if v, err := d.Check(service, a, now); err == nil {
		e.Used, e.Limit = store.Int(v.Used), store.Int(v.Limit)
	}
	d.Note(e)
}

// appendRecord adds r to a's array on s, as a plain timestamp if the array
// already holds only plain timestamps.
func (s *Service) appendRecord(a store.Action, r Record) error {
	rs, err := s.records(a.Field)
	if err != nil {
		return err
	}
	if len(rs) > 0 {
		r.plain = true
		for _, old := range rs {
			r.plain = r.plain && old.plain
		}
	}
	return s.setRecords(a.Field, append(rs, r))
}

// Record appends a finished action to service's array for a. actions are
// all configured actions, for registering a new service.
func (d *Document) Record(service string, a store.Action, actions []store.Action, now time.Time, success bool, errMsg string) error {
	s, err := d.service(service, actions)
	if err != nil {
		return err
	}
	r := Record{Timestamp: jsonx.TimeOf(now), Success: success}
	if !success {
		r.Error = errMsg
	}
	if err := s.appendRecord(a, r); err != nil {
		return err
	}
	if err := d.appendMirror(s, a, now); err != nil {
		return err
	}
	d.noteRecord(service, a, now, success, errMsg)
	return nil
}

// Reserve checks a's budget for service and, if it allows one more action,
// records the action as in progress for the guard process pid, so that no
// other caller can take the same room. It returns the verdict before the
// reservation.
func (d *Document) Reserve(service string, a store.Action, actions []store.Action, now time.Time, pid int) (breaker.Verdict, error) {
	v, err := d.Decide(service, a, now)
	if err != nil || !v.Allowed {
		return v, err
	}
	s, err := d.service(service, actions)
	if err != nil {
		return v, err
	}
	if err := s.appendRecord(a, Record{Timestamp: jsonx.TimeOf(now), InProgress: true, PID: pid}); err != nil {
		return v, err
	}
	return v, d.appendMirror(s, a, now)
}

// Finish completes the reservation that pid made for a on service. If the
// reservation is gone (a healthy streak cleared the budgets meanwhile), it
// records the action afresh at now. A reservation kept as a plain
// timestamp has nothing to complete.
func (d *Document) Finish(service string, a store.Action, actions []store.Action, now time.Time, pid int, success bool, errMsg string) error {
	s, err := d.service(service, actions)
	if err != nil {
		return err
	}
	rs, err := s.records(a.Field)
	if err != nil {
		return err
	}
	for i := len(rs) - 1; i >= 0; i-- {
		r := &rs[i]
		if r.InProgress && r.PID == pid {
			r.InProgress, r.PID, r.Success = false, 0, success
			r.Error = ""
			if !success {
				r.Error = errMsg
			}
			if err := s.setRecords(a.Field, rs); err != nil {
				return err
			}
			d.noteRecord(service, a, now, success, errMsg)
			return nil
		}
		if r.plain {
			d.noteRecord(service, a, now, success, errMsg)
			return nil
		}
	}
	return d.Record(service, a, actions, now, success, errMsg)
}

// Release gives back the reservation pid made for a on service, for an
// action that never started (its command was not found): it did not
// happen, so it must not use up the budget.
func (d *Document) Release(service string, a store.Action, pid int, reservedAt time.Time) error {
	s := d.Services[service]
	if s == nil {
		return nil
	}
	rs, err := s.records(a.Field)
	if err != nil {
		return err
	}
	for i := len(rs) - 1; i >= 0; i-- {
		r := &rs[i]
		if (r.InProgress && r.PID == pid) || (r.plain && r.Timestamp.Unix() == reservedAt.Unix()) {
			if err := s.setRecords(a.Field, append(rs[:i:i], rs[i+1:]...)); err != nil {
				return err
			}
			return s.dropPlain(d.mirror(s, a), reservedAt)
		}
	}
	return nil
}

// dropPlain removes the last plain timestamp at t's second from the array
// field, if it is there.
func (s *Service) dropPlain(field string, t time.Time) error {
	if field == "" {
		return nil
	}
	rs, err := s.records(field)
	if err != nil {
		return err
	}
	for i := len(rs) - 1; i >= 0; i-- {
		if rs[i].plain && rs[i].Timestamp.Unix() == t.Unix() {
			return s.setRecords(field, append(rs[:i:i], rs[i+1:]...))
		}
	}
	return nil
}

// Healthy counts a healthy check of service. When the streak reaches
// resetAfter, every action array of the service is emptied and the streak
// starts again; cleared reports that.
func (d *Document) Healthy(service string, resetAfter int, actions []store.Action, now time.Time) (streak int, cleared bool, err error) {
	s, err := d.service(service, actions)
	if err != nil {
		return 0, false, err
	}
	s.ConsecutiveHealthy, cleared = breaker.HealthyCheck(s.ConsecutiveHealthy, resetAfter)
	e := store.Event{Time: now, Event: store.EventCooldownHealth, Key: service, Outcome: "healthy",
		Reason: fmt.Sprintf("%d in a row", s.ConsecutiveHealthy)}
	if cleared {
		for _, a := range actions {
			if err := s.setRecords(a.Field, nil); err != nil {
				return 0, false, err
			}
			for _, name := range aliases(a) { // every array it counts
				if _, ok := s.Extra[name]; ok {
					if err := s.setRecords(name, nil); err != nil {
						return 0, false, err
					}
				}
			}
		}
		e.Outcome, e.Reason = "cleared", fmt.Sprintf("%d healthy checks in a row cleared the budgets", max(resetAfter, 1))
	}
	d.Note(e)
	return s.ConsecutiveHealthy, cleared, nil
}

// Unhealthy ends service's healthy streak.
func (d *Document) Unhealthy(service string, actions []store.Action, now time.Time) error {
	s, err := d.service(service, actions)
	if err != nil {
		return err
	}
	s.ConsecutiveHealthy = 0
	d.Note(store.Event{Time: now, Event: store.EventCooldownHealth, Key: service, Outcome: "unhealthy"})
	return nil
}

// Mark sets last_NAME to now.
func (d *Document) Mark(name string, now time.Time) error {
	raw, err := jsonx.MarshalValue(jsonx.TimeOf(now))
	if err != nil {
		return err
	}
	if d.Extra == nil {
		d.Extra = jsonx.Extra{}
	}
	d.Extra["last_"+name] = raw
	d.Note(store.Event{Time: now, Event: store.EventMark, Key: "last_" + name})
	return nil
}

// Last returns the time in last_NAME, or the zero time if it is unset or
// null.
func (d *Document) Last(name string) (time.Time, error) {
	raw, ok := d.Extra["last_"+name]
	if !ok {
		return time.Time{}, nil
	}
	var t jsonx.Time
	if err := json.Unmarshal(raw, &t); err != nil {
		return time.Time{}, fmt.Errorf("last_%s: %v", name, err)
	}
	return t.Time, nil
}

// tidy prepares the document for a write: it prunes records older than
// retention from every service's action arrays (keeping records still in
// progress, and leaving alone arrays it cannot read), and gives a new file
// the reference's last_run and last_daily_digest members.
func (d *Document) tidy(now time.Time, retention time.Duration, actions []store.Action) error {
	return d.Tidy(now, retention, actions)
}

// Tidy prunes old records before a write; see tidy. Another backend that
// keeps the document whole calls it too.
func (d *Document) Tidy(now time.Time, retention time.Duration, actions []store.Action) error {
	for _, name := range []string{"run", "daily_digest"} {
		if _, ok := d.Extra["last_"+name]; !ok {
			if d.Extra == nil {
				d.Extra = jsonx.Extra{}
			}
			d.Extra["last_"+name] = json.RawMessage("null")
		}
	}
	keep := breaker.Window{Length: retention}
	for _, name := range d.ServiceNames() {
		s := d.Services[name]
		if s == nil {
			delete(d.Services, name)
			continue
		}
		for _, a := range actions {
			for _, field := range append([]string{a.Field}, aliases(a)...) {
				if _, ok := s.Extra[field]; !ok && field != a.Field {
					continue
				}
				rs, err := s.records(field)
				if err != nil {
					continue // not guard's to fix; commands on this service say what is wrong
				}
				kept := rs[:0]
				for _, r := range rs {
					if r.InProgress || r.Unreadable() || keep.In(r.Timestamp.Time, now) {
						kept = append(kept, r)
					}
				}
				if len(kept) != len(rs) {
					if err := s.setRecords(field, kept); err != nil {
						return err
					}
				}
			}
		}
	}
	return nil
}
