// Package cooldownstate is the service cooldown file, cooldown.json, in the
// ops agent's format exactly:
//
//	{
//	  "services": {
//	    "nginx": {
//	      "restarts": [{"timestamp": "2025-06-15T08:15:00Z", "success": true},
//	                   {"timestamp": "2025-06-15T10:30:00Z", "success": false, "error": "..."}],
//	      "redeployments": [],
//	      "consecutive_healthy": 0
//	    }
//	  },
//	  "last_run": "2025-06-15T11:00:00Z",
//	  "last_daily_digest": null
//	}
//
// The action arrays are named by the configuration (restarts,
// redeployments, ...). Records are written with RFC 3339 UTC timestamps at
// second precision, which jq's fromdateiso8601 reads. A record of a run that
// guard is still supervising carries "in_progress": true and the pid of the
// guard process; it counts against the budget like any other.
//
// guard also reads the variants some deployments write: an action array of
// plain timestamp strings, which it keeps plain when it appends to it, and
// a separate array of plain timestamps named "<singular field>_timestamps"
// (restart_timestamps, redeployment_timestamps: what Claude Ops' hooks
// read) or "<action>_timestamps". Where the file keeps such arrays (or the
// action names one in its timestamps setting), guard writes every record
// there too, as "2025-06-15T08:15:00Z", so that those hooks see guard's
// records; the same action held in both (the same second) counts once.
// Members guard does not know are kept at every level.
package cooldownstate

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"

	"guard/internal/jsonx"
	"guard/internal/store"
)

// A Document is the whole of cooldown.json. Its zero value is an empty
// state.
type Document struct {
	Services map[string]*Service `json:"services"`
	// Extra holds last_run, last_daily_digest and any other last_NAME
	// stamp, with whatever else the file holds.
	Extra jsonx.Extra `json:"-"`

	pending []store.Event // to log with the update; see Tx's Log
}

// A Service is one service's entry. Its action arrays live in Extra under
// the names the configuration gives them, and are decoded when used.
type Service struct {
	ConsecutiveHealthy int         `json:"consecutive_healthy"`
	Extra              jsonx.Extra `json:"-"`
}

// A Record is one action taken on a service.
type Record struct {
	Timestamp  jsonx.Time  `json:"timestamp"`
	Success    bool        `json:"success"`
	Error      string      `json:"error,omitempty"`
	InProgress bool        `json:"in_progress,omitempty"` // guard is running it now
	PID        int         `json:"pid,omitempty"`         // the guard process running it
	Extra      jsonx.Extra `json:"-"`

	plain bool            // stored as a bare timestamp string
	raw   json.RawMessage // a record guard cannot read, kept as it was
}

// Unreadable reports whether r is a record guard could not read. It is kept
// as it was and counts against its budget as if it had just happened, so
// it never frees a slot: a record nobody can read must not switch a budget
// off.
func (r *Record) Unreadable() bool { return r.raw != nil }

func (d *Document) UnmarshalJSON(b []byte) error {
	type plain Document
	return jsonx.UnmarshalObject(b, (*plain)(d), &d.Extra)
}

func (d Document) MarshalJSON() ([]byte, error) {
	type plain Document
	if d.Services == nil {
		d.Services = map[string]*Service{}
	}
	return jsonx.MarshalObject(plain(d), d.Extra)
}

func (s *Service) UnmarshalJSON(b []byte) error {
	type plain Service
	return jsonx.UnmarshalObject(b, (*plain)(s), &s.Extra)
}

func (s Service) MarshalJSON() ([]byte, error) {
	type plain Service
	return jsonx.MarshalObject(plain(s), s.Extra)
}

func (r *Record) UnmarshalJSON(b []byte) error {
	if b = bytes.TrimSpace(b); len(b) > 0 && b[0] == '"' {
		r.plain = true
		return r.Timestamp.UnmarshalJSON(b)
	}
	type plain Record
	return jsonx.UnmarshalObject(b, (*plain)(r), &r.Extra)
}

func (r Record) MarshalJSON() ([]byte, error) {
	if r.raw != nil {
		return r.raw, nil
	}
	if r.plain {
		return r.Timestamp.MarshalJSON()
	}
	type plain Record
	return jsonx.MarshalObject(plain(r), r.Extra)
}

// aliases are the plain-timestamp arrays some deployments keep for a.
func aliases(a store.Action) []string {
	names := []string{a.Name + "_timestamps"}
	if s := timestampsName(a); s != names[0] {
		names = append(names, s)
	}
	if a.Timestamps != "" && a.Timestamps != a.Field && !slices.Contains(names, a.Timestamps) {
		names = append(names, a.Timestamps)
	}
	return names
}

// timestampsName is the plain-timestamp array Claude Ops keeps for a:
// restart_timestamps for restarts.
func timestampsName(a store.Action) string { return strings.TrimSuffix(a.Field, "s") + "_timestamps" }

// keepsTimestamps reports whether any service in d keeps a plain-timestamp
// array.
func (d *Document) keepsTimestamps() bool {
	for _, s := range d.Services {
		if s == nil {
			continue
		}
		for k := range s.Extra {
			if strings.HasSuffix(k, "_timestamps") {
				return true
			}
		}
	}
	return false
}

// mirror returns the plain-timestamp array guard writes a's records on s
// to as well, "" for none: the one the action's configuration names, else
// one s already keeps, else, if the file keeps such arrays elsewhere,
// Claude Ops' name for it.
func (d *Document) mirror(s *Service, a store.Action) string {
	if a.Timestamps != "" && a.Timestamps != a.Field {
		return a.Timestamps
	}
	for _, name := range aliases(a) {
		if _, ok := s.Extra[name]; ok {
			return name
		}
	}
	if d.keepsTimestamps() {
		return timestampsName(a)
	}
	return ""
}

// records decodes the array field of s. A missing or null field is empty.
func (s *Service) records(field string) ([]Record, error) {
	raw, ok := s.Extra[field]
	if !ok || string(bytes.TrimSpace(raw)) == "null" {
		return nil, nil
	}
	items, err := jsonx.Elements(raw)
	if err != nil {
		return nil, fmt.Errorf("%s is not an array of records: %v", field, err)
	}
	rs := make([]Record, len(items))
	for i, it := range items {
		if err := json.Unmarshal(it, &rs[i]); err != nil || rs[i].Timestamp.IsZero() {
			rs[i] = Record{raw: bytes.Clone(it)}
		}
	}
	return rs, nil
}

// setRecords stores rs as the array field of s.
func (s *Service) setRecords(field string, rs []Record) error {
	if rs == nil {
		rs = []Record{}
	}
	raw, err := jsonx.MarshalValue(rs)
	if err != nil {
		return err
	}
	if s.Extra == nil {
		s.Extra = jsonx.Extra{}
	}
	s.Extra[field] = raw
	return nil
}

// ServiceNames returns the services in d, sorted.
func (d *Document) ServiceNames() []string {
	names := make([]string, 0, len(d.Services))
	for n := range d.Services {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
