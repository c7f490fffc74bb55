package view

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
	"time"

	"guard/internal/jsonx"
)

var ansiCodes = regexp.MustCompile("\x1b\\[[0-9;]*m")

func TestEllipsize(t *testing.T) {
	tests := []struct {
		in    string
		width int
		want  string
	}{
		{"short", 10, "short"},
		{"uv run /home/me/.claude/hooks/validators/check_everything.py --strict", 24, "uv run /hom….py --strict"},
		{"ééééééééééé", 5, "éé…éé"},
		{"anything", 0, "anything"},
	}
	for _, tc := range tests {
		got := ellipsize(tc.in, tc.width)
		if got != tc.want {
			t.Errorf("ellipsize(%q, %d) = %q; want %q", tc.in, tc.width, got, tc.want)
		}
		if tc.width > 0 && len([]rune(got)) > tc.width {
			t.Errorf("ellipsize(%q, %d) is %d long", tc.in, tc.width, len([]rune(got)))
		}
	}
}

func TestStatusTableColourAndAlignment(t *testing.T) {
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	sts := []KeyStatus{
		{Key: strings.Repeat("k", 60), State: "open", known: true, RetryAfter: jsonx.TimeOf(now.Add(time.Minute))},
		{Key: "b", State: "closed", known: true},
	}
	var plain, colour bytes.Buffer
	StatusTable(&plain, sts, now, KeyWidth, false)
	StatusTable(&colour, sts, now, KeyWidth, true)
	if strings.Contains(plain.String(), "\x1b[") {
		t.Errorf("plain table has colour codes:\n%s", plain.String())
	}
	if !strings.Contains(colour.String(), "\x1b[31mopen\x1b[0m") || !strings.Contains(colour.String(), "\x1b[32mclosed\x1b[0m") {
		t.Errorf("coloured table lacks its colours:\n%q", colour.String())
	}
	// Colour must not change the layout.
	if stripped := ansiCodes.ReplaceAllString(colour.String(), ""); stripped != plain.String() {
		t.Errorf("colour changed the layout:\n%s\nvs\n%s", stripped, plain.String())
	}
	if !strings.Contains(plain.String(), "kkkkkkkkkkkkkkkkkkkkkkk…kkkkkkkkkkkkkkkkkkkkkkkk") {
		t.Errorf("long key not shortened in the middle:\n%s", plain.String())
	}
	var wide bytes.Buffer
	StatusTable(&wide, sts, now, 0, false)
	if !strings.Contains(wide.String(), strings.Repeat("k", 60)) {
		t.Error("--wide shortened a key")
	}
}
