// Reading and writing a service's records of an action, in whichever of
// the file's forms they are kept: an array of records (or of bare
// timestamps) under the action's field, and the bare copies of their
// times other tools keep (see the package doc). The rules that use them
// are package cooldown's.

package cooldownstate

import (
	"encoding/json"
	"fmt"
	"time"

	"guard/internal/jsonx"
	"guard/internal/store"
)

// service returns the entry of name, registering it: a new entry gets the
// plain-timestamp arrays the others keep, and every entry an empty array
// for each configured action it lacks.
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

// fields are the arrays a's records are kept in: its own, then the bare
// copies (see aliases).
func fields(a store.Action) []string { return append([]string{a.Field}, aliases(a)...) }

// A record's Ref is the array it is in (its index in fields) and its place
// there, plus one.
func ref(array, i int) int64       { return int64(array)<<32 | int64(i+1) }
func unref(r int64) (array, i int) { return int(r >> 32), int(r&(1<<32-1)) - 1 }
func refErr(service string) error {
	return fmt.Errorf("services.%s: a record from an earlier read", service)
}
func (r *Record) readable() bool { return !r.Unreadable() }

// arrays decodes every array a's records are kept in on s.
func (s *Service) arrays(service string, a store.Action) ([][]Record, error) {
	names := fields(a)
	out := make([][]Record, len(names))
	for i, field := range names {
		rs, err := s.records(field)
		if err != nil {
			return nil, fmt.Errorf("services.%s.%w", service, err)
		}
		out[i] = rs
	}
	return out, nil
}

// twins returns, for each array after the first, which of its records
// are the bare copy of a record of the first (the same second: Claude Ops'
// jq drops the fraction), which count once.
func twins(arrays [][]Record) [][]bool {
	out := make([][]bool, len(arrays))
	inArray := map[int64]int{}
	for _, r := range arrays[0] {
		if r.readable() {
			inArray[r.Timestamp.Unix()]++
		}
	}
	for i := 1; i < len(arrays); i++ {
		out[i] = make([]bool, len(arrays[i]))
		for j, r := range arrays[i] {
			if r.readable() && inArray[r.Timestamp.Unix()] > 0 {
				inArray[r.Timestamp.Unix()]--
				out[i][j] = true
			}
		}
	}
	return out
}

// Records returns service's records of a (store.BudgetView): its own
// array's, then those of the bare copies that are no twin of one of them.
func (d *Document) Records(service string, a store.Action) ([]store.Record, error) {
	s := d.Services[service]
	if s == nil {
		return nil, nil
	}
	arrays, err := s.arrays(service, a)
	if err != nil {
		return nil, err
	}
	twin := twins(arrays)
	var out []store.Record
	for i, rs := range arrays {
		for j, r := range rs {
			if i > 0 && twin[i][j] {
				continue
			}
			out = append(out, r.view(i > 0, ref(i, j)))
		}
	}
	return out, nil
}

// view is r as the rules see it.
func (r *Record) view(foreign bool, ref int64) store.Record {
	if r.Unreadable() {
		return store.Record{Unreadable: true, Foreign: foreign, Ref: ref}
	}
	return store.Record{Time: r.Timestamp.Time, Success: r.Success, Error: r.Error, InProgress: r.InProgress, PID: r.PID,
		Bare: r.plain, Foreign: foreign, Ref: ref}
}

// PutRecords stores rs as service's records of a (store.BudgetTx): each
// record of the arrays that rs leaves out is removed, with its bare twin;
// a record rs changes is changed where it is kept (a bare or unreadable
// one cannot be); a new one is appended to the action's array (bare if
// the array holds nothing but bare timestamps) and to the bare copy guard
// writes (see mirror). An array is rewritten only if it changed. A put
// that leaves out every record empties every array, whatever it held.
func (d *Document) PutRecords(service string, a store.Action, actions []store.Action, rs []store.Record) error {
	s := d.Services[service]
	if len(rs) == 0 {
		return d.clear(s, a)
	}
	var arrays [][]Record
	if s != nil {
		var err error
		if arrays, err = s.arrays(service, a); err != nil {
			return err
		}
	} else {
		arrays = make([][]Record, len(fields(a)))
	}
	kept := make([][]bool, len(arrays))
	for i := range arrays {
		kept[i] = make([]bool, len(arrays[i]))
	}
	var own []Record
	var added []time.Time
	ownChanged, register := false, false
	for _, r := range rs {
		if r.Ref == 0 {
			nr := Record{Timestamp: jsonx.TimeOf(r.Time), Success: r.Success, InProgress: r.InProgress, PID: r.PID}
			if !r.Success {
				nr.Error = r.Error
			}
			nr.plain = len(own) > 0
			for _, o := range own {
				nr.plain = nr.plain && o.plain
			}
			own = append(own, nr)
			added = append(added, r.Time)
			ownChanged, register = true, true
			continue
		}
		i, j := unref(r.Ref)
		if i < 0 || i >= len(arrays) || j < 0 || j >= len(arrays[i]) || kept[i][j] {
			return refErr(service)
		}
		kept[i][j] = true
		if i > 0 {
			continue
		}
		o := arrays[0][j]
		if o.readable() && !o.plain && o.changeTo(r) {
			ownChanged, register = true, true
		}
		own = append(own, o)
	}
	if register {
		var err error
		if s, err = d.service(service, actions); err != nil {
			return err
		}
	}
	// A record removed from the action's array takes its bare twin with
	// it: the last twins at its second go.
	gone := map[int64]int{}
	for j, o := range arrays[0] {
		if !kept[0][j] {
			ownChanged = true
			if o.readable() {
				gone[o.Timestamp.Unix()]++
			}
		}
	}
	if ownChanged {
		if err := s.setRecords(a.Field, own); err != nil {
			return err
		}
	}
	twin := twins(arrays)
	names := fields(a)
	for i := len(arrays) - 1; i > 0; i-- {
		var left []Record
		changed := false
		for j := len(arrays[i]) - 1; j >= 0; j-- {
			r := arrays[i][j]
			u := r.Timestamp.Unix()
			switch {
			case twin[i][j] && gone[u] > 0:
				gone[u]--
				changed = true
			case !twin[i][j] && !kept[i][j]:
				changed = true
			default:
				left = append(left, r)
			}
		}
		if changed {
			for l, r := 0, len(left)-1; l < r; l, r = l+1, r-1 {
				left[l], left[r] = left[r], left[l]
			}
			if err := s.setRecords(names[i], left); err != nil {
				return err
			}
		}
	}
	for _, t := range added {
		if err := d.appendMirror(s, a, t); err != nil {
			return err
		}
	}
	return nil
}

// changeTo makes r what the rules made of it, and reports whether that
// changed it.
func (r *Record) changeTo(to store.Record) bool {
	errMsg := to.Error
	if to.Success {
		errMsg = ""
	}
	if r.Timestamp.Equal(to.Time) && r.Success == to.Success && r.Error == errMsg && r.InProgress == to.InProgress && r.PID == to.PID {
		return false
	}
	r.Timestamp, r.Success, r.Error, r.InProgress, r.PID = jsonx.TimeOf(to.Time), to.Success, errMsg, to.InProgress, to.PID
	return true
}

// clear empties every array a's records are kept in on s (if s has an
// entry): its own and each bare copy, where s has them.
func (d *Document) clear(s *Service, a store.Action) error {
	if s == nil {
		return nil
	}
	for _, field := range fields(a) {
		if _, ok := s.Extra[field]; ok {
			if err := s.setRecords(field, nil); err != nil {
				return err
			}
		}
	}
	return nil
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

// Streak returns service's healthy checks in a row (store.BudgetView).
func (d *Document) Streak(service string) int {
	if s := d.Services[service]; s != nil {
		return s.ConsecutiveHealthy
	}
	return 0
}

// PutStreak sets service's healthy checks in a row (store.BudgetTx),
// registering the service.
func (d *Document) PutStreak(service string, n int, actions []store.Action) error {
	s, err := d.service(service, actions)
	if err != nil {
		return err
	}
	s.ConsecutiveHealthy = n
	return nil
}

// PutStamp sets last_NAME to t (store.BudgetTx).
func (d *Document) PutStamp(name string, t time.Time) error {
	raw, err := jsonx.MarshalValue(jsonx.TimeOf(t))
	if err != nil {
		return err
	}
	if d.Extra == nil {
		d.Extra = jsonx.Extra{}
	}
	d.Extra["last_"+name] = raw
	return nil
}

// Last returns the time in last_NAME, or the zero time if it is unset or
// null (store.BudgetView).
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

// StandardStamps are the stamps the reference's file always has, null
// until set: Complete gives a file that lacks them the members.
var StandardStamps = []string{"last_run", "last_daily_digest"}

// Complete readies the document for a write: it gives a file the
// reference's last_run and last_daily_digest members if it lacks them, and
// drops service entries that are null.
func (d *Document) Complete() {
	for _, name := range StandardStamps {
		if _, ok := d.Extra[name]; !ok {
			if d.Extra == nil {
				d.Extra = jsonx.Extra{}
			}
			d.Extra[name] = json.RawMessage("null")
		}
	}
	for name, s := range d.Services {
		if s == nil {
			delete(d.Services, name)
		}
	}
}
