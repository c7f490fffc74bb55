package jsonx

import (
	"encoding/json"
	"fmt"
	"time"
)

// A Time is a timestamp as guard's state files spell it. It is written as
// RFC 3339 in UTC at second precision with a "Z" (which jq's
// fromdateiso8601 reads), and a zero Time is written as null. Reading
// accepts any RFC 3339 form, including the microseconds and "+00:00" that
// Python's isoformat() writes, a timestamp without a zone (taken as UTC),
// and null.
type Time struct {
	time.Time
}

// TimeOf returns t as a Time.
func TimeOf(t time.Time) Time { return Time{t} }

// TimeLayout is how a Time is written.
const TimeLayout = "2006-01-02T15:04:05Z"

// OffsetTimeLayout is how AppendOffsetTime writes a time (always UTC: the
// offset is literal text, not a layout element).
const OffsetTimeLayout = "2006-01-02T15:04:05+00:00"

// OffsetTimeMilliLayout is OffsetTimeLayout to the millisecond, always
// with three digits (see AppendOffsetTimeMilli).
const OffsetTimeMilliLayout = "2006-01-02T15:04:05.000+00:00"

// MarshalJSON implements json.Marshaler.
func (t Time) MarshalJSON() ([]byte, error) {
	if t.IsZero() {
		return []byte("null"), nil
	}
	b := make([]byte, 0, len(TimeLayout)+2)
	b = append(b, '"')
	b = t.UTC().Truncate(time.Second).AppendFormat(b, TimeLayout)
	return append(b, '"'), nil
}

// UnmarshalJSON implements json.Unmarshaler.
func (t *Time) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		t.Time = time.Time{}
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("timestamp: %w", err)
	}
	parsed, err := ParseTime(s)
	if err != nil {
		return err
	}
	t.Time = parsed
	return nil
}

// ParseTime parses a timestamp in any of the forms a Time reads.
func ParseTime(s string) (time.Time, error) {
	if t, ok := parseUTC(s); ok {
		return t, nil
	}
	return parseTime(s)
}

// parseTime is ParseTime without parseUTC's shortcut.
func parseTime(s string) (time.Time, error) {
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t, nil
	}
	for _, layout := range []string{"2006-01-02T15:04:05.999999999", "2006-01-02 15:04:05.999999999Z07:00", "2006-01-02 15:04:05.999999999"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("timestamp %q is not RFC 3339", s)
}

// parseUTC parses the two forms guard and the Python guardrails write,
// "2006-01-02T15:04:05[.999999999]Z" and the same with "+00:00", as
// time.Parse does (FuzzParseUTC holds it to that), but without time.Parse's
// look at the local zone for an offset, which makes the first read of a
// "+00:00" stamp load /etc/localtime: some tens of microseconds of every
// guard run that reads a state the Python tool wrote. It reports false for
// anything else, which time.Parse then reads.
func parseUTC(s string) (time.Time, bool) {
	var rest string
	switch {
	case len(s) >= 20 && s[len(s)-1] == 'Z':
		rest = s[:len(s)-1]
	case len(s) >= 25 && s[len(s)-6:] == "+00:00":
		rest = s[:len(s)-6]
	default:
		return time.Time{}, false
	}
	if len(rest) < 19 || rest[4] != '-' || rest[7] != '-' || rest[10] != 'T' || rest[13] != ':' || rest[16] != ':' {
		return time.Time{}, false
	}
	num := func(i, n int) (int, bool) {
		v := 0
		for _, c := range []byte(rest[i : i+n]) {
			if c < '0' || c > '9' {
				return 0, false
			}
			v = v*10 + int(c-'0')
		}
		return v, true
	}
	year, ok1 := num(0, 4)
	month, ok2 := num(5, 2)
	day, ok3 := num(8, 2)
	hour, ok4 := num(11, 2)
	minute, ok5 := num(14, 2)
	sec, ok6 := num(17, 2)
	if !(ok1 && ok2 && ok3 && ok4 && ok5 && ok6) || month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || sec > 59 {
		return time.Time{}, false
	}
	nsec := 0
	if frac := rest[19:]; frac != "" {
		if frac[0] != '.' || len(frac) < 2 || len(frac) > 10 {
			return time.Time{}, false
		}
		v, ok := num(20, len(frac)-1)
		if !ok {
			return time.Time{}, false
		}
		for range 10 - len(frac) {
			v *= 10
		}
		nsec = v
	}
	t := time.Date(year, time.Month(month), day, hour, minute, sec, nsec, time.UTC)
	if t.Day() != day { // February 30th: time.Parse refuses it
		return time.Time{}, false
	}
	return t, true
}
