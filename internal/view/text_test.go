package view

import "testing"

func TestPrintable(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain key", "plain key"},
		{"a\nb", `a\nb`},
		{"\x1b[31mred", `\x1b[31mred`},
		{"tab\there", `tab\there`},
		{"ünïcode", "ünïcode"},
		{"c1\u009b", `c1\u009b`},
	}
	for _, tc := range tests {
		if got := Printable(tc.in); got != tc.want {
			t.Errorf("Printable(%q) = %q; want %q", tc.in, got, tc.want)
		}
	}
}
