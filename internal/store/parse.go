package store

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"guard/internal/jsonx"
)

// ParseEvent decodes one line of an event log, exactly as
// json.Unmarshal into an Event does, several times faster: a dashboard of
// 100,000 events reads them all. Lines guard wrote (each member once, with
// the type it has) are decoded by hand; anything else (a member twice, a
// name that differs from a field's only in case, a null, a value of
// another type, a line that does not parse) goes through encoding/json,
// so that the result, and the error, are its own. FuzzParseEvent holds
// the two to each other.
func ParseEvent(line []byte) (Event, error) {
	if e, ok := parseFlat(line); ok {
		return e, nil
	}
	if e, ok := parseEvent(line); ok {
		return e, nil
	}
	var e Event
	err := json.Unmarshal(line, &e)
	return e, err
}

// eventFields are the members an Event has, as written.
var eventFields = []string{"time", "ts_ms", "event", "key", "action", "outcome", "exit", "duration_ms", "error", "probe",
	"from", "to", "reason", "verdict", "state", "until", "used", "limit", "pid", "file", "host", "user"}

// parseEvent decodes line by hand; false if it cannot be sure to decode
// it as encoding/json would.
func parseEvent(line []byte) (Event, bool) {
	members, _, err := jsonx.Members(line, "")
	if err != nil {
		return Event{}, false
	}
	var e Event
	var stamp string
	var ms int64
	var seen uint32
	for _, m := range members {
		i := fieldIndex(m.Key)
		if i < 0 {
			for _, f := range eventFields {
				if strings.EqualFold(f, m.Key) {
					return Event{}, false // encoding/json matches it without case
				}
			}
			continue
		}
		if seen&(1<<i) != 0 || string(m.Value) == "null" {
			return Event{}, false
		}
		seen |= 1 << i
		var err error
		switch eventFields[i] {
		case "time":
			stamp, err = jsonx.ParseString(m.Value)
		case "ts_ms":
			ms, err = jsonx.ParseInt(m.Value)
		case "event":
			e.Event, err = jsonx.ParseString(m.Value)
		case "key":
			e.Key, err = jsonx.ParseString(m.Value)
		case "action":
			e.Action, err = jsonx.ParseString(m.Value)
		case "outcome":
			e.Outcome, err = jsonx.ParseString(m.Value)
		case "error":
			e.Error, err = jsonx.ParseString(m.Value)
		case "from":
			e.From, err = jsonx.ParseString(m.Value)
		case "to":
			e.To, err = jsonx.ParseString(m.Value)
		case "reason":
			e.Reason, err = jsonx.ParseString(m.Value)
		case "verdict":
			e.Verdict, err = jsonx.ParseString(m.Value)
		case "state":
			e.State, err = jsonx.ParseString(m.Value)
		case "until":
			e.Until, err = jsonx.ParseString(m.Value)
		case "file":
			e.File, err = jsonx.ParseString(m.Value)
		case "host":
			e.Host, err = jsonx.ParseString(m.Value)
		case "user":
			e.User, err = jsonx.ParseString(m.Value)
		case "probe":
			e.Probe, err = jsonx.ParseBool(m.Value)
		case "duration_ms":
			var n int64
			n, err = jsonx.ParseInt(m.Value)
			e.DurationMS = &n
		case "exit", "used", "limit", "pid":
			var n int64
			n, err = jsonx.ParseInt(m.Value)
			v := int(n)
			switch eventFields[i] {
			case "exit":
				e.Exit = &v
			case "used":
				e.Used = &v
			case "limit":
				e.Limit = &v
			default:
				e.PID = v
			}
		}
		if err != nil {
			return Event{}, false
		}
	}
	switch {
	case ms != 0:
		e.Time = time.UnixMilli(ms).UTC()
	case stamp != "":
		t, err := time.Parse(time.RFC3339Nano, stamp)
		if err != nil {
			return Event{}, false
		}
		e.Time = t
	default:
		return Event{}, false
	}
	if e.Event == "" {
		return Event{}, false
	}
	return e, true
}

func fieldIndex(name string) int {
	for i, f := range eventFields {
		if f == name {
			return i
		}
	}
	return -1
}

// parseFlat decodes a line as guard writes it: one flat object, no white
// space, each member a known field once, with a string, a whole number or
// true or false of the field's type. It allocates only the strings it
// keeps. Anything else is left to parseEvent (false).
func parseFlat(line []byte) (Event, bool) {
	var e Event
	var stamp string
	var ms int64
	var seen uint32
	i := 0
	if len(line) < 2 || line[0] != '{' || line[len(line)-1] != '}' {
		return e, false
	}
	i = 1
	if line[i] == '}' {
		return e, false
	}
	for {
		// The name: plain lower-case letters and _.
		if line[i] != '"' {
			return e, false
		}
		j := i + 1
		for j < len(line) && (line[j] >= 'a' && line[j] <= 'z' || line[j] == '_') {
			j++
		}
		if j+1 >= len(line) || line[j] != '"' || line[j+1] != ':' {
			return e, false
		}
		f := fieldIndex(string(line[i+1 : j]))
		if f < 0 || seen&(1<<f) != 0 {
			return e, false
		}
		seen |= 1 << f
		i = j + 2
		// The value.
		var str string
		var num int64
		var isStr, isNum, isBool, b bool
		switch c := line[i]; {
		case c == '"':
			end, plain := flatString(line, i)
			if end < 0 {
				return e, false
			}
			if plain {
				str = string(line[i+1 : end-1])
			} else {
				var err error
				if str, err = jsonx.ParseString(line[i:end]); err != nil {
					return e, false
				}
			}
			i, isStr = end, true
		case c == '-' || c >= '0' && c <= '9':
			end := i
			if line[end] == '-' {
				end++
			}
			start := end
			for end < len(line) && line[end] >= '0' && line[end] <= '9' {
				end++
			}
			if end == start || line[start] == '0' && end-start > 1 {
				return e, false
			}
			n, err := strconv.ParseInt(string(line[i:end]), 10, 64)
			if err != nil {
				return e, false
			}
			i, num, isNum = end, n, true
		case bytes.HasPrefix(line[i:], []byte("true")):
			i, b, isBool = i+4, true, true
		case bytes.HasPrefix(line[i:], []byte("false")):
			i, isBool = i+5, true
		default:
			return e, false
		}
		switch name := eventFields[f]; name {
		case "probe":
			if !isBool {
				return e, false
			}
			e.Probe = b
		case "ts_ms", "duration_ms", "exit", "used", "limit", "pid":
			if !isNum {
				return e, false
			}
			switch name {
			case "ts_ms":
				ms = num
			case "duration_ms":
				e.DurationMS = &num
			case "pid":
				e.PID = int(num)
			default:
				v := int(num)
				switch name {
				case "exit":
					e.Exit = &v
				case "used":
					e.Used = &v
				default:
					e.Limit = &v
				}
			}
		default:
			if !isStr {
				return e, false
			}
			*stringField(&e, &stamp, name) = str
		}
		if i >= len(line) {
			return e, false
		}
		switch line[i] {
		case ',':
			i++
			continue
		case '}':
			if i != len(line)-1 {
				return e, false
			}
		default:
			return e, false
		}
		break
	}
	switch {
	case ms != 0:
		e.Time = time.UnixMilli(ms).UTC()
	case stamp != "":
		t, err := time.Parse(time.RFC3339Nano, stamp)
		if err != nil {
			return Event{}, false
		}
		e.Time = t
	default:
		return Event{}, false
	}
	return e, e.Event != ""
}

// flatString scans the JSON string at line[i] and returns the index just
// past it, and whether it needs no decoding (no escape, valid UTF-8); -1
// if it is not a string JSON allows (a raw control character, no end).
func flatString(line []byte, i int) (int, bool) {
	plain := true
	for j := i + 1; j < len(line); j++ {
		switch c := line[j]; {
		case c == '"':
			return j + 1, plain && utf8.Valid(line[i+1:j])
		case c == '\\':
			plain = false
			j++
		case c < 0x20:
			return -1, false
		}
	}
	return -1, false
}

// stringField is the string field of e (or the stamp) called name.
func stringField(e *Event, stamp *string, name string) *string {
	switch name {
	case "time":
		return stamp
	case "event":
		return &e.Event
	case "key":
		return &e.Key
	case "action":
		return &e.Action
	case "outcome":
		return &e.Outcome
	case "error":
		return &e.Error
	case "from":
		return &e.From
	case "to":
		return &e.To
	case "reason":
		return &e.Reason
	case "verdict":
		return &e.Verdict
	case "state":
		return &e.State
	case "until":
		return &e.Until
	case "file":
		return &e.File
	case "user":
		return &e.User
	}
	return &e.Host
}
