package cooldownstate

import (
	"bytes"
	"encoding/json"

	"guard/internal/jsonx"
)

// Salvage makes d what can be read of data, a cooldown state that does not
// parse (cut short by a full disk or an editor, or by a jq ... > tmp && mv
// one-liner racing another writer, or broken in places): every value
// before the cut, or the break, that is whole is kept, so that a torn file
// never gives a spent budget back (TC's variant of faults #7: before, the
// whole file was set aside and every budget started afresh). A record the
// cut fell in is kept as what could be read of it; one without its
// timestamp is a record guard cannot read, which counts as if it had just
// happened. It reports how many services it kept, the one the cut fell in,
// the services it saw and could not keep, and whether the file ends early
// (whatever followed is lost, unseen). statefile moves the whole file
// aside first.
func (d *Document) Salvage(data []byte) (kept int, partial, lost []string, cut bool) {
	*d = Document{}
	out, at, ok := jsonx.Complete(data)
	if !ok {
		return 0, nil, nil, true
	}
	cut = !bytes.HasPrefix(data, out)
	var top map[string]json.RawMessage
	if json.Unmarshal(out, &top) != nil {
		return 0, nil, nil, cut
	}
	services := map[string]json.RawMessage{}
	if raw, ok := top["services"]; ok && json.Unmarshal(raw, &services) != nil {
		services = nil
	}
	delete(top, "services")
	rest, err := json.Marshal(top)
	if err != nil || d.UnmarshalJSON(rest) != nil {
		*d = Document{}
	}
	d.Services = map[string]*Service{}
	for name, raw := range services {
		var s Service
		if s.UnmarshalJSON(raw) != nil {
			lost = append(lost, name)
			continue
		}
		d.Services[name] = &s
		kept++
	}
	if len(at) >= 2 && at[0] == "services" {
		if _, ok := d.Services[at[1]]; ok {
			partial = []string{at[1]}
		}
	}
	return kept, partial, lost, cut
}
