package config

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"guard/breaker"
)

// A Duration is a Go duration in YAML ("90s", "5m", "4h"). A bare number
// other than 0 is refused, because "300" could mean seconds or nanoseconds;
// cooldown_seconds is the one setting spelled in plain seconds.
type Duration time.Duration

// UnmarshalYAML implements yaml.v3's older Unmarshaler interface (see
// unmarshalWith).
func (d *Duration) UnmarshalYAML(unmarshal func(any) error) error { return unmarshalWith(d, unmarshal) }

func (d *Duration) decodeNode(n *Node) error {
	v, err := ParseDuration(n.Value)
	if err != nil {
		return &lineError{line: n.Line, msg: err.Error()}
	}
	*d = Duration(v)
	return nil
}

// ParseDuration parses a non-negative Go duration. "0" is accepted.
func ParseDuration(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if s == "0" {
		return 0, nil
	}
	if _, err := strconv.ParseFloat(s, 64); err == nil {
		return 0, fmt.Errorf("duration %q has no unit; write e.g. %ss", s, s)
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("%q is not a duration such as 90s, 5m or 4h", s)
	}
	if d < 0 {
		return 0, fmt.Errorf("duration %q is negative", s)
	}
	return d, nil
}

// FormatDuration writes d the short way people write it: "5m", "1h30m",
// "720h", "0s".
func FormatDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// A Size is a number of bytes in YAML: 1048576, "512KiB", "10MiB", "1GiB"
// (or KB, MB, GB, also taken as powers of 1024).
type Size int64

// UnmarshalYAML implements yaml.v3's older Unmarshaler interface (see
// unmarshalWith).
func (z *Size) UnmarshalYAML(unmarshal func(any) error) error { return unmarshalWith(z, unmarshal) }

func (z *Size) decodeNode(n *Node) error {
	v, err := ParseSize(n.Value)
	if err != nil {
		return &lineError{line: n.Line, msg: err.Error()}
	}
	*z = Size(v)
	return nil
}

var sizeUnits = []struct {
	suffix string
	mult   int64
}{
	{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30},
	{"KB", 1 << 10}, {"MB", 1 << 20}, {"GB", 1 << 30},
	{"K", 1 << 10}, {"M", 1 << 20}, {"G", 1 << 30},
	{"B", 1},
}

// ParseSize parses a size such as "10MiB" into bytes.
func ParseSize(s string) (int64, error) {
	s = strings.TrimSpace(s)
	num, mult := s, int64(1)
	for _, u := range sizeUnits {
		if strings.HasSuffix(s, u.suffix) {
			num, mult = strings.TrimSpace(strings.TrimSuffix(s, u.suffix)), u.mult
			break
		}
	}
	v, err := strconv.ParseInt(num, 10, 64)
	if err != nil || v < 0 {
		return 0, fmt.Errorf("%q is not a size such as 512KiB or 10MiB", s)
	}
	return v * mult, nil
}

// FormatSize writes n bytes with the largest unit that divides it.
func FormatSize(n int64) string {
	for _, u := range []struct {
		suffix string
		mult   int64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if n >= u.mult && n%u.mult == 0 {
			return strconv.FormatInt(n/u.mult, 10) + u.suffix
		}
	}
	return strconv.FormatInt(n, 10)
}

// A Percent is a share in YAML: "50%", or a fraction such as 0.5; "0%"
// (or 0) is off.
type Percent float64

// UnmarshalYAML implements yaml.v3's older Unmarshaler interface (see
// unmarshalWith).
func (p *Percent) UnmarshalYAML(unmarshal func(any) error) error { return unmarshalWith(p, unmarshal) }

func (p *Percent) decodeNode(n *Node) error {
	v, err := ParsePercent(n.Value)
	if err != nil {
		return &lineError{line: n.Line, msg: err.Error()}
	}
	*p = Percent(v)
	return nil
}

// MarshalYAML implements yaml.Marshaler.
func (p Percent) MarshalYAML() (any, error) { return FormatPercent(float64(p)), nil }

// ParsePercent parses "50%" or a fraction in [0, 1] as a share.
func ParsePercent(s string) (float64, error) {
	s = strings.TrimSpace(s)
	if num, ok := strings.CutSuffix(s, "%"); ok {
		v, err := strconv.ParseFloat(strings.TrimSpace(num), 64)
		if err != nil || v < 0 || v > 100 {
			return 0, fmt.Errorf("%q is not a percentage from 0%% to 100%%", s)
		}
		return v / 100, nil
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || v < 0 || v > 1 {
		return 0, fmt.Errorf("%q is not a share such as 50%% (or 0.5)", s)
	}
	return v, nil
}

// FormatPercent writes a share as a percentage: 0.5 as "50%" (see
// breaker.FormatPercent).
func FormatPercent(v float64) string { return breaker.FormatPercent(v) }
