package postgres

import (
	"strings"
	"testing"
)

func TestAdvice(t *testing.T) {
	t.Setenv("PGSSLMODE", "")
	t.Setenv("PGHOST", "")
	for _, tc := range []struct {
		url  string
		want string // in the advice; "" for none
	}{
		{"postgres://u@db.internal/guard", "sslmode=prefer reaches db.internal in the clear"},
		{"postgres://u@10.0.0.5/guard?sslmode=require", "does not check that it is the right server"},
		{"postgres://u@db.internal/guard?sslmode=disable", "sslmode=disable reaches"},
		{"postgres://u@db.internal/guard?sslmode=verify-full", ""},
		{"postgres://u@127.0.0.1/guard", ""},
		{"postgres://u@localhost:5433/guard", ""},
		{"postgres://u@[::1]/guard", ""},
		{"postgres:///guard?host=/run/postgresql", ""},
	} {
		got := strings.Join(Advice(tc.url), "; ")
		if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
			t.Errorf("Advice(%s) = %q; want %q", tc.url, got, tc.want)
		}
	}
}
