package jsonx

import (
	"testing"
	"time"
)

// FuzzParseUTC holds parseUTC, the shortcut for guard's and Python's own
// forms, to time.Parse: wherever it takes a stamp, it reads the instant
// time.Parse reads, in UTC.
func FuzzParseUTC(f *testing.F) {
	for _, s := range []string{
		"2026-11-24T03:00:00Z", "2026-11-24T03:00:00+00:00", "2026-11-24T03:00:00.123456+00:00",
		"2026-11-24T03:00:00.123456789Z", "2026-02-30T03:00:00Z", "2026-11-24T24:00:00Z",
		"2026-11-24T03:00:00.Z", "2026-11-24T03:00:00.1234567890Z", "2026-11-24 03:00:00Z",
		"0000-01-01T00:00:00Z", "2024-02-29T23:59:59+00:00", "2026-11-24T03:00:60Z", "+026-11-24T03:00:00Z",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, ok := parseUTC(s)
		if !ok {
			return
		}
		want, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			t.Fatalf("parseUTC(%q) = %v; time.Parse refuses it: %v", s, got, err)
		}
		if !got.Equal(want) || got.Location() != time.UTC {
			t.Fatalf("parseUTC(%q) = %v; time.Parse reads %v", s, got, want)
		}
	})
}

func TestParseUTCTakesGuardsAndPythonsForms(t *testing.T) {
	for _, s := range []string{"2026-11-24T03:00:00Z", "2026-11-24T03:00:00+00:00", "2026-11-24T03:00:00.123456+00:00", "2024-02-29T23:59:59.5Z"} {
		if _, ok := parseUTC(s); !ok {
			t.Errorf("parseUTC(%q) leaves it to time.Parse", s)
		}
	}
	for _, s := range []string{"2026-02-30T03:00:00Z", "2026-11-24T03:00:00+01:00", "2026-11-24T03:00:00", "2026-11-24T03:00:60Z"} {
		if _, ok := parseUTC(s); ok {
			t.Errorf("parseUTC(%q) takes it", s)
		}
	}
}
