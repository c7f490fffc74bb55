package config

import (
	"testing"

	"gopkg.in/yaml.v3"
)

// FuzzShortTagMatchesYAML: a plain scalar's tag, resolved without yaml.v3,
// is the one yaml.v3 resolves it to. notWhole and checkKeys go by it.
func FuzzShortTagMatchesYAML(f *testing.F) {
	for _, s := range []string{"", "~", "null", "true", "1", "-1", "+1", "1.5", "2.0", "1e3", ".5", "-.inf", ".nan", "0x1f",
		"0o17", "-0o17", "0b101", "-0b101", "1_000", "010", "18446744073709551615", "1.", "1e", "abc", "<<", "2001-12-14", "+", "-", "."} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want := (&yaml.Node{Kind: yaml.ScalarNode, Value: s}).ShortTag()
		got := (&Node{Kind: ScalarNode, Value: s}).ShortTag()
		if got != want {
			t.Errorf("ShortTag of %q = %s; yaml.v3 %s", s, got, want)
		}
	})
}
