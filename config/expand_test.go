package config

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// expandVars gives each form it takes the shell's meaning (n5b): the same
// string as sh(1) expanding it inside double quotes, with the same
// variables set, set to "" or unset; and it names the variables used that
// are not set or are empty, which sh(1) passes over in silence.
func TestExpandVarsMatchesTheShell(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh to compare with")
	}
	env := []string{"FULL=/var/state", "EMPTY=", "HOME=/home/u", "S=/s"}
	lookup := func(name string) (string, bool) {
		for _, kv := range env {
			if k, v, _ := strings.Cut(kv, "="); k == name {
				return v, true
			}
		}
		return "", false
	}
	tests := []struct {
		in           string
		unset, empty []string
	}{
		{in: "/plain/path"},
		{in: "$FULL/x"},
		{in: "${FULL}x"},
		{in: "$FULL$S"},
		{in: "${FULL:-/d}/x"},
		{in: "${FULL-/d}/x"},
		{in: "${EMPTY:-/d}/x"},
		{in: "${EMPTY-/d}/x", empty: []string{"EMPTY"}},
		{in: "${UNSET:-/d}/x"},
		{in: "${UNSET-/d}/x"},
		{in: "${UNSET:-$HOME/.local/state}/guard"},
		{in: "${UNSET:-${EMPTY:-$S}}/guard"},
		{in: "${UNSET:-}/x"},
		{in: "${UNSET:-a-b}/x"},
		{in: "${UNSET-a:-b}/x"},
		{in: "${FULL:-$UNSET}/x"},
		{in: "${UNSET:-$UNSET2}/x", unset: []string{"UNSET2"}},
		{in: "$UNSET/$EMPTY/$UNSET", unset: []string{"UNSET"}, empty: []string{"EMPTY"}},
		{in: "a$"},
		{in: "a$/b"},
	}
	for _, tc := range tests {
		got, unset, empty, err := expandVars(tc.in, lookup)
		if err != nil {
			t.Errorf("expandVars(%q): %v", tc.in, err)
			continue
		}
		cmd := exec.Command(sh, "-c", `printf %s "`+tc.in+`"`)
		cmd.Env = env
		want, err := cmd.Output()
		if err != nil {
			t.Fatalf("sh: %q: %v", tc.in, err)
		}
		if got != string(want) {
			t.Errorf("expandVars(%q) = %q; sh gives %q", tc.in, got, want)
		}
		if !slices.Equal(unset, tc.unset) || !slices.Equal(empty, tc.empty) {
			t.Errorf("expandVars(%q): unset %q, empty %q; want %q, %q", tc.in, unset, empty, tc.unset, tc.empty)
		}
	}
	// The shell's special parameters are its own: never set for guard.
	if _, unset, _, _ := expandVars("/x/$$/$?", lookup); !slices.Equal(unset, []string{"$", "?"}) {
		t.Errorf(`expandVars("/x/$$/$?"): unset %q; want [$ ?]`, unset)
	}
}
