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
