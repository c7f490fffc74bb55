package guardrun

import (
	"slices"
	"strings"
	"testing"
	"time"
)

// TestParseRunLineTakesTheHotPath checks that the lines guard run sees on
// every hook call do take the fast path.
func TestParseRunLineTakesTheHotPath(t *testing.T) {
	for _, line := range [][]string{
		{"--", "python3", "lint.py"},
		{"-c", "npx prettier --check ."},
		{"--name", "lint", "--timeout", "30s", "--", "make", "lint"},
		{"--state", "/tmp/s.json", "--config", "/tmp/g.yaml", "-c", "true"},
		{"--on-skip", "block", "-c", "$CLAUDE_PROJECT_DIR/.claude/hooks/deny.sh"},
		{"--on-skip", "block", "--", "node", "deny.js"},
		{"--hook-timeout", "600", "--shell", "bash", "-c", "$CLAUDE_PROJECT_DIR/.claude/hooks/check.sh"},
		{"--hook-timeout", "30", "--on-skip", "block", "--", "python3", "policy.py"},
	} {
		if _, ok := ParseRunLine(line); !ok {
			t.Errorf("ParseRunLine(%q) fell back to urfave/cli", line)
		}
	}
}

func TestSalvage(t *testing.T) {
	tests := []struct {
		in   []string
		want []string
	}{
		{[]string{"guard", "run", "--bad", "--", "ls", "-l"}, []string{"ls", "-l"}},
		{[]string{"guard", "run", "--bad", "-c", "echo hi"}, []string{"/bin/sh", "-c", "echo hi"}},
		{[]string{"guard", "run", "--bad"}, nil},
		{[]string{"guard", "run", "--"}, nil},
	}
	for _, tc := range tests {
		if got := Salvage(tc.in); !slices.Equal(got, tc.want) {
			t.Errorf("Salvage(%q) = %q; want %q", tc.in, got, tc.want)
		}
	}
}

func TestParseHookTimeout(t *testing.T) {
	tests := []struct {
		in   string
		want time.Duration // 0: an error
	}{
		{"600", 600 * time.Second},
		{"30", 30 * time.Second},
		{"1.5", 1500 * time.Millisecond},
		{".5", 500 * time.Millisecond},
		{"5.", 5 * time.Second},
		{"10m", 10 * time.Minute},
		{"1.5s", 1500 * time.Millisecond},
		{"0", 0},
		{"0.0", 0},
		{"0s", 0},
		{"-3", 0},
		{"-1s", 0},
		{"", 0},
		{"1e3", 0},
		{"inf", 0},
		{"1.2.3", 0},
		{"ten", 0},
		{" 30", 0},
		{"99999999999999999999", 0},
	}
	for _, tc := range tests {
		got, err := ParseHookTimeout(tc.in)
		if tc.want == 0 {
			if err == nil {
				t.Errorf("ParseHookTimeout(%q) = %v; want an error", tc.in, got)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("ParseHookTimeout(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
}

func TestSalvageHookTimeout(t *testing.T) {
	tests := []struct {
		in   string
		want time.Duration
	}{
		{"guard run --bad --hook-timeout 30 -- x", 30 * time.Second},
		{"guard run --hook-timeout=1.5 --bad -c x", 1500 * time.Millisecond},
		{"guard run --hook-timeout nope --bad -- x", 0},
		{"guard run --bad -- x --hook-timeout 30", 0},
		{"guard run --bad -- x", 0},
	}
	for _, tc := range tests {
		if got := salvageHookTimeout(strings.Fields(tc.in)); got != tc.want {
			t.Errorf("salvageHookTimeout(%q) = %v; want %v", tc.in, got, tc.want)
		}
	}
}
